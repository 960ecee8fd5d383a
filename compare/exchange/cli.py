"""Commands of the exchange stage: ``mcp-compare run`` and ``mcp-compare peer``.

Thin on purpose: parse, call :func:`compare.exchange._run.run`, print. ``peer`` imports only
the stdlib peer module, since it sits on the critical path of every cell.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

RUN_HELP = "Drive MCP clients against the scripted peer; write transcripts and verdicts."


def register(app: typer.Typer) -> None:
    """Add ``run`` and ``peer`` to ``app``."""

    @app.command("run", help=RUN_HELP)
    def run_command(
        target: Annotated[
            list[str] | None, typer.Option("--target", "-t", help="Target id (repeatable).")
        ] = None,
        revision: Annotated[
            list[str] | None, typer.Option("--revision", "-r", help="Spec revision (repeatable).")
        ] = None,
        scenario: Annotated[
            list[str] | None, typer.Option("--scenario", "-s", help="Scenario id (repeatable).")
        ] = None,
        variant: Annotated[
            str | None, typer.Option("--variant", help="Only this variant (e.g. roots).")
        ] = None,
        jobs: Annotated[int, typer.Option("--jobs", "-j", help="Cells run at once.")] = 1,
        as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
        force: Annotated[bool, typer.Option("--force", help="Re-run cached cells.")] = False,
        rejudge: Annotated[
            bool, typer.Option("--rejudge", help="Re-judge stored transcripts, run nothing.")
        ] = False,
        command: Annotated[
            str | None, typer.Option("--command", help="Client command line for --target command.")
        ] = None,
        results: Annotated[
            Path | None, typer.Option("--results", help="Results folder (default: results/).")
        ] = None,
    ) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        from compare._console import make_console
        from compare._exit import exit_with
        from compare.exchange._run import errors, run, select, summary

        cells, commit, revisions = select(target, scenario, revision, variant, command)
        console = make_console(stderr=as_json)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            transient=as_json,
            disable=as_json,
        ) as progress:
            task = progress.add_task("cells", total=len(cells))

            def advance(cell: Any, verdict: dict[str, Any]) -> None:
                progress.update(task, advance=1, description=f"{cell.label}: {verdict['verdict']}")

            verdicts = run(
                cells,
                commit,
                revisions,
                results=results,
                jobs=jobs,
                force=force,
                rejudge=rejudge,
                on_done=advance,
            )
        data = summary(verdicts)
        if as_json:
            typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        else:
            _print_table(console, data)
        failed = errors(verdicts)
        if failed:
            # A finding about the run, not bad input: exit 1 (as cite --check does), and say
            # which cells, on stderr so --json output stays parseable.
            typer.echo(
                f"{len(failed)} cell(s) ended in error; the next `mcp-compare run` plays them "
                "again:",
                err=True,
            )
            for line in failed:
                typer.echo(f"  {line}", err=True)
            exit_with(1)

    @app.command("peer", help="The scripted MCP server a client launches (used by run).")
    def peer_command(
        plan: Annotated[Path, typer.Option("--plan", help="plan.json written by the harness.")],
    ) -> None:
        import sys

        from compare.exchange import peer

        # sys.exit, not typer.Exit: in non-standalone mode click returns an Exit's code
        # instead of raising it, and the root command would then exit 0.
        sys.exit(peer.main(["--plan", str(plan)]))


def _print_table(console: Any, data: dict[str, Any]) -> None:
    from rich.table import Table

    from compare.exchange._run import SYMBOLS

    table = Table(title="mcp-compare run", show_lines=False)
    for name in ("target", "variant", "scenario"):
        table.add_column(name)
    for rev in data["revisions"]:
        table.add_column(rev, justify="center")
    for row in data["rows"]:
        table.add_row(
            f"{row['target']} {row['version']}",
            row["variant"],
            row["scenario"],
            *[SYMBOLS.get(row["verdicts"].get(r, ""), "") for r in data["revisions"]],
        )
    console.print(table)
    legend = "  ".join(f"{sym} {name}" for name, sym in SYMBOLS.items())
    counts = ", ".join(f"{n} {k}" for k, n in sorted(data["counts"].items()))
    console.print(f"{legend}\n{counts}")
