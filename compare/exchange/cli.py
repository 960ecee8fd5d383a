"""Commands of the exchange stage: ``mcp-compare run``, ``merge`` and ``peer``.

Thin on purpose: parse, call :func:`compare.play._run.run`, print. ``peer`` imports only
the stdlib peer module, since it sits on the critical path of every cell.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from compare._cores import JOBS_HELP

RUN_HELP = "Drive MCP clients against the scripted peer; write transcripts and verdicts."


def run(
    target: list[str] | None = None,
    scenario: list[str] | None = None,
    revision: list[str] | None = None,
    *,
    variant: str | None = None,
    jobs: int | None = None,
    as_json: bool = False,
    force: bool = False,
    rejudge: bool = False,
    command: str | None = None,
    results: Path | None = None,
    shard: str | None = None,
    wait: bool = True,
    repeat: int = 1,
    settle: int = 1,
) -> int:
    """``run``: play (or reuse, or with ``rejudge`` judge again) the selected cells, print
    their table (``as_json``: the summary as JSON) and the tally. Returns 1 when a cell ended
    in error (named on stderr; the next run plays it again), else 0. The pipeline calls it
    as the command does."""
    import sys

    from compare._console import make_console
    from compare._cores import default_jobs
    from compare._progress import CellProgress
    from compare.play._run import errors, select, summary
    from compare.play._run import run as play
    from compare.play._shard import declared_waits, parse_shard, shard_cells

    part = parse_shard(shard) if shard is not None else None
    cells, commit, revisions = select(target, scenario, revision, variant, command)
    if part is not None:
        everything = len(cells)
        cells = shard_cells(cells, *part)
        typer.echo(f"shard {part[0]}/{part[1]}: {len(cells)} of {everything} cells", err=True)
    console = make_console(stderr=as_json)
    keeps_stamp = part is None and results is None and command is None and _run_stamp_holds()
    # A cell's expected cost for the estimate: a second plus its declared windows.
    weights = {c.label: 1.0 + declared_waits(c) for c in cells}
    with CellProgress(len(cells), sys.stderr, weights=weights) as progress:
        verdicts = play(
            cells,
            commit,
            revisions,
            results=results,
            jobs=default_jobs() if jobs is None else jobs,
            force=force,
            rejudge=rejudge,
            on_done=progress.on_done,
            wait=wait,
            repeat=repeat,
            settle=settle,
        )
    data = summary(verdicts)
    data["tally"] = progress.tally.as_dict()
    if part is not None:
        data["shard"] = {"index": part[0], "count": part[1]}
    if as_json:
        typer.echo(json.dumps(data, indent=2, ensure_ascii=False))
        typer.echo(progress.tally.summary(), err=True)
    else:
        _print_table(console, data)
        console.print(progress.tally.summary())
    failed = errors(verdicts)
    if keeps_stamp and not failed:
        _refresh_run_stamp()
    if failed:
        # A finding about the run, not bad input: exit 1 (as cite --check does), and say
        # which cells, on stderr so --json output stays parseable.
        typer.echo(
            f"{len(failed)} cell(s) ended in error; the next `mcp-compare run` plays them again:",
            err=True,
        )
        for line in failed:
            typer.echo(f"  {line}", err=True)
        return 1
    return 0


def register(app: typer.Typer) -> None:
    """Add ``run``, ``merge`` and ``peer`` to ``app``."""

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
        jobs: Annotated[
            int | None,
            typer.Option("--jobs", "-j", help=JOBS_HELP),
        ] = None,
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
        shard: Annotated[
            str | None,
            typer.Option("--shard", help="Run only shard I of N of the selected cells (I/N)."),
        ] = None,
        no_wait: Annotated[
            bool,
            typer.Option(
                "--no-wait", help="Fail at once when another run holds the results folder."
            ),
        ] = False,
        repeat: Annotated[
            int,
            typer.Option(
                "--repeat",
                help="Play each cell N times; a cell whose plays differ reads unstable.",
            ),
        ] = 1,
        settle: Annotated[
            int,
            typer.Option(
                "--settle",
                help="Play a newly played fail, non-strict or unstable cell until it has N "
                "plays (mcp-compare compare uses 3).",
            ),
        ] = 1,
    ) -> None:
        from compare._exit import exit_with

        exit_with(
            run(
                target,
                scenario,
                revision,
                variant=variant,
                jobs=jobs,
                as_json=as_json,
                force=force,
                rejudge=rejudge,
                command=command,
                results=results,
                shard=shard,
                wait=not no_wait,
                repeat=repeat,
                settle=settle,
            )
        )

    @app.command("merge", help="Combine shard result folders into one, refusing conflicts.")
    def merge_command(
        sources: Annotated[list[Path], typer.Argument(help="Shard results folders.")],
        into: Annotated[
            Path | None, typer.Option("--into", help="Destination (default: results/).")
        ] = None,
    ) -> None:
        from compare._paths import results_dir
        from compare.play._merge import merge

        destination = into or results_dir()
        done = merge(sources, destination)
        typer.echo(
            f"merged {len(sources)} folder(s) into {destination}: {len(done.copied)} cell(s) "
            f"copied, {len(done.duplicates)} identical duplicate(s) left out"
        )

    @app.command("peer", help="The scripted MCP server a client launches (used by run).")
    def peer_command(
        plan: Annotated[Path, typer.Option("--plan", help="plan.json written by the harness.")],
    ) -> None:
        import sys

        from compare import peer

        # sys.exit, not typer.Exit: in non-standalone mode click returns an Exit's code
        # instead of raising it, and the root command would then exit 0.
        sys.exit(peer.main(["--plan", str(plan)]))


def _run_stamp_holds() -> bool:
    """Whether the pipeline's run stage may be skipped now: every cell of the matrix was
    current when ``mcp-compare compare`` last checked, and nothing changed since."""
    from compare import _stamp
    from compare.pipeline import _inputs

    return _stamp.why_stale("run", _inputs.run_inputs(())) is None


def _refresh_run_stamp() -> None:
    """After a run that began with every cell current and ended without an error, every cell
    is current still (the ones played now were played with the same inputs): the pipeline's
    run stage is recorded as done, so the next ``mcp-compare compare`` publishes the new
    results without checking all the others again (seconds on the whole matrix)."""
    from compare import _paths, _stamp
    from compare.pipeline import _inputs

    _stamp.forget()
    _stamp.record("run", _inputs.run_inputs(()), [_paths.results_dir()])


#: A run table longer than this is not printed (the whole matrix is some 1,600 lines that
#: took seconds to lay out): the counts are, and ``--json`` and the site have every cell.
MAX_TABLE_ROWS = 200


def _print_table(console: Any, data: dict[str, Any]) -> None:
    from rich.table import Table

    from compare.play._run import SYMBOLS

    if len(data["rows"]) > MAX_TABLE_ROWS:
        console.print(
            f"{len(data['rows'])} target × scenario lines, too many to print: "
            "`mcp-compare run --json` lists every cell, and the site shows each one"
        )
        counts = ", ".join(f"{n} {k}" for k, n in sorted(data["counts"].items()))
        console.print(counts)
        return

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
