"""``mcp-compare rows``: lint the area files, compute their columns, write ``rows.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from compare._console import make_console
from compare._exit import exit_with

if TYPE_CHECKING:
    from compare.rows import Issue


def _print_issues(console: Console, issues: list[Issue]) -> None:
    for issue in issues:
        where = escape(f"{issue.file} {issue.where}: {issue.message}")
        mark = "[red]✗[/]" if issue.severity == "error" else "[yellow]![/]"
        console.print(f"{mark} {where}", highlight=False)
        console.print(f"   [yellow]fix:[/] {escape(issue.tip)}", highlight=False)


def _print_rows(console: Console, document: dict[str, Any]) -> None:
    for block in document["areas"]:
        console.print(f"[bold]{escape(block['title'])}[/] ({escape(block['file'])})")
        for row in block["rows"]:
            console.print(f"[bold]{row['id']}[/] {escape(row['difference'])}", highlight=False)
            where = row["where"]
            if where.get("computed"):
                cells = [
                    f"{rev} {c['state']}" + (" (deprecated)" if c.get("deprecated") else "")
                    for rev, c in where["revisions"].items()
                ]
                console.print("   where:  " + " · ".join(cells), highlight=False)
            else:
                console.print(f"   where:  {escape(where.get('reason', ''))}", highlight=False)
            states = [f"{t} {c['label']}" for t, c in row["status"].items()]
            console.print("   status: " + escape(" · ".join(states)), highlight=False)
    for broken in document.get("broken_cells") or []:  # named, never drawn
        console.print(f"[yellow]![/] cell left out: {escape(broken)}", highlight=False)
    console.print("wrote build/rows.json and build/citations.json", highlight=False)


def _state_issues() -> tuple[list[Issue], str]:
    """The row states of the last written ``build/rows.json`` against the cells they name
    (``_consistency``), as lint issues, and the figures checked; nothing before a first
    ``mcp-compare rows``."""
    from compare._paths import build_dir, results_dir
    from compare.rows import Issue
    from compare.rows._consistency import check

    path = build_dir() / "rows.json"
    if not path.is_file():
        return [], ""
    report = check(path, results_dir())
    tip = (
        "a state is computed, never typed: run `mcp-compare rows` (rows.json may be older than"
        " its cells) and lint again; if it stays, the state rule (compare/rows/_state.py) and"
        " the cells disagree, so report it with the cells named, and do not edit the state"
    )
    issues = [
        Issue(file="build/rows.json", where=f"{one.row} {one.implementation}", message=one.text,
              tip=tip)
        for one in report.found
    ]  # fmt: skip
    return issues, report.summary()


def rows(
    area: list[Path] | None = None,
    *,
    lint: bool = False,
    as_json: bool = False,
    strict: bool = False,
    earned: bool = False,
    findings: bool = False,
) -> int:
    """``rows [--lint] [--json] [--strict]``: lint the area files (``area``, default the
    shipped ones), compute where/status, write build/rows.json and build/citations.json and
    print them. ``lint`` also checks the states of an existing build/rows.json against their
    cells. Returns 1 on a lint error (``strict``: on a warning too), else 0. The
    pipeline calls it as the command does."""
    from compare.rows import Issue, lint_all, write_rows

    console = make_console(stderr=as_json)
    if findings:
        from compare.rows._run import findings as find

        table = find()
        if as_json:
            typer.echo(json.dumps(table, indent=2, ensure_ascii=False))
            return 0
        for group in table:
            columns = "; ".join(f"{k} {', '.join(v)}" for k, v in group["columns"].items())
            console.print(
                f"{group['verdict']} {group['check']} = {group['outcome']}"
                f" ({group['cells']} cells): {columns}",
                highlight=False,
                markup=False,
            )
            for sentence in group["sentence"]:
                console.print(f"   cites: {sentence}", highlight=False, markup=False)
            console.print(f"   saw:   {group['observed']}", highlight=False, markup=False)
            console.print(f"   wire:  {group['line']}", highlight=False, markup=False)
        console.print(f"{len(table)} finding group(s)", highlight=False)
        return 0
    if earned:
        from compare.rows._run import earned as count_earned

        passes, hollow = count_earned()
        if as_json:
            typer.echo(json.dumps({"passes": passes, "hollow": hollow}, indent=2))
        else:
            for cell in hollow:
                console.print(f"[red]✗[/] {escape(cell)}", highlight=False)
            console.print(
                f"{passes} current pass cell(s); {len(hollow)} rest on no check that could"
                " have failed",
                highlight=False,
            )
        return 1 if hollow else 0
    if lint:
        issues = lint_all(area or None, write_citations=True)
        states, summary = _state_issues()
        if as_json:
            found = issues + states
            typer.echo(json.dumps([i.as_dict() for i in found], indent=2, ensure_ascii=False))
        else:
            _print_issues(console, issues + states)
            if not issues:
                console.print("[green]✓[/] area files are clean")
            if summary:
                mark = "[red]✗[/]" if states else "[green]✓[/]"
                console.print(f"{mark} build/rows.json: {escape(summary)}", highlight=False)
        return 1 if issues or states else 0
    document = write_rows(area or None)
    if as_json:
        typer.echo(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        _print_rows(console, document)
        _print_issues(console, [Issue(**i) for i in document["issues"]])
    failing = [i for i in document["issues"] if strict or i["severity"] == "error"]
    return 1 if failing else 0


def register(app: typer.Typer) -> None:
    """Add ``rows`` to ``app``."""

    @app.command("rows")
    def rows_command(
        lint: bool = typer.Option(False, "--lint", help="Lint only (schema + semantic lints)."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        area: list[Path] = typer.Option(  # noqa: B008 - typer's way to declare the option
            [], "--area", help="Use these area files instead of compare/rows/areas/*.yaml."
        ),
        strict: bool = typer.Option(False, "--strict", help="Fail on warnings too."),
        findings: bool = typer.Option(
            False,
            "--findings",
            help="List every fail and non-strict finding of the current cells, grouped by"
            " check and outcome, with the sentence it cites and the transcript line behind it.",
        ),
        earned: bool = typer.Option(
            False,
            "--earned",
            help="Count the current pass cells and name any that rests on no check that could"
            " have failed (exit 1 if one does).",
        ),
    ) -> None:
        """Validate and lint compare/rows/areas/*.yaml, compute where/status, write rows.json.

        Exits 1 when any lint error fires (each message carries its fix), after writing
        rows.json; warnings fail only with --strict. --lint runs the schema and semantic
        lints only (among them: a where-column that contradicts its row's text, a note for a
        version that is no longer pinned) and, once build/rows.json exists, re-reads every
        cell it names to check that no row state contradicts its cells' checks (exit 1 with
        one sentence per contradiction); the full run adds the warnings that need verdicts
        (a partial column without a note, a note written for another state or on a column
        not run, a column in error). Both verify every citation once (with the shipped
        areas, the scenarios' refs too) and write build/citations.json, which a following
        `cite --check` reuses while its inputs are unchanged.
        """
        exit_with(
            rows(
                list(area) or None,
                lint=lint,
                as_json=as_json,
                strict=strict,
                earned=earned,
                findings=findings,
            )
        )
