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

from compare.rows._implementations import shipped_kinds
from compare.site._escape import Md, _page_target, esc, slug
from compare.site._inputs import Row
from compare.site._links import Links
from compare.site._matrix import kind_group
from compare.site._symbols import SYMBOLS


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
    word = esc(label or state)
    cls = f"mc-b mc-{kind}-{slug(state)}"
    if compact:
        return (
            f'<span class="{cls}" title="{word}"><span aria-hidden="true">{mark}</span>'
            f'<span class="mc-sr">{word}</span></span>'
        )
    return f'<span class="{cls}"><span aria-hidden="true">{mark}</span>&nbsp;{word}</span>'


def _row_link(L: Links, row: Row) -> str:
    return _a(f"{L.area_href(row.area)}#{L.row_anchor(row)}", esc(row.id))


def _a(target: str, inner: str, label: str = "") -> str:
    extra = f' title="{label}" aria-label="{label}"' if label else ""
    return f'<a href="{href(target)}"{extra}>{inner}</a>'


def short_id(row: Row) -> str:
    """``ROOT-07`` → ``07`` (the column header); an id without a number stays whole."""
    match = re.search(r"(\d+)$", row.id)
    return match.group(1) if match else row.id


def _status_cell(L: Links, row: Row, impl: str) -> str:
    st = row.status.get(impl)
    if st is None:
        return f"<td>{badge(L, 'status', 'unknown', '', True)}</td>"
    word = f"{row.id}, {impl}: {st.label or st.state}"
    inner = badge(L, "status", st.state, word, True)
    if st.cited_state and st.cited_state != "unknown":
        inner += badge(L, "status", st.cited_state, f"cited state {st.cited_state}", True)
    cells = L.cells_for(st.cells)
    target = L.cell_href(cells[0]) if cells else f"{L.area_href(row.area)}#{L.row_anchor(row)}"
    return f"<td>{_a(target, inner)}</td>"


def status_matrix(L: Links, rows: list[Row], columns: list[str]) -> Md:
    """Implementations (grouped by kind) × rows, one compact linked state per cell."""
    head = ['<th scope="col">implementation</th>']
    for row in rows:
        label = esc(f"{row.id}: {row.difference}")
        target = f"{L.area_href(row.area)}#{L.row_anchor(row)}"
        head.append(f'<th scope="col">{_a(target, esc(short_id(row)), label)}</th>')
    body: list[str] = []
    group = None
    for impl in columns:
        title = kind_group(L.data, impl)
        key = kind_keys().get(title, "other")
        if title != group:
            group = title
            body.append(
                f'<tr class="mc-group" data-kind="{key}">'
                f'<th scope="colgroup" colspan="{len(rows) + 1}">{esc(title)}</th></tr>'
            )
        name = _a(f"{L.root}implementations/{slug(impl)}.md", f"<code>{esc(impl)}</code>")
        cells = "".join(_status_cell(L, row, impl) for row in rows)
        body.append(f'<tr data-kind="{key}"><th scope="row">{name}</th>{cells}</tr>')
    table = _table("mc-status", "State of each implementation for each row", head, body)
    return Md(_key(L, rows, columns) + "\n" + table)


def _key(L: Links, rows: list[Row], columns: list[str]) -> str:
    """The states the grid uses, each with its symbol, word and colour, right above it."""
    used = {st.state for row in rows for impl, st in row.status.items() if impl in columns}
    used |= {st.cited_state for row in rows for st in row.status.values() if st.cited_state}
    used.discard("")
    if any(impl not in row.status for row in rows for impl in columns):
        used.add("unknown")
    items = [badge(L, "status", state) for state in SYMBOLS["status"] if state in used]
    return f'<p class="mc-key">Key: {" · ".join(items)}</p>' if items else ""


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
    return _table("mc-where", "Where each row exists, per spec revision", head, body)


def _where_link(L: Links, row: Row, rev: str, compact: bool) -> str:
    state = row.where.get(rev, "unknown")
    inner = badge(L, "where", state, f"{rev} {state}" if compact else "", compact)
    if rev in row.deprecated:
        inner += " " + badge(
            L, "where", "deprecated", f"{rev} deprecated" if compact else "", compact
        )
    return _a(f"{L.root}revisions/{slug(rev)}.md", inner)


def rows_table(L: Links, rows: list[Row], revisions: list[str]) -> Md:
    """An area's rows: difference, labels, where (one mark per revision), our judgement."""
    head = [
        f'<th scope="col">{w}</th>'
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
    return _table("mc-rows", "The rows of this area", head, body)


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


def _table(cls: str, caption: str, head: list[str], body: list[str]) -> Md:
    """One table, no blank line inside (a blank line would end Markdown's raw HTML block)."""
    lines = [
        f'<div class="mc-wrap"><table class="mc-matrix {cls}">',
        f'<caption class="mc-sr">{esc(caption)}</caption>',
        f"<thead><tr>{''.join(head)}</tr></thead>",
        "<tbody>",
        *body,
        "</tbody></table></div>",
    ]
    return Md("\n".join(lines))
