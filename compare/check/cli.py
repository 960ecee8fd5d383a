"""``mcp-compare check``: thin on purpose; the work is ``compare.check._run``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from compare._cores import JOBS_HELP

HELP = (
    "Check your own MCP client or server: play every scenario of its side at every revision"
    " into a folder of its own (never the published matrix) and write a terminal summary,"
    " an HTML report, report.json and JUnit XML."
)


def register(app: typer.Typer) -> None:
    """Add ``check`` to ``app``."""

    @app.command("check", help=HELP)
    def check_command(
        client: Annotated[
            str | None,
            typer.Option(
                "--client",
                help="Your client's command line; {server} (one shell-quoted string) or"
                " '{server_argv}' (split) is where our test server's command goes, or {url}"
                " where its URL goes (Streamable HTTP at 127.0.0.1).",
            ),
        ] = None,
        server: Annotated[
            str | None,
            typer.Option(
                "--server",
                help="Your server's command line: it speaks stdio, or, where it names {port},"
                " Streamable HTTP at http://127.0.0.1:{port}/mcp. Or the URL of your server,"
                " already running at 127.0.0.1 (http://127.0.0.1:8000/mcp): nothing is started.",
            ),
        ] = None,
        name: Annotated[
            str | None,
            typer.Option("--name", help="The name reports show (default: from the command)."),
        ] = None,
        out: Annotated[
            Path | None, typer.Option("--out", help="The check's folder (default: checks/<name>/).")
        ] = None,
        area: Annotated[
            list[str] | None, typer.Option("--area", help="Only this area (repeatable).")
        ] = None,
        scenario: Annotated[
            list[str] | None,
            typer.Option("--scenario", "-s", help="Only this scenario (repeatable)."),
        ] = None,
        revision: Annotated[
            list[str] | None,
            typer.Option("--revision", "-r", help="Only this revision (repeatable)."),
        ] = None,
        beside: Annotated[
            list[str] | None,
            typer.Option("--beside", help="A published column to show beside yours (repeatable)."),
        ] = None,
        fail_on: Annotated[
            str,
            typer.Option(
                "--fail-on",
                help="Exit 1 on a failed MUST (fail), also on a SHOULD met only non-strictly"
                " (non-strict), or never.",
            ),
        ] = "fail",
        jobs: Annotated[int | None, typer.Option("--jobs", "-j", help=JOBS_HELP)] = None,
        repeat: Annotated[
            int,
            typer.Option("--repeat", help="Play each exchange N times (unstable if they differ)."),
        ] = 1,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print report.json instead of the summary.")
        ] = False,
    ) -> None:
        from compare._exit import exit_with
        from compare.check._run import Request, check

        code, text, report = check(
            Request(
                client=client,
                server=server,
                name=name,
                out=out,
                areas=tuple(area or ()),
                scenarios=tuple(scenario or ()),
                revisions=tuple(revision or ()),
                beside=tuple(beside or ()),
                fail_on=fail_on,
                jobs=jobs,
                repeat=repeat,
            )
        )
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False) if as_json else text)
        exit_with(code)
