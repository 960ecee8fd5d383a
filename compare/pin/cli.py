"""``mcp-compare pin``, ``pin verify``, ``pin add REV``, ``pin add-file PATH…``, ``pin bump``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from compare._console import HELP_MARKUP, labelled, make_console

if TYPE_CHECKING:
    from compare.pin import AddReport, BumpReport, PinReport

# The stage's modules (GitPython among their imports) are imported inside each command, so
# `mcp-compare --help` and every other command do not pay for them.

# No markup: every line carries paths or a source description the user typed.
_out = make_console(highlight=False, markup=False)
_err = make_console(stderr=True, highlight=False, markup=False)

SPEC_HELP = (
    "Spec source: git URL, local git repository, or plain folder laid out like upstream "
    "(default: $MCP_COMPARE_SPEC, else upstream, else ../shared/mcp-spec)."
)


def _announce(message: str) -> None:
    _err.print(labelled("note:", "yellow", message))


def _print_report(report: PinReport) -> None:
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


def _print_add(report: AddReport) -> None:
    _out.print(f"source: {report.source}")
    if report.revision:
        rev = report.revision
        _out.print(f"revision {rev.name} ({rev.status}): schema {rev.schema}")
    for pinned in report.added:
        _out.print(f"  added   {pinned.path}  sha256 {pinned.sha256}")
    for pinned, old in report.changed:
        _out.print(f"  re-pinned {pinned.path}  sha256 {old[:12]}… → {pinned.sha256}")
    for path in report.unchanged:
        _out.print(f"  unchanged {path}")


def _print_bump(report: BumpReport) -> None:
    _out.print(f"source: {report.source}")
    _out.print(f"commit {report.old_commit[:12]} → {report.new_commit[:12]} ({report.chosen_by})")
    for path, before, after in report.changed:
        _out.print(f"  changed {path}  sha256 {before[:12]}… → {after[:12]}…")
    for path in report.dropped:
        _out.print(f"  dropped {path}  (gone at the new commit; no longer pinned)")
    _out.print(
        labelled(
            "ok",
            "green",
            f"{len(report.changed) + len(report.unchanged)} pinned files re-hashed at "
            f"{report.new_commit[:12]} ({len(report.changed)} changed, "
            f"{len(report.unchanged)} unchanged, {len(report.dropped)} dropped); "
            f"{report.pins} rewritten, verified copies in {report.cache}",
        )
    )
    if report.add_commands:
        _out.print("new revision folders at this commit, not pinned yet; to compare them:")
        for command in report.add_commands:
            _out.print(f"  {command}")
    _out.print("next: mcp-compare models, then make compare, and review the diffs")


def verify(spec_source: str | None = None, *, fetch_missing: bool = True) -> int:
    """``pin verify``: check the cached files against their pins, fetching (and checking) any
    missing or altered one unless ``fetch_missing`` is off; print the report. The pipeline
    calls it as the command does. A problem raises :class:`CompareError`; returns 0."""
    from compare.pin import load_pins
    from compare.pin import verify as verify_pins

    report = verify_pins(load_pins(), spec_source, _announce, fetch_missing=fetch_missing)
    _print_report(report)
    return 0


def register(app: typer.Typer) -> None:
    """Mount the ``pin`` group on ``app``."""
    pin_app = typer.Typer(
        help="Fetch the pinned spec files into the cache and verify every sha256.",
        invoke_without_command=True,
        no_args_is_help=False,
        rich_markup_mode=HELP_MARKUP,
    )

    @pin_app.callback()
    def pin(
        ctx: typer.Context,
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
    ) -> None:
        """Fetch every pinned file afresh from the spec source, verify, then cache."""
        ctx.obj = spec_source
        if ctx.invoked_subcommand is None:
            from compare.pin import fetch, load_pins

            _print_report(fetch(load_pins(), spec_source, _announce))

    @pin_app.command("verify")
    def verify_command(
        ctx: typer.Context,
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
        no_fetch: bool = typer.Option(
            False, "--no-fetch", help="Fail on a missing or altered cache file instead of fetching."
        ),
    ) -> None:
        """Verify the cached files; fetch (and verify) any that are missing or altered."""
        verify(spec_source or ctx.obj, fetch_missing=not no_fetch)

    @pin_app.command("add")
    def add(
        ctx: typer.Context,
        revision: str = typer.Argument(..., help="Revision name: YYYY-MM-DD or draft."),
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
    ) -> None:
        """Pin a revision's schema, every area's pages and companion pages from the source."""
        from compare.pin import add_revision, load_pins

        spec = spec_source or ctx.obj
        _print_add(add_revision(load_pins(), revision, spec, _announce))

    @pin_app.command("add-file")
    def add_file(
        ctx: typer.Context,
        paths: Annotated[list[str], typer.Argument(help="Paths inside the spec repository.")],
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
    ) -> None:
        """Pin extra files (e.g. SEPs) by path."""
        from compare.pin import add_files, load_pins

        spec = spec_source or ctx.obj
        _print_add(add_files(load_pins(), paths, spec, _announce))

    @pin_app.command("bump")
    def bump(
        ctx: typer.Context,
        commit: str | None = typer.Argument(
            None,
            help="Commit, branch or tag to pin (default: the source's newest commit, HEAD of "
            "its default branch).",
        ),
        spec_source: str | None = typer.Option(None, "--spec-source", help=SPEC_HELP),
        drop_missing: bool = typer.Option(
            False, "--drop-missing", help="Unpin files gone at the new commit instead of failing."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    ) -> None:
        """Move the pins to a newer commit: re-hash every pinned file there (git sources only).

        Nothing changes on any error; new revision folders are listed with the `pin add`
        command that pins them.
        """
        from compare.pin import bump, load_pins

        spec = spec_source or ctx.obj
        report = bump(load_pins(), commit, spec, _announce, drop_missing, spec)
        if as_json:
            typer.echo(json.dumps(report.as_json(), indent=2, sort_keys=True, ensure_ascii=False))
        else:
            _print_bump(report)

    app.add_typer(pin_app, name="pin")
