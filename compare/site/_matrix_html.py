"""An area page's HTML pieces beside its answer tables: the rows and where each exists, the
filters, a row's states in one line; and the checked link and badge helpers they share with
the answer tables (``compare.site._answer_html``) and the grids.

A Markdown table cannot carry what these need: a class per state (colour beside the symbol),
``title``/``aria-label`` for abbreviated headers, ``data-kind``/``data-rev`` for the filters
and ``scope`` on header cells. Every piece of text from data still goes
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
from compare.site._strip import (
    applies,
    display_name,
    marks,
    newest,
)
from compare.site._symbols import SYMBOLS
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
        page = L.cell_href(top.cell) if top and top.cell else L.root + L.data.impl_page(impl)
        shown = esc(display_name(L.data, impl))
        groups.setdefault(st.state, []).append(f"[{shown}]({page})")
    order = list(SYMBOLS["status"])
    parts = []
    for state in sorted(groups, key=lambda s: order.index(s) if s in order else len(order)):
        parts.append(f"{L.sym('status', state)}: {', '.join(groups[state])}")
    if na:
        parts.append(f"{term('n/a')} for {', '.join(esc(k) for k in na)}")
    return Md(" · ".join(parts) if parts else "no implementation has a state for it")
