"""The interop view: per kind of implementation, each one's share of rows supported, by area.

In the spirit of wpt.fyi's Interop dashboard, a reader who asks "how far along is X, and is it
getting better?" gets one number per implementation and area instead of hundreds of squares.
The number is a share of *graded* rows only: a row whose newest verdict is observed, not
exercised, not run, an error or unstable says nothing about support, so counting it either way
would make an implementation look better or worse than its recordings show. Those rows are
counted apart and named in the number's title.

A row's verdict for an implementation is the one its matrix square opens: the worst verdict of
the row's cells at the newest revision with a judged cell (``compare.site._strip``), so the
number and the squares behind it cannot disagree. Every number links to the implementation's
rows of that area, where each square opens its cell.

How a number moved is told by row state (``supported`` among the graded states), on both sides
of the comparison: the previous run's published matrix keeps each row's state, not its
per-revision verdicts, and the rows stage's history keeps a state per version. Comparing a
verdict share now with a state share then would show movement that is only a change of rule.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from compare.site._changes import _baseline, _not_a_matrix
from compare.site._escape import Md, esc, slug
from compare.site._grid import GRADED
from compare.site._inputs import Area, Row
from compare.site._links import Links
from compare.site._matrix import kind_group, matrix_of, row_columns
from compare.site._matrix_html import href
from compare.site._strip import applies, display_name, marks, newest
from compare.site._words import word

#: Verdicts that grade a row; ``pass`` is the one that counts as supported.
GRADED_VERDICTS = ("pass", "non-strict", "fail")
#: The order the rows left out of a share are named in.
LEFT_OUT_ORDER = ("informational", "not-exercised", "unstable", "error", "not-run")


@dataclass
class Tally:
    """An implementation's rows of one area (or of all areas): how many pass, how many are
    graded, and the rows whose newest verdict grades nothing, by that verdict."""

    supported: int = 0
    graded: int = 0
    rows: int = 0  # rows that have a state for the implementation and can apply to it
    left_out: Counter[str] = field(default_factory=Counter)

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.supported + other.supported,
            self.graded + other.graded,
            self.rows + other.rows,
            self.left_out + other.left_out,
        )

    @property
    def percent(self) -> int:
        """The share as a whole percentage (0 when nothing is graded)."""
        return round(100 * self.supported / self.graded) if self.graded else 0

    @property
    def empty_word(self) -> str:
        """Why there is no share: no row can apply, nothing was judged, or nothing graded."""
        if not self.rows:
            return "n/a"
        judged = sum(n for v, n in self.left_out.items() if v != "not-run")
        return "nothing graded" if judged else "not run"

    def left_out_text(self) -> str:
        """``not counted: 2 observed, 1 unstable`` ("" when every row counted)."""
        order = [v for v in LEFT_OUT_ORDER if self.left_out[v]]
        order += sorted(v for v in self.left_out if self.left_out[v] and v not in order)
        if not order:
            return ""
        return "not counted: " + ", ".join(
            f"{self.left_out[v]} {word('verdict', v)}" for v in order
        )


@dataclass(frozen=True)
class Move:
    """How a share moved, by row state: (supported, graded) then and now. ``before`` None:
    the implementation (or the area) was not there then."""

    since: str  # "the last run", or the earlier version's name
    before: tuple[int, int] | None
    after: tuple[int, int]

    @property
    def delta(self) -> int:
        return self.after[0] - (self.before[0] if self.before else 0)

    @property
    def shown(self) -> str:
        """``+2``, ``−1``, ``=`` or ``new``."""
        if self.before is None:
            return "new"
        if self.delta > 0:
            return f"+{self.delta}"
        return f"−{-self.delta}" if self.delta < 0 else "="

    @property
    def trend(self) -> str:
        """A class word for the colour: up, down, same or new."""
        if self.before is None:
            return "new"
        return "up" if self.delta > 0 else "down" if self.delta < 0 else "same"

    @property
    def counts_anything(self) -> bool:
        """Whether a row was graded then or now (else there is no number to move)."""
        return bool(self.after[1] or (self.before and self.before[1]))

    def counts(self) -> str:
        """Then and now in words: ``by row state, 5 of 8 then, 7 of 9 now``."""
        now = f"{self.after[0]} of {self.after[1]} now"
        if self.before is None:
            return f"by row state, not there then, {now}"
        return f"by row state, {self.before[0]} of {self.before[1]} then, {now}"

    def sentence(self) -> str:
        """The movement in words, for a title."""
        return f"since {self.since}: {self.shown} ({self.counts()})"

    def __add__(self, other: Move) -> Move:
        before = (
            None
            if self.before is None and other.before is None
            else (
                (self.before or (0, 0))[0] + (other.before or (0, 0))[0],
                (self.before or (0, 0))[1] + (other.before or (0, 0))[1],
            )
        )
        after = (self.after[0] + other.after[0], self.after[1] + other.after[1])
        return Move(self.since, before, after)


@dataclass
class Square:
    """One number of the view: an implementation's share in one area ("" for all areas)."""

    area: str
    tally: Tally
    since_run: Move | None = None  # None: no previous run to compare with
    since_version: Move | None = None  # None: no earlier version with results


@dataclass
class Line:
    """One implementation's row of a table: a square per area and the all-areas square."""

    impl: str
    name: str
    squares: dict[str, Square]
    total: Square


@dataclass
class InteropTable:
    """The implementations of one kind (SDKs, CLI clients, servers, proxies, …)."""

    kind: str
    lines: list[Line]


@dataclass(frozen=True)
class LastRun:
    """The previous run, as the "what changed" page finds it (``compare.site._changes``):
    each implementation's (supported, graded) rows per area by row state, or why there is
    nothing to compare with."""

    found: bool  # an earlier run exists
    problem: str = ""  # why it could not be compared ("" when it was)
    states: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)

    @property
    def compared(self) -> bool:
        return self.found and not self.problem


def _by_state(states: list[str]) -> tuple[int, int]:
    """(supported, graded) of row states."""
    graded = [s for s in states if s in GRADED]
    return sum(1 for s in graded if s == "supported"), len(graded)


def last_run(current: dict[str, Any]) -> LastRun:
    """The previous run's shares by row state, per (implementation, area)."""
    path, before = _baseline(current)
    if path is None:
        return LastRun(False)
    if before is None:
        return LastRun(True, "the previous run's data is not readable")
    if _not_a_matrix(before):  # the "what changed" page names where it breaks the schema
        return LastRun(True, "the previous run's data is not in the expected format")
    found: dict[tuple[str, str], list[str]] = {}
    for row in before.get("rows") or []:
        if not isinstance(row, dict):
            continue
        area = str(row.get("area") or "")
        for impl, st in (row.get("status") or {}).items():
            state = st.get("state") if isinstance(st, dict) else None
            found.setdefault((str(impl), area), []).append(str(state or ""))
    return LastRun(True, "", {key: _by_state(states) for key, states in found.items()})


def row_verdict(L: Links, row: Row, impl: str) -> str:
    """The verdict that speaks for the row: at the newest revision with a judged cell (the
    cell its matrix square opens); ``not-run`` when no cell was judged."""
    top = newest(marks(L, row, impl, L.data.revisions))
    return top.verdict if top is not None and top.verdict else "not-run"


def _tally(L: Links, rows: list[Row], impl: str) -> Tally:
    out = Tally()
    for row in rows:
        if impl not in row.status or not applies(L.data, row, impl):
            continue
        out.rows += 1
        verdict = row_verdict(L, row, impl)
        if verdict in GRADED_VERDICTS:
            out.graded += 1
            out.supported += verdict == "pass"
        else:
            out.left_out[verdict] += 1
    return out


def _versions(rows: list[Row], impl: str) -> list[str]:
    """The implementation's versions with results, oldest first (the rows stage's history)."""
    seen: dict[str, None] = {}
    for row in rows:
        st = row.status.get(impl)
        for version, _, _ in st.history if st else []:
            seen.setdefault(version, None)
    return list(seen)


def _since_version(rows: list[Row], impl: str, versions: list[str]) -> Move | None:
    """The area's share by row state at the version before the newest vs the newest."""
    if len(versions) < 2:
        return None
    then, now = versions[-2], versions[-1]
    states: dict[str, list[str]] = {then: [], now: []}
    for row in rows:
        st = row.status.get(impl)
        for version, state, _ in st.history if st else []:
            if version in states:
                states[version].append(state)
    return Move(then, _by_state(states[then]), _by_state(states[now]))


def _since_run(last: LastRun, rows: list[Row], impl: str, area: str) -> Move | None:
    """The area's share by row state now vs at the previous run."""
    mine = [row.status[impl].state for row in rows if impl in row.status]
    if not last.compared or not mine:
        return None
    now = _by_state(mine)
    return Move("the last run", last.states.get((impl, area)), now)


def _line(L: Links, impl: str, areas: list[Area], last: LastRun) -> Line:
    rows = L.data.rows or []
    versions = _versions(rows, impl)
    squares = {}
    for area in areas:
        mine = [r for r in rows if r.area == area.id]
        squares[area.id] = Square(
            area.id,
            _tally(L, mine, impl),
            _since_run(last, mine, impl, area.id),
            _since_version(mine, impl, versions),
        )
    total = Square("", sum((s.tally for s in squares.values()), Tally()))
    for attr in ("since_run", "since_version"):
        moves = [m for s in squares.values() if (m := getattr(s, attr)) is not None]
        if moves:
            summed = moves[0]
            for m in moves[1:]:
                summed = summed + m
            setattr(total, attr, summed)
    return Line(impl, display_name(L.data, impl), squares, total)


def _order(line: Line) -> tuple[float, str]:
    """All-areas share, highest first (nothing graded last), then name."""
    t = line.total.tally
    share = t.supported / t.graded if t.graded else -1.0
    return (-share, line.name.lower())


def measured_implementations(L: Links) -> list[str]:
    """The implementations rows.json computed, without the cited-only ones (nothing of
    theirs was measured)."""
    return [i for i in row_columns(L.data) if not _cited(L, i)]


def cited_only(L: Links) -> list[str]:
    """The cited-only implementations the view leaves out, by the name a reader knows."""
    return [display_name(L.data, i) for i in row_columns(L.data) if _cited(L, i)]


def _cited(L: Links, impl: str) -> bool:
    return (L.data.impl_info.get(impl) or {}).get("kind") == "cited"


def interop_tables(
    L: Links, current: dict[str, Any] | None = None, last: LastRun | None = None
) -> list[InteropTable]:
    """One table per kind (in the implementations' group order), each implementation's
    share of rows supported per area and in all areas, with how it moved since the last run
    (``last``; read from the build folder when not given, against ``current``, this run's
    matrix) and since its last version."""
    if last is None:
        last = last_run(current if current is not None else matrix_of(L.data))
    areas = list(L.data.areas)
    groups: dict[str, list[Line]] = {}
    for impl in measured_implementations(L):
        groups.setdefault(kind_group(L.data, impl), []).append(_line(L, impl, areas, last))
    return [InteropTable(kind, sorted(lines, key=_order)) for kind, lines in groups.items()]


# HTML ------------------------------------------------------------------------------------


def _title(name: str, where: str, sq: Square) -> str:
    t = sq.tally
    if t.graded:
        text = f"{name} · {where}: {t.supported} of {t.graded} graded rows pass ({t.percent}%)"
    else:
        text = f"{name} · {where}: {t.empty_word}"
    parts = [text]
    if t.left_out_text():
        parts.append(t.left_out_text())
    for move in (sq.since_run, sq.since_version):
        if move is not None and move.counts_anything:
            parts.append(move.sentence())
    return "; ".join(parts)


def _square(L: Links, line: Line, sq: Square, where: str) -> str:
    """One number: ``7/9`` with its bar, the movement since the last run beside it, the
    whole sentence as the link's title and for screen readers."""
    page = L.root + L.data.impl_page(line.impl)
    # The implementation page heads the rows of each area that apply to it with
    # ``rows-<area>``; an area none of whose rows apply has no such heading, its rows are
    # named under the page's grid.
    rows = f"#rows-{slug(sq.area)}" if sq.area and sq.tally.rows else "#grid"
    target = href(page + rows)
    said = esc(_title(line.name, where, sq))
    t = sq.tally
    if t.graded:
        shown = f'<span class="mc-n">{t.supported}/{t.graded}</span>'
    else:
        shown = '<span class="mc-n mc-dash">—</span>'
    move = sq.since_run
    # Beside a dash only a real move shows: the row states it is counted by may grade rows
    # whose newest verdict does not, and "=" beside "nothing graded" would read as a claim.
    if move is not None and move.counts_anything and (t.graded or move.delta):
        shown += f'<span class="mc-mv mc-mv-{move.trend}">{esc(move.shown)}</span>'
    if t.graded:
        under = f'<span class="mc-bar"><span style="width:{t.percent}%"></span></span>'
    else:
        under = f'<span class="mc-why">{esc(t.empty_word)}</span>'
    cls = "mc-iq" + ("" if t.graded else " mc-iq-none") + (" mc-iq-all" if not sq.area else "")
    return (
        f'<td class="{cls}"><a href="{target}" title="{said}">'
        f'<span aria-hidden="true"><span class="mc-top">{shown}</span>{under}</span>'
        f'<span class="mc-sr">{said}</span></a></td>'
    )


def _bucket(percent: int) -> str:
    """A share's colour step: ``q4`` all pass … ``q0`` none does."""
    if percent >= 100:
        return "q4"
    return "q3" if percent >= 75 else "q2" if percent >= 50 else "q1" if percent > 0 else "q0"


def _compact_square(L: Links, line: Line, sq: Square) -> str:
    """One number for the home page: ``7/9`` coloured by its share step, one short title
    (the interop page has the bar, the moves and the whole sentence). A square here is a
    tenth of the interop page's, so the home page stays small at any number of areas."""
    rows = f"#rows-{slug(sq.area)}" if sq.area and sq.tally.rows else "#grid"
    target = href(L.root + L.data.impl_page(line.impl) + rows)
    t = sq.tally
    left = sum(t.left_out.values())
    if not t.graded:
        return (
            f'<td class="mc-iq mc-iq-none"><a href="{target}" title="{esc(t.empty_word)}">'
            "—</a></td>"
        )
    said = f"{t.supported} of {t.graded} graded rows pass" + (
        f", {left} not counted" if left else ""
    )
    return (
        f'<td class="mc-iq mc-{_bucket(t.percent)}"><a href="{target}" title="{said}">'
        f"{t.supported}/{t.graded}</a></td>"
    )


def _name_cell(L: Links, line: Line) -> str:
    """The implementation's name, linked to its page, and how it moved since its last
    version (all areas, by row state) when it has one."""
    page = L.root + L.data.impl_page(line.impl)
    cell = f'<a href="{href(page)}">{esc(line.name)}</a>'
    move = line.total.since_version
    if move is not None and move.counts_anything:
        text = f"since {move.since}: {move.shown}"
        said = esc(f"all areas, {move.counts()}")
        cell += (
            f'<a class="mc-since mc-mv-{move.trend}" href="{href(page + "#history")}" '
            f'title="{said}">{esc(text)}<span class="mc-sr"> ({said})</span></a>'
        )
    return f'<th scope="row">{cell}</th>'


def _table(L: Links, table: InteropTable, areas: list[Area], compact: bool = False) -> str:
    head = ['<th scope="col">implementation</th>']
    for area in areas:
        head.append(
            f'<th scope="col"><a href="{href(L.area_href(area.id))}">{esc(area.title)}</a></th>'
        )
    head.append('<th scope="col" class="mc-iq-all">all areas</th>')
    body = []
    for line in table.lines:
        cells = [_name_cell(L, line)]
        for sq, where in [
            *((line.squares[a.id], a.title) for a in areas if a.id in line.squares),
            (line.total, "all areas"),
        ]:
            cells.append(_compact_square(L, line, sq) if compact else _square(L, line, sq, where))
        body.append(f"<tr>{''.join(cells)}</tr>")
    anchor = f"interop-{slug(table.kind)}"
    caption = f"{table.kind}: share of graded rows that pass, per area"
    return "\n".join(
        [
            f'<h3 id="{anchor}">{esc(table.kind)}</h3>',
            '<div class="mc-wrap" data-search-exclude>'
            f'<table class="mc-interop{" mc-compact" if compact else ""}">',
            f'<caption class="mc-sr">{esc(caption)}</caption>',
            f"<thead><tr>{''.join(head)}</tr></thead>",
            "<tbody>",
            *body,
            "</tbody></table></div>",
        ]
    )


def interop_html(
    L: Links, tables: list[InteropTable], areas: list[Area], compact: bool = False
) -> Md:
    """The tables as HTML, each under an ``h3`` of its kind; a blank line between them ends
    each raw HTML block for Markdown, and there is none inside one. ``compact``: the home
    page's, a number and a colour per square."""
    if not tables:
        return Md("*No implementation has been measured yet.*")
    return Md("\n\n".join(_table(L, table, areas, compact) for table in tables))


@dataclass
class InteropView:
    """What the interop page shows: the tables, their HTML, the previous run compared with,
    and the cited-only implementations left out."""

    tables: list[InteropTable]
    html: Md
    last: LastRun
    cited: list[str]


def interop_view(L: Links, current: dict[str, Any], areas: list[Area]) -> InteropView:
    """Everything the interop page needs, from one reading of the previous run."""
    last = last_run(current)
    tables = interop_tables(L, current, last)
    return InteropView(tables, interop_html(L, tables, areas), last, cited_only(L))
