"""``mcp-compare pin``, ``pin verify``, ``pin add REV``, ``pin add-file PATH…``."""

from __future__ import annotations

from typing import Annotated

import typer

from compare._console import labelled, make_console
from compare.pin import _add, _fetch
from compare.pin._pins import load_pins

# No markup: every line carries paths or a source description the user typed.
_out = make_console(highlight=False, markup=False)
_err = make_console(stderr=True, highlight=False, markup=False)

SPEC_HELP = (
    "Spec source: git URL, local git repository, or plain folder laid out like upstream "
    "(default: $MCP_COMPARE_SPEC, else upstream, else ../shared/mcp-spec)."
)


def _announce(message: str) -> None:
    _err.print(labelled("note:", "yellow", message))


def _print_report(report: _fetch.PinReport) -> None:
    if report.source:
        _out.print(f"source: {report.source}")
    for path, wrong in report.replaced:
        _out.print(f"replaced altered cache file {path} (was sha256 {wrong[:16]}…)")
    total = len(report.verified) + len(report.fetched)
    _out.print(
        labelled(
            "ok",
            "green",
            f"{total} pinned files verified at {report.commit[:12]} in {report.cache}"
            f" ({len(report.fetched)} fetched, {len(report.verified)} already cached)",
        )
    )


def _print_add(report: _add.AddReport) -> None:
    _out.print(f"source: {report.source}")
    if report.revision:
        rev = report.revision
        _out.print(
            f"revision {rev.name} ({rev.status}): schema {rev.schema}, roots {rev.roots_page}"
        )
    for pinned in report.added:
        _out.print(f"  added   {pinned.path}  sha256 {pinned.sha256}")
    for pinned, old in report.changed:
        _out.print(f"  re-pinned {pinned.path}  sha256 {old[:12]}… → {pinned.sha256}")
    for path in report.unchanged:
        _out.print(f"  unchanged {path}")


def register(app: typer.Typer) -> None:
    """Mount the ``pin`` group on ``app``."""
    pin_app = typer.Typer(
        help="Fetch the pinned spec files into the cache and verify every sha256.",
        invoke_without_command=True,
        no_args_is_help=False,
    )

    @pin_app.callback()
    def pin(
        ctx: typer.Context,
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
    ) -> None:
        """Fetch every pinned file afresh from the spec source, verify, then cache."""
        ctx.obj = spec_source
        if ctx.invoked_subcommand is None:
            _print_report(_fetch.fetch(load_pins(), spec_source, _announce))

    @pin_app.command("verify")
    def verify(
        ctx: typer.Context,
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
        no_fetch: bool = typer.Option(
            False, "--no-fetch", help="Fail on a missing or altered cache file instead of fetching."
        ),
    ) -> None:
        """Verify the cached files; fetch (and verify) any that are missing or altered."""
        spec = spec_source or ctx.obj
        _print_report(_fetch.verify(load_pins(), spec, _announce, fetch_missing=not no_fetch))

    @pin_app.command("add")
    def add(
        ctx: typer.Context,
        revision: str = typer.Argument(..., help="Revision name: YYYY-MM-DD or draft."),
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
    ) -> None:
        """Pin a revision's schema, roots page and companion pages from the source."""
        spec = spec_source or ctx.obj
        _print_add(_add.add_revision(load_pins(), revision, spec, _announce))

    @pin_app.command("add-file")
    def add_file(
        ctx: typer.Context,
        paths: Annotated[list[str], typer.Argument(help="Paths inside the spec repository.")],
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
    ) -> None:
        """Pin extra files (e.g. SEPs) by path."""
        spec = spec_source or ctx.obj
        _print_add(_add.add_files(load_pins(), paths, spec, _announce))

    app.add_typer(pin_app, name="pin")
