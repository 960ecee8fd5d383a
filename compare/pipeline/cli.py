"""``mcp-compare compare [--force] [--replay] [--jobs N]``: the pipeline in one process."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from compare._cores import JOBS_HELP


def register(app: typer.Typer) -> None:
    """Add ``compare`` to ``app``."""

    @app.command("compare")
    def compare_command(
        force: Annotated[
            bool,
            typer.Option(
                "--force",
                help="Run every stage even when its stamp says nothing changed (cells still "
                "come from their cache: add --replay to play them again).",
            ),
        ] = False,
        replay: Annotated[
            bool,
            typer.Option(
                "--replay",
                help="Play every selected cell again (`run --force`), newly doubtful ones "
                "until they have 3 plays, then judge and publish as usual.",
            ),
        ] = False,
        jobs: Annotated[
            int | None,
            typer.Option("--jobs", "-j", help=JOBS_HELP),
        ] = None,
        target: Annotated[
            list[str] | None,
            typer.Option("--target", "-t", help="Only these targets' cells (repeatable)."),
        ] = None,
        scenario: Annotated[
            list[str] | None,
            typer.Option("--scenario", "-s", help="Only these scenarios' cells (repeatable)."),
        ] = None,
        revision: Annotated[
            list[str] | None,
            typer.Option("--revision", "-r", help="Only these revisions' cells (repeatable)."),
        ] = None,
        timings: Annotated[
            Path | None,
            typer.Option("--timings", help="Also write each stage's status and seconds here."),
        ] = None,
        no_wait: Annotated[
            bool,
            typer.Option(
                "--no-wait",
                help="Fail at once when another run holds the build or results folder.",
            ),
        ] = False,
    ) -> None:
        """pin verify, models, diff, run, rows, cite --check, render, export, site — each
        skipped while its inputs and outputs are what it last saw (build/stamps/)."""
        from compare import _atomic
        from compare._cores import default_jobs
        from compare._exit import exit_with
        from compare.pipeline._stages import Selection, run_pipeline

        def say(line: str) -> None:
            typer.echo(line)

        chosen = Selection(
            tuple(target or ()), tuple(scenario or ()), tuple(revision or ()), replay=replay
        )
        outcomes, code = run_pipeline(
            jobs=jobs or default_jobs(), force=force, chosen=chosen, say=say, wait=not no_wait
        )
        if timings is not None:
            _atomic.write_json(
                timings,
                {
                    o.stage: {"status": o.status, "why": o.why, "seconds": o.seconds}
                    | ({"exit_code": o.exit_code} if o.exit_code else {})
                    for o in outcomes
                },
            )
        exit_with(code)
