"""The matrix tables of the home and area pages, written as HTML.

A Markdown table cannot carry what these grids need: a class per state (colour beside the
symbol), ``title``/``aria-label`` for abbreviated headers, ``data-kind``/``data-rev`` for the
filters, group rows and ``scope`` on header cells. Every piece of text from data still goes
through ``esc`` (numeric character references are valid in HTML text and in quoted
attributes), and every link target is one of our own page paths, checked like ``link`` does.
Links are written to the built ``.html`` pages directly, because mkdocs rewrites ``.md`` links
only in Markdown, never inside raw HTML.
"""

from __future__ import annotations

import re
from itertools import groupby

from compare.rows._implementations import shipped_kinds
from compare.site._escape import Md, _page_target, esc, slug
from compare.site._inputs import Row
from compare.site._links import Links
from compare.site._matrix import kind_group
from compare.site._strip import (
    applies,
    display_name,
    marks,
    na_reason,
    newest,
    outside_window,
    side_tables,
)
from compare.site._symbols import SYMBOLS
from compare.site._text import reader_text
from compare.site._words import term, word


def kind_keys() -> dict[str, str]:
    """Group title (``kind_group``) → the short word the filters and ``data-kind`` use (the
    implementations registry's ``kinds``)."""
    return {k.group: k.key for k in shipped_kinds()}


def href(target: str) -> str:
    """One of our ``.md`` page paths as the ``.html`` file mkdocs builds; refuses others."""
    checked = _page_target(target)
    if checked is None:
        raise ValueError(f"not a page path of ours: {target!r}")
    page, _, anchor = checked.partition("#")
    page = re.sub(r"\.md$", ".html", page)
    return page + (f"#{anchor}" if anchor else "")


def badge(L: Links, kind: str, state: str, label: str = "", compact: bool = False) -> str:
    """A state as symbol + word in its state's colour class.

    ``compact`` shows the symbol only; the word stays in the page for screen readers and is
    the hover title, so no state is carried by colour or by a symbol alone.
    """
    L.sym(kind, state, label)  # recorded for the legend
    table = SYMBOLS.get(kind, {})
    mark = table[state][0] if state in table else "•"
    shown = esc(label or word(kind, state))
    cls = f"mc-b mc-{kind}-{slug(state)}"
    if compact:
        return (
            f'<span class="{cls}" title="{shown}"><span aria-hidden="true">{mark}</span>'
            f'<span class="mc-sr">{shown}</span></span>'
        )
    return f'<span class="{cls}"><span aria-hidden="true">{mark}</span>&nbsp;{shown}</span>'


def _row_link(L: Links, row: Row) -> str:
    return _a(f"{L.area_href(row.area)}#{L.row_anchor(row)}", esc(row.id))


def _a(target: str, inner: str, label: str = "") -> str:
    extra = f' title="{label}" aria-label="{label}"' if label else ""
    return f'<a href="{href(target)}"{extra}>{inner}</a>'


def _area_header(L: Links, rows: list[Row]) -> str:
    """A header row naming the area above each run of its rows, when a table holds rows of
    more than one area: the short column headers (``01``) repeat from area to area, so the
    area is what tells ``LIFE-01`` from ``ROOT-01``. One area: no such row."""
    runs = [(area, len(list(run))) for area, run in groupby(rows, key=lambda r: r.area)]
    if len({area for area, _ in runs}) < 2:
        return ""
    titles = {a.id: a.title for a in L.data.areas}
    cells = ['<td aria-hidden="true"></td>']
    for area, width in runs:
        link = _a(L.area_href(area), esc(titles.get(area, area)))
        cells.append(f'<th scope="colgroup" colspan="{width}">{link}</th>')
    return f"<tr>{''.join(cells)}</tr>"


def _listed_ids(rows: list[Row]) -> str:
    """The ids a side's table shows, short when they are of one area, whole when of several."""
    whole = len({row.area for row in rows}) > 1
    return ", ".join(row.id if whole else short_id(row) for row in rows)


def short_id(row: Row) -> str:
    """``ROOT-07`` → ``07`` (the column header); an id without a number stays whole."""
    match = re.search(r"(\d+)$", row.id)
    return match.group(1) if match else row.id


def _label(text: str) -> str:
    """Text for a ``title``/``aria-label`` attribute (escaped like any text)."""
    return esc(text)


def _strip(L: Links, row: Row, impl: str, revisions: list[str]) -> str:
    """One square: a mark per revision, the newest with a cell highlighted and linked."""
    data = L.data
    st = row.status.get(impl)
    who = f"{row.id} · {display_name(data, impl)}"
    section = f"{L.area_href(row.area)}#{L.row_anchor(row)}"
    if st is None:
        inner = badge(L, "status", "unknown", "", True)
        return f'<td class="mc-sq">{_a(section, inner, _label(who + ": no data"))}</td>'
    if not applies(data, row, impl):
        L.sym("status", "n-a")
        why = na_reason(data, row, impl)
        return (
            f'<td class="mc-sq mc-na" title="{_label(why)}"><span class="mc-b mc-status-n-a">'
            f'<span aria-hidden="true">n/a</span><span class="mc-sr">{_label(who + ": " + why)}'
            "</span></span></td>"
        )
    found = marks(L, row, impl, revisions)
    top = newest(found)
    if top is None:  # cited, or not run: one word for the whole square, with its reason
        inner = badge(L, "status", st.state, "", True)
        if st.cited_state and st.cited_state != "unknown":
            inner += badge(L, "status", st.cited_state, "", True)
        what = word("status", st.state)
        if st.cited_state:
            what += f" (cited state: {word('status', st.cited_state)})"
        why = f"{who}: {what}" + (f"; {st.reason}" if st.reason else "")
        return f'<td class="mc-sq">{_a(section, inner, _label(reader_text(why)))}</td>'
    parts, said = [], []
    for m in found:
        attrs = f'data-rev="{esc(m.revision)}"'
        if m.cell is None:
            gone = outside_window(data, row, m.revision)
            state, mark = ("n-a", "–") if gone else ("none", "·")
            said.append(f"{m.revision} {'n/a' if gone else 'not run'}")
            parts.append(f'<span class="mc-m mc-verdict-{state}" {attrs}>{mark}</span>')
            continue
        L.sym("verdict", m.verdict)
        sym = SYMBOLS["verdict"].get(m.verdict, ("•", ""))[0]
        new = " mc-new" if m is top else ""
        said.append(f"{m.revision} {word('verdict', m.verdict)}")
        attrs += f' data-href="{href(L.cell_href(m.cell))}"'
        attrs += " data-judged" if m.verdict != "not-run" else ""
        parts.append(f'<span class="mc-m mc-verdict-{slug(m.verdict)}{new}" {attrs}>{sym}</span>')
    text = f"{who}: " + ", ".join(said) + f"; opens the {top.revision} cell"
    inner = f'<span class="mc-strip" aria-hidden="true">{"".join(parts)}</span>'
    inner += f'<span class="mc-sr">{_label(text)}</span>'
    target = href(L.cell_href(top.cell)) if top.cell else ""
    return f'<td class="mc-sq"><a href="{target}" title="{_label(text)}">{inner}</a></td>'


def status_matrix(L: Links, rows: list[Row], columns: list[str], revisions: list[str]) -> Md:
    """Implementations × rows, one table per side an implementation plays (clients, servers,
    proxies, cited), each with only the rows that can apply to that side; each square a strip
    of per-revision marks. One key line above them all."""
    parts = [_key(L, rows, columns, revisions)]
    for title, mine, names in side_tables(L.data, rows, columns):
        if not mine:
            continue
        parts.append(
            f'<p class="mc-side"><strong>{esc(title)}</strong> · rows that apply: '
            f"{esc(_listed_ids(mine))}</p>"
        )
        parts.append(_side_table(L, title, mine, names, revisions))
    return Md("\n".join(parts))


def _side_table(
    L: Links, title: str, rows: list[Row], names: list[str], revisions: list[str]
) -> str:
    head = ['<th scope="col">implementation</th>']
    over = _area_header(L, rows)
    for row in rows:
        label = esc(f"{row.id}: {row.difference}")
        target = f"{L.area_href(row.area)}#{L.row_anchor(row)}"
        head.append(f'<th scope="col">{_a(target, esc(short_id(row)), label)}</th>')
    body: list[str] = []
    group = None
    for impl in names:
        kind = kind_group(L.data, impl)
        key = kind_keys().get(kind, "other")
        if kind != group:
            group = kind
            body.append(
                f'<tr class="mc-group" data-kind="{key}">'
                f'<th scope="colgroup" colspan="{len(rows) + 1}">{esc(kind)}</th></tr>'
            )
        shown = esc(display_name(L.data, impl))
        page = href(f"{L.root}implementations/{slug(impl)}.md")
        name = f'<a href="{page}" title="{esc(impl)}">{shown}</a>'
        cells = "".join(_strip(L, row, impl, revisions) for row in rows)
        body.append(f'<tr data-kind="{key}"><th scope="row">{name}</th>{cells}</tr>')
    return _table("mc-status", f"{title}: the state of each for each row", head, body, over)


def _key(L: Links, rows: list[Row], columns: list[str], revisions: list[str]) -> str:
    """One line right above the grid: how to read a square, then every mark it can hold."""
    used = {m.verdict for row in rows for impl in columns for m in marks(L, row, impl, revisions)}
    used.discard("")
    items = [badge(L, "verdict", v) for v in SYMBOLS["verdict"] if v in used]
    items += [badge(L, "verdict", v) for v in sorted(used - set(SYMBOLS["verdict"]))]
    extra = [
        '<span class="mc-b mc-verdict-none"><span aria-hidden="true">·</span>&nbsp;not run'
        " at that revision</span>",
        '<span class="mc-b mc-status-n-a"><span aria-hidden="true">–</span>&nbsp;'
        f"{term('n/a')} (cannot apply)</span>",
    ]
    states = {st.state for row in rows for impl, st in row.status.items() if impl in columns}
    if "not-run" in states and "not-run" not in used:  # one word once, whichever table it is
        items.append(badge(L, "status", "not-run"))
    if "cited" in states:
        items.append(badge(L, "status", "cited"))
    first, last = (revisions[0], revisions[-1]) if revisions else ("", "")
    return (
        f'<p class="mc-key">Each square: one mark per revision, {esc(first)} → {esc(last)}; '
        '<span class="mc-m mc-new mc-verdict-pass">✔</span> framed = the newest revision with a '
        "judged cell, which the square opens. Key: " + " · ".join(items + extra) + "</p>"
    )


def where_matrix(L: Links, rows: list[Row], revisions: list[str]) -> Md:
    """Rows × revisions: where each row's schema items exist, linked to the revision page."""
    head = ['<th scope="col">row</th>', '<th scope="col">difference</th>']
    for rev in revisions:
        target = f"{L.root}revisions/{slug(rev)}.md"
        head.append(f'<th scope="col" data-rev="{esc(rev)}">{_a(target, esc(rev))}</th>')
    body = []
    for row in rows:
        cells = [
            f'<th scope="row">{_row_link(L, row)}</th>',
            f'<td class="mc-text">{esc(row.difference)}</td>',
        ]
        for rev in revisions:
            cells.append(f'<td data-rev="{esc(rev)}">{_where_link(L, row, rev, False)}</td>')
        body.append(f"<tr>{''.join(cells)}</tr>")
    key = where_key(L, rows, revisions)
    return Md(
        key + "\n" + _table("mc-where", "Where each row exists, per spec revision", head, body)
    )


def where_key(L: Links, rows: list[Row], revisions: list[str]) -> str:
    """The where states these rows show, one line above their table."""
    used = {L.where_state(row, rev) for row in rows for rev in revisions if row.where}
    used |= {"deprecated"} if any(row.deprecated for row in rows) else set()
    items = [badge(L, "where", state) for state in SYMBOLS["where"] if state in used]
    return f'<p class="mc-key">Key: {" · ".join(items)}</p>' if items else ""


def _where_link(L: Links, row: Row, rev: str, compact: bool) -> str:
    state = L.where_state(row, rev)
    inner = badge(L, "where", state, f"{rev} {state}" if compact else "", compact)
    if rev in row.deprecated:
        inner += " " + badge(
            L, "where", "deprecated", f"{rev} deprecated" if compact else "", compact
        )
    return _a(L.where_href(row, rev), inner)


def rows_table(L: Links, rows: list[Row], revisions: list[str]) -> Md:
    """An area's rows: difference, labels, where (one mark per revision), our judgement."""
    head = [
        f'<th scope="col">{term(w)}</th>'
        for w in ("id", "difference", "labels", "where it exists", "value", "effort", "risk")
    ]
    body = []
    for row in rows:
        if row.where:
            marks = "".join(
                f'<span data-rev="{esc(rev)}">{_where_link(L, row, rev, True)}</span>'
                for rev in revisions
            )
        else:
            marks = "not computed"
        cells = [
            f'<th scope="row">{_row_link(L, row)}</th>',
            f'<td class="mc-text">{esc(row.difference)}</td>',
            f"<td>{esc(', '.join(row.labels))}</td>",
            f'<td class="mc-marks">{marks}</td>',
            *(f"<td>{esc(v)}</td>" for v in (row.value, row.effort, row.risk)),
        ]
        body.append(f"<tr>{''.join(cells)}</tr>")
    key = where_key(L, rows, revisions)
    return Md(key + "\n" + _table("mc-rows", "The rows of this area", head, body))


def filters(L: Links, columns: list[str], revisions: list[str]) -> Md:
    """Checkboxes for the kinds and revisions shown, hidden until our script wires them: without
    JavaScript there is nothing to click and every row and column shows."""
    kinds = list(dict.fromkeys(kind_group(L.data, impl) for impl in columns))
    parts = ['<div class="mc-filters" data-mc-filters hidden>']
    for legend, attr, items in (
        ("Show kinds", "kind", [(kind_keys().get(k, "other"), k) for k in kinds]),
        ("Show revisions", "rev", [(r, r) for r in revisions]),
    ):
        if not items:
            continue
        parts.append(f"<fieldset><legend>{legend}</legend>")
        for value, text in items:
            parts.append(
                f'<label><input type="checkbox" checked data-mc-filter="{attr}" '
                f'value="{esc(value)}"> {esc(text)}</label>'
            )
        parts.append("</fieldset>")
    parts.append("</div>")
    return Md("".join(parts))


def _table(cls: str, caption: str, head: list[str], body: list[str], over: str = "") -> Md:
    """One table, no blank line inside (a blank line would end Markdown's raw HTML block);
    ``over`` is an optional header row above the column headers (the areas, when a table
    spans several)."""
    lines = [
        f'<div class="mc-wrap" data-search-exclude><table class="mc-matrix {cls}">',
        f'<caption class="mc-sr">{esc(caption)}</caption>',
        f"<thead>{over}<tr>{''.join(head)}</tr></thead>",
        "<tbody>",
        *body,
        "</tbody></table></div>",
    ]
    return Md("\n".join(lines))


def row_applies(L: Links, row: Row, impl: str) -> bool:
    """Whether the row can apply to ``impl`` (templates list only those in its grids)."""
    return applies(L.data, row, impl)


def state_summary(L: Links, row: Row, columns: list[str]) -> Md:
    """The row's states in one line: each state word with the implementations in it (each
    linking to its newest cell, else to its page), then the kinds the row cannot apply to."""
    groups: dict[str, list[str]] = {}
    na: dict[str, None] = {}
    for impl in columns:
        st = row.status.get(impl)
        if st is None:
            continue
        if not applies(L.data, row, impl):
            na.setdefault(kind_group(L.data, impl).lower(), None)
            continue
        top = newest(marks(L, row, impl, L.data.revisions))
        page = (
            L.cell_href(top.cell)
            if top and top.cell
            else f"{L.root}implementations/{slug(impl)}.md"
        )
        shown = esc(display_name(L.data, impl))
        groups.setdefault(st.state, []).append(f"[{shown}]({page})")
    order = list(SYMBOLS["status"])
    parts = []
    for state in sorted(groups, key=lambda s: order.index(s) if s in order else len(order)):
        parts.append(f"{L.sym('status', state)}: {', '.join(groups[state])}")
    if na:
        parts.append(f"{term('n/a')} for {', '.join(esc(k) for k in na)}")
    return Md(" · ".join(parts) if parts else "no implementation has a state for it")
