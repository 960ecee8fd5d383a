"""An implementation's verdicts for a row, one per spec revision, and which rows can apply to
which kind of implementation.

The answer in a square of an area's table (``compare.site._answer``), the interop numbers and
the per-revision grids all read the same marks: the worst verdict of the row's cells at each
revision, as ``mcp-compare rows`` recorded it in ``status.<impl>.revisions``, and the newest
revision with a judged cell (the evidence a square opens). Nothing is recomputed here.

A row whose check is played against another kind of implementation (a server-side scenario
for a client) cannot apply to it: that is ``n/a``, which is a different thing from "not run,
because …" (could apply, was not measured).
"""

from __future__ import annotations

from dataclasses import dataclass

from compare.exchange._scenarios import in_window
from compare.judge._verdicts import severity
from compare.site._cells import Cell
from compare.site._inputs import Row, SiteData
from compare.site._links import Links


def side_of(data: SiteData, impl: str) -> str:
    """Which end an implementation plays: ``client``, ``server``, ``proxy`` ("" if unknown)."""
    target = data.targets.get(impl)
    if not target:
        return ""
    kind = str(target.get("kind") or "")
    return kind if kind in ("server", "proxy") else "client"


#: How a side is named in a sentence ("… is checked against servers").
SIDE_WORDS = {"client": "clients", "server": "servers", "proxy": "proxies"}


def row_side(data: SiteData, row: Row) -> str:
    """The side the row's query scenario is played against ("" when the row has none)."""
    scenario = data.scenarios.get(row.scenario) if row.scenario else None
    if not scenario:
        return ""
    return str(scenario.get("side") or "client")


def applies(data: SiteData, row: Row, impl: str) -> bool:
    """Whether the row's check can be played against ``impl`` at all (else: n/a)."""
    need, have = row_side(data, row), side_of(data, impl)
    return not need or not have or need == have


def na_reason(data: SiteData, row: Row, impl: str) -> str:
    """One sentence saying why a square is n/a."""
    need, have = row_side(data, row), side_of(data, impl)
    return (
        f"n/a: {row.id} is checked against {SIDE_WORDS.get(need, need)}, "
        f"and this implementation is a {have}"
    )


@dataclass(frozen=True)
class Mark:
    """One revision of a strip: the verdict there and the cell behind it (None: no cell)."""

    revision: str
    verdict: str  # "" when no cell answers the row's query at this revision
    cell: Cell | None


def marks(links: Links, row: Row, impl: str, revisions: list[str]) -> list[Mark]:
    """One mark per revision: the worst verdict of the row's cells there (variants included)."""
    st = row.status.get(impl)
    out = []
    for rev in revisions:
        found = []
        for key, rel, verdict in st.per_revision if st else []:
            if key.split("~", 1)[0] == rev:
                cells = links.cells_for([rel])
                found.append((verdict, cells[0] if cells else None))
        if not found:
            out.append(Mark(rev, "", None))
            continue
        verdict, cell = max(found, key=lambda f: severity(f[0]))
        out.append(Mark(rev, verdict, cell))
    return out


def newest(found: list[Mark]) -> Mark | None:
    """The newest revision whose cell was judged (the one a square links to and frames);
    when every cell says "not run, because …", the newest of those."""
    with_cell = [m for m in found if m.cell is not None]
    judged = [m for m in with_cell if m.verdict != "not-run"]
    pick = judged or with_cell
    return pick[-1] if pick else None


#: The side an implementation plays → the title of its table on the overview pages.
SIDE_TITLES = {
    "client": "Clients",
    "server": "Servers",
    "proxy": "Proxies",
    "": "Cited, not run",
}


def side_tables(
    data: SiteData, rows: list[Row], impls: list[str]
) -> list[tuple[str, list[Row], list[str]]]:
    """The overview split by the side an implementation plays, each table with only the rows
    that can apply to it (a server row is no column of the clients' table): (title, rows,
    implementations), in the order the implementations come."""
    out: dict[str, tuple[list[Row], list[str]]] = {}
    for impl in impls:
        side = side_of(data, impl)
        out.setdefault(side, ([], []))[1].append(impl)
    tables = []
    for side, (_, names) in out.items():
        mine = [r for r in rows if any(applies(data, r, n) for n in names)]
        tables.append((SIDE_TITLES.get(side, side), mine, names))
    return tables


def outside_window(data: SiteData, row: Row, revision: str) -> str:
    """Why the row's scenario is not played at ``revision`` ("" when it is played there).

    The scenario file's own ``revisions`` window (inclusive, in release order)
    and its ``outside_window`` sentence say so; a revision outside it is n/a for that revision.
    """
    scenario = data.scenarios.get(row.scenario) if row.scenario else None
    window = scenario.get("revisions") if scenario else None
    if not isinstance(window, dict) or not isinstance(window.get("from"), str):
        return ""
    until = window.get("until")
    # The exchange's own window test, in the one revision order (compare.pin.release_order).
    if in_window(
        revision, {"from": window["from"], "until": until if isinstance(until, str) else None}
    ):
        return ""
    why = str((scenario or {}).get("outside_window") or "").strip()
    return why or f"the scenario {row.scenario} is not played at {revision}"


def display_name(data: SiteData, impl: str) -> str:
    """The name a reader knows an implementation by (``TypeScript SDK``), else its id."""
    info = data.impl_info.get(impl) or data.targets.get(impl) or {}
    return str(info.get("name") or impl)
