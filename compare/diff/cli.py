"""``mcp-compare diff [--json] [--quiet]``."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.table import Table

from compare._console import make_console

_MARK = {"added": "+", "removed": "−"}


def _cell(record: dict[str, Any], changes: list[str]) -> str:
    if not record.get("present"):
        text = "—"
    else:
        text = "✓"
        if record.get("required"):
            text += " req"
    if changes:
        marks = "".join(sorted({_MARK.get(c, "~") for c in changes}))
        return f"[yellow]{marks} {text}[/]"
    return text


def _table(diff: dict[str, Any], section: dict[str, Any]) -> Table:
    revisions: list[str] = diff["revisions"]
    title = f"{section['area']} schema items @ {diff['spec_commit'][:12]}"
    table = Table(title=title, show_lines=False)
    table.add_column("item", no_wrap=True)
    for rev in revisions:
        table.add_column(rev, no_wrap=True)
    by_cell: dict[tuple[str, str], list[str]] = {}
    for change in section["changes"]:
        by_cell.setdefault((change["item"], change["revision"]), []).append(change["change"])
    for name, item in section["items"].items():
        label = name if item["kind"] == "definition" else f"  {name}"
        cells = [_cell(item["revisions"][r], by_cell.get((name, r), [])) for r in revisions]
        table.add_row(f"[bold]{label}[/]" if item["kind"] == "definition" else label, *cells)
    marks = []
    for rev in revisions:
        dep = section["deprecation"][rev]
        marks.append(f"[red]deprecated :{dep['line']}[/]" if dep["deprecated"] else "—")
    table.add_row(f"[italic]{section['area']} page: deprecation[/]", *marks)
    return table


def diff(*, as_json: bool = False, quiet: bool = False) -> int:
    """``diff [--json] [--quiet]``: where each area's definitions and fields exist, per
    revision; writes build/diff.json and prints the tables (``quiet``: only where it was
    written). The pipeline calls it as the command does; returns 0."""
    from compare.diff import build_diff, write_diff

    result = build_diff()
    path = write_diff(result)
    if as_json:
        typer.echo(json.dumps(result, indent=2, sort_keys=True, ensure_ascii=False))
        return 0
    console = make_console(highlight=False)
    sections = list(result["areas"].values())
    if not quiet:
        for section in sections:
            console.print(_table(result, section))
        console.print("+ added  − removed  ~ changed (required, type, ref, items, const)")
    counts = ", ".join(
        f"{s['area']}: {len(s['items'])} items, {len(s['changes'])} changes" for s in sections
    )
    console.print(f"{counts} → {path}")
    return 0


def register(app: typer.Typer) -> None:
    """Mount ``diff`` on ``app``."""

    @app.command("diff")
    def diff_command(
        as_json: bool = typer.Option(False, "--json", help="Print the diff as JSON."),
        quiet: bool = typer.Option(False, "--quiet", help="Print only where it was written."),
    ) -> None:
        """Where each area's definitions and fields exist, per revision (build/diff.json)."""
        diff(as_json=as_json, quiet=quiet)
