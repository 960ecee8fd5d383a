"""``mcp-compare cite``: look a citation up, or verify (and fix) every citation."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.text import Text

from compare._console import labelled, make_console
from compare._exit import exit_with

_STYLE = {
    "verified": "green",
    "verified-normalised": "green",
    "moved": "yellow",
    "ambiguous": "red",
    "mismatch": "red",
    "unavailable": "magenta",
}


def register(app: typer.Typer) -> None:
    """Add ``cite`` to ``app``."""

    @app.command("cite")
    def cite_command(
        ref: str = typer.Argument(None, help="path:LINE[-END] [“quote”] to show."),
        check: bool = typer.Option(False, "--check", help="Verify every citation of every row."),
        fix: bool = typer.Option(False, "--fix", help="Rewrite the line numbers of moved ones."),
        allow_moved: bool = typer.Option(False, "--allow-moved", help="Moved only warns."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        area: list[Path] = typer.Option(  # noqa: B008 - typer's way to declare the option
            [], "--area", help="Check these area files instead of compare/rows/areas/*.yaml."
        ),
        scenarios: Path | None = typer.Option(  # noqa: B008 - as --area
            None,
            "--scenarios",
            help="Check the refs of the scenarios in this folder (default: the shipped "
            "scenarios, unless --area is given).",
        ),
    ) -> None:
        """Show a cited place (lines, pin, upstream link) or check all citations.

        REF may shorten a spec path to its tail when one pinned file ends with it
        (2025-11-25/client/roots.mdx:78). --check verifies the rows' citations and the
        scenarios' refs (each ref's quote must be a clause: 3+ words, 15+ characters);
        it writes build/citations.json and exits 1 on mismatch, ambiguity, a spec or
        package source that cannot be read, or (unless --allow-moved) a moved line. An
        upstream repository without a local clone in .cache/repos/OWNER/REPO is reported as
        "not verified: source unavailable", never as verified, and does not fail the check.
        """
        from compare._errors import CompareError

        # No markup: refs, paths and messages are printed as they are (Text for the styles).
        console = make_console(stderr=as_json, markup=False, highlight=False)
        if ref is not None and (check or fix):
            raise CompareError("give either a REF to show or --check/--fix", "not both")
        if ref is not None:
            _show(ref, as_json, console)
            return
        if not (check or fix):
            raise CompareError("nothing to do", "give a REF, or --check, or --fix")
        from compare.cite import check_all, fix_moved

        files = list(area) or None
        report = check_all(files, scenarios=scenarios)
        if fix:
            fixes = fix_moved(report)
            for f in fixes:
                console.print(f"fixed {f.file}: {f.old} → {f.new} ({f.count}×)")
            if fixes:
                report = check_all(files, scenarios=scenarios)
        if as_json:
            typer.echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
        else:
            for c in report.checked:
                if c.status == "verified":
                    continue  # the tally counts them; the list is for what needs a look
                message = c.message
                style = _STYLE.get(c.status, "red")
                # soft_wrap: one line per ref and message, so a log can be searched and copied.
                console.print(
                    labelled(f"{c.status:<19}", style, f"{c.row} {c.ref}"), soft_wrap=True
                )
                console.print(" " * 20 + message.replace("\n", "\n" + " " * 20), soft_wrap=True)
            for w in report.warnings:
                console.print(labelled("warning:", "yellow", w), soft_wrap=True)
            tally = ", ".join(f"{k}: {v}" for k, v in report.tally().items())
            scenario = sum(c.origin == "scenario" for c in report.checked)
            console.print(
                f"{len(report.checked)} citations ({scenario} of them scenario refs) — {tally}"
            )
        exit_with(1 if report.failed(allow_moved) else 0)


def _show(ref: str, as_json: bool, console: Console) -> None:
    from compare.cite import lookup

    found = lookup(ref)
    if as_json:
        typer.echo(json.dumps(found.as_dict(), indent=2, ensure_ascii=False))
        return
    console.print(labelled(found.citation.location, "bold", f" ({found.provenance})"))
    if found.link:
        console.print(f"upstream: {found.link}", soft_wrap=True)
    width = len(str(found.lines[-1][0])) if found.lines else 1
    for number, text, cited in found.lines:
        marker = "▶" if cited else " "
        line = f"{marker} {number:>{width}} │ {text}"
        console.print(Text(line, style="bold" if cited else "dim"))
    if found.result:
        style = _STYLE.get(found.result.status, "red")
        console.print(Text.assemble((found.result.status, style), ": ", found.result.message))
