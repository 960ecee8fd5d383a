"""``mcp-compare tools install | lock | list``: the real clients at the versions targets pin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from compare._console import HELP_MARKUP, make_console

if TYPE_CHECKING:
    from compare.install._tools import InstallReport

# The installers are imported inside each command: `tools install` with nothing changed is
# answered by its stamp (compare/pipeline/_tools.py) on every `make compare`.

_TARGETS = typer.Option(None, "--targets", help="Folder of target files (default: shipped ones).")
_JSON = typer.Option(False, "--json", help="Print the result as JSON.")
_EXCEPT = typer.Option(
    None,
    "--except",
    metavar="NAME",
    help="Leave out this package or target (repeatable; default: the names in "
    "MCP_COMPARE_TOOLS_EXCEPT, which `make test` sets). The stamp remembers it, so a later "
    "install without it installs what was left out.",
)


def _print_report(report: InstallReport, as_json: bool) -> None:
    if as_json:
        value = {
            "steps": report.steps,
            "step_seconds": report.step_seconds,
            "seconds": round(report.seconds, 2),
            "size_bytes": report.size_bytes,
            "tools": str(report.tools),
        }
        typer.echo(json.dumps(value, indent=2))
        return
    console = make_console()
    took = report.step_seconds if len(report.step_seconds) == len(report.steps) else []
    for i, step in enumerate(report.steps):
        when = f" ({took[i]:.1f} s)" if took else ""
        console.print(f"{step}{when}", highlight=False, markup=False)
    console.print(
        f"{report.tools}: {report.size_bytes / 2**20:.1f} MiB, {report.seconds:.1f} s",
        highlight=False,
        markup=False,
    )


def register(app: typer.Typer) -> None:
    """Add ``tools install``, ``tools lock`` and ``tools list`` to ``app``."""
    tools = typer.Typer(
        help="Install the real MCP clients the target files pin.",
        no_args_is_help=True,
        rich_markup_mode=HELP_MARKUP,
    )

    @tools.command("install")
    def install_cmd(
        targets: Path | None = _TARGETS,
        as_json: bool = _JSON,
        force: bool = typer.Option(
            False, "--force", help="Ask every installer even when the stamp says nothing changed."
        ),
        no_wait: bool = typer.Option(
            False, "--no-wait", help="Fail at once when another install holds the tools folder."
        ),
        leave_out: list[str] | None = _EXCEPT,
    ) -> None:
        """Install every pinned client from the committed lock files (idempotent).

        Skipped at once while the locks, target files, host sources, toolchains and every
        installer's own stamp are what the last install saw (build/stamps/tools.json).
        """
        from compare import _lock, _paths, _stamp
        from compare.pipeline import _tools as _skip

        # One install at a time per tools folder, stamp check included (see compare._lock).
        with _lock.holding(_paths.tools_dir(), "tools folder", wait=not no_wait):
            left_out = frozenset(leave_out) if leave_out else None
            inputs = _skip.inputs(targets, left_out)
            if not force and _stamp.why_stale(_skip.STAGE, inputs) is None:
                if as_json:
                    typer.echo(json.dumps({"steps": [], "skipped": "unchanged inputs"}, indent=2))
                else:
                    typer.echo("tools install: skipped (unchanged inputs)")
                return
            from compare.install._tools import install_tools

            # The old stamp stays through a failure: installers write their own stamps last,
            # so what it lists still describes what is installed.
            report = install_tools(targets, leave_out=left_out)
            _stamp.record(_skip.STAGE, inputs, _skip.outputs())
        _print_report(report, as_json)

    @tools.command("lock")
    def lock_cmd(targets: Path | None = _TARGETS, as_json: bool = _JSON) -> None:
        """Re-resolve every pinned client; rewrite tools/package*.json and tools/requirements/."""
        from compare.install._tools import lock_tools

        _print_report(lock_tools(targets), as_json)

    @tools.command("list")
    def list_cmd(targets: Path | None = _TARGETS, as_json: bool = _JSON) -> None:
        """Show pinned versus installed versions; exit 2 on any mismatch."""
        from rich.table import Table

        from compare.install._tools import check_status, tool_status

        statuses = tool_status(targets)
        if as_json:
            rows = [
                {
                    "target": s.target,
                    "registry": s.registry,
                    "name": s.name,
                    "pinned": s.pinned,
                    "installed": s.installed,
                    "ok": s.ok,
                }
                for s in statuses
            ]
            typer.echo(json.dumps(rows, indent=2))
        else:
            table = Table("target", "registry", "package", "pinned", "installed")
            for s in statuses:
                mark = s.installed if s.ok else f"[red]{s.installed or 'missing'}[/]"
                table.add_row(s.target, s.registry, s.name, s.pinned, mark)
            make_console().print(table)
        check_status(statuses)

    app.add_typer(tools, name="tools")
