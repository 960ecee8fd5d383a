"""The compatibility grid, the history of states across versions, and the badges.

A grid cell is the verdict of one implementation's cells for one row's query at one revision,
exactly as ``mcp-compare rows`` recorded it (``status.<impl>.revisions``); nothing is
recomputed here, so the grid cannot disagree with the row's state beside it. Every grid entry
carries a stable anchor (``#root-03-2025-11-25`` on an implementation page) so a reader can
share one cell, and a ``state-<kind>-<state>`` class so the site's palette colours it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape as html_escape

from compare.site._cells import Cell
from compare.site._escape import Md, esc, slug
from compare.site._inputs import Area, Row, RowStatus
from compare.site._links import Links
from compare.site._strip import marks, outside_window
from compare.site._words import word


def state_class(kind: str, state: str) -> str:
    """``state-verdict-pass``: the class name the site's palette colours a state by."""
    return f"state-{kind}-{re.sub(r'[^a-z0-9]+', '-', state.lower()).strip('-') or 'unknown'}"


@dataclass(frozen=True)
class Entry:
    """One cell behind a grid square: its rows.json key, the verdict there, its page if any."""

    key: str
    verdict: str
    cell: Cell | None


def entries(links: Links, status: RowStatus | None, revision: str) -> list[Entry]:
    """The row's evidence cells of one implementation at ``revision`` (several variants give
    several entries; keys are ``<revision>`` or ``<revision>~<variant>``)."""
    if status is None:
        return []
    out = []
    for key, rel, verdict in status.per_revision:
        if key.split("~", 1)[0] != revision:
            continue
        found = links.cells_for([rel])
        out.append(Entry(key, verdict, found[0] if found else None))
    return out


def square(links: Links, row: Row, impl: str, revision: str, anchor: str) -> Md:
    """One grid square, one mark: the worst verdict of the row's cells at ``revision`` (its
    variants' words in the hover title), linking to that cell; with no cell, ``–`` when the
    row's check is not played at that revision (n/a) and ``∅`` when it could have been (not
    run), each linking to itself so the square is shareable."""
    status = row.status.get(impl)
    if status is None:
        return Md("—")
    mark = marks(links, row, impl, [revision])[0]
    if mark.cell is None:
        gone = outside_window(links.data, row, revision)
        shown = (
            links.symbols.compact("status", "n-a", f"{revision}: n/a ({gone})")
            if gone
            else links.symbols.compact("verdict", "not-run", f"{revision}: not run")
        )
        return Md(f"[{shown}](#{anchor}){{ #{anchor} .{state_class('verdict', 'none')} }}")
    variants = [e.key.split("~", 1)[1] for e in entries(links, status, revision) if "~" in e.key]
    said = f"{revision}: {word('verdict', mark.verdict)}" + (
        f" (worst of the variants {', '.join(variants)})" if len(variants) > 1 else ""
    )
    shown = links.symbols.compact("verdict", mark.verdict, said)
    href = links.cell_href(mark.cell)
    return Md(f"[{shown}]({href}){{ #{anchor} .{state_class('verdict', mark.verdict)} }}")


def row_state(links: Links, row: Row, impl: str) -> Md:
    """The row's state for ``impl`` (linked to its evidence as everywhere), with its class."""
    st = row.status.get(impl)
    state = st.state if st else "unknown"
    shown = links.status(row, impl)
    if not shown.endswith(")"):  # not a link: attr_list has no element to attach a class to
        return shown
    return Md(f"{shown}{{ .{state_class('status', state)} }}")


def impl_anchor(row: Row, revision: str) -> str:
    """A grid square on an implementation page: ``root-03-2025-11-25``."""
    return f"{slug(row.id)}-{slug(revision)}"


def area_anchor(row: Row, impl: str, revision: str) -> str:
    """A grid square on an area page: ``root-03-ts-sdk-2025-11-25``."""
    return f"{slug(row.id)}-{slug(impl)}-{slug(revision)}"


@dataclass(frozen=True)
class Change:
    """One implementation's state for one row that differs from the version before."""

    impl: str
    row: Row
    before_version: str
    before_state: str
    version: str
    state: str


def changes(rows: list[Row], impl: str | None = None) -> list[Change]:
    """Every change of state between consecutive versions with results (rows.json history),
    for one implementation or all of them, in row order then version order."""
    out = []
    for row in rows:
        for name, st in sorted(row.status.items()):
            if impl is not None and name != impl:
                continue
            for (v0, s0, _), (v1, s1, _) in zip(st.history, st.history[1:], strict=False):
                if s0 != s1:
                    out.append(Change(name, row, v0, s0, v1, s1))
    return out


@dataclass(frozen=True)
class Badge:
    """What an implementation's badge says for one area."""

    label: str
    message: str
    state: str  # the palette state the colour follows


#: Row states that grade an implementation (observed, error, not run and cited do not).
GRADED = ("supported", "non-strict", "partial", "not-supported")


def badge(area: str, rows: list[Row], impl: str, revisions: list[str] | None = None) -> Badge:
    """``roots 2024-11-05–2025-11-25: 5 pass``: graded rows only, and the revisions they
    were measured at. Green when nothing fails; ``N pass, M fail`` otherwise."""
    mine = [r.status[impl] for r in rows if impl in r.status]
    if mine and all(st.state == "cited" for st in mine):
        return Badge(area, "cited, not run", "cited")
    graded = [st for st in mine if st.state in GRADED]
    if not graded:
        return Badge(
            area,
            "not run" if not any(st.per_revision for st in mine) else "observed only",
            "not-run",
        )
    order = revisions or []
    seen = {  # the revisions a graded row was judged at (a "not run" cell says nothing)
        key.split("~", 1)[0]
        for st in graded
        for key, _, verdict in st.per_revision
        if verdict != "not-run"
    }
    revs = [r for r in order if r in seen] or sorted(seen)
    label = area + (f" {revs[0]}–{revs[-1]}" if len(revs) > 1 else f" {revs[0]}" if revs else "")
    good = sum(1 for st in graded if st.state == "supported")
    soft = sum(1 for st in graded if st.state == "non-strict")
    bad = len(graded) - good - soft
    counts = [(good, "pass"), (soft, "non-strict"), (bad, "fail")]
    message = ", ".join(f"{n} {what}" for n, what in counts if n)
    if not bad:
        return Badge(label, message, "supported")
    return Badge(label, message, "partial" if good or soft else "not-supported")


_COLOURS = {
    "supported": "#2e7d32",
    "partial": "#b26a00",
    "not-supported": "#c62828",
    "cited": "#5c6bc0",
    "not-run": "#757575",
}


def badge_svg(b: Badge) -> str:
    """A flat two-part badge of our own; both texts are XML-escaped (they come from data)."""
    left, right = html_escape(b.label, quote=True), html_escape(b.message, quote=True)
    lw, rw = 10 + 7 * len(b.label), 10 + 7 * len(b.message)  # about 7 px a character
    colour = _COLOURS.get(b.state, "#757575")
    title = html_escape(f"{b.label}: {b.message}", quote=True)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{lw + rw}" height="20" role="img"'
        f' aria-label="{title}">\n'
        f"<title>{title}</title>\n"
        f'<rect width="{lw}" height="20" fill="#555"/>\n'
        f'<rect x="{lw}" width="{rw}" height="20" fill="{colour}"/>\n'
        '<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"'
        ' text-anchor="middle">\n'
        f'<text x="{lw / 2:.1f}" y="14">{left}</text>\n'
        f'<text x="{lw + rw / 2:.1f}" y="14">{right}</text>\n'
        "</g>\n</svg>\n"
    )


@dataclass
class Grid:
    """The grid helpers bound to one page's links (templates call ``G.impl_square`` …)."""

    links: Links

    def impl_square(self, row: Row, impl: str, revision: str) -> Md:
        return square(self.links, row, impl, revision, impl_anchor(row, revision))

    def area_square(self, row: Row, impl: str, revision: str) -> Md:
        return square(self.links, row, impl, revision, area_anchor(row, impl, revision))

    def has_cells(self, row: Row) -> bool:
        """Whether any implementation has a cell behind the row (else a grid says nothing)."""
        return any(st.per_revision for st in row.status.values())

    def state(self, row: Row, impl: str) -> Md:
        return row_state(self.links, row, impl)

    def change(self, change: Change) -> Md:
        """``1.31.0 ✘ not supported → 1.32.2 ✔ supported``, each state with its class."""
        before = self.links.sym("status", change.before_state)
        after = self.links.sym("status", change.state)
        cb, ca = state_class("status", change.before_state), state_class("status", change.state)
        return Md(
            f'<code>{esc(change.before_version)}</code> <span class="{cb}">{before}</span> → '
            f'<code>{esc(change.version)}</code> <span class="{ca}">{after}</span>'
        )


def badge_files(
    files: dict[str, bytes],
    name: str,
    areas: list[Area],
    rows: list[Row],
    revisions: list[str] | None = None,
) -> list[dict[str, str]]:
    """One SVG per area ``name`` has rows in, added to ``files``: the first area's as
    ``badges/<impl>.svg``, any other's as ``badges/<impl>--<area>.svg``; returns what the
    implementation page shows and offers to copy."""
    out = []
    for i, area in enumerate(a for a in areas if any(r.area == a.id for r in rows)):
        made = badge(area.id, [r for r in rows if r.area == area.id], name, revisions)
        file = f"badges/{slug(name)}{'' if i == 0 else '--' + slug(area.id)}.svg"
        files[file] = badge_svg(made).encode("utf-8")
        text = f"{made.label}: {made.message}"
        page = f"SITE/implementations/{slug(name)}.html"
        out.append({"file": file, "text": text, "snippet": f"[![{text}](SITE/{file})]({page})"})
    return out
