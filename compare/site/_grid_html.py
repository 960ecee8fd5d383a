"""An implementation page's compatibility grid and enforcement matrix, written as HTML.

Both were Markdown tables, 1,000 px and more wide in a 720 px column: a word beside every
symbol and a revision link per header. Here each square is its symbol (the word is the hover
title and is read out), revision columns carry ``data-rev`` so the page's revision filter
acts on them, and rows that cannot apply to the implementation's kind are listed apart
instead of filling the grid with n/a. Every text from data goes through ``esc``.
"""

from __future__ import annotations

from compare.site._cells import Cell
from compare.site._enforcement import Matrix
from compare.site._escape import Md, esc, slug
from compare.site._grid import entries, impl_anchor, state_class
from compare.site._inputs import Row
from compare.site._links import Links
from compare.site._matrix_html import href
from compare.site._strip import applies, marks, outside_window
from compare.site._symbols import SYMBOLS
from compare.site._words import word


def _rev_head(L: Links, rev: str) -> str:
    target = href(f"{L.root}revisions/{slug(rev)}.md")
    shown = esc(rev).replace("&#45;", "&#45;<wbr>")
    return f'<th scope="col" data-rev="{esc(rev)}"><a href="{target}">{shown}</a></th>'


def _square(L: Links, row: Row, impl: str, rev: str) -> str:
    """One square, one mark: the worst verdict at ``rev`` (variants named in its title);
    with no cell, ``–`` n/a where the check is not played at ``rev``, else ``∅`` not run."""
    anchor = impl_anchor(row, rev)
    mark = marks(L, row, impl, [rev])[0]
    if mark.cell is None:
        gone = outside_window(L.data, row, rev)
        if gone:
            state, sym, said = "n-a", "–", "n/a"
        else:
            state, sym, said = "none", SYMBOLS["verdict"]["not-run"][0], "not run"
            L.sym("verdict", "not-run")
        title = esc(f"{rev}: {said}" + (f" ({gone})" if gone else ""))
        return (
            f'<td data-rev="{esc(rev)}"><a id="{anchor}" href="#{anchor}" title="{title}" '
            f'class="mc-b mc-verdict-{state} {state_class("verdict", "none")}">'
            f'<span aria-hidden="true">{sym}</span>'
            f'<span class="mc-sr">{title}</span></a></td>'
        )
    variants = [
        e.key.split("~", 1)[1] for e in entries(L, row.status.get(impl), rev) if "~" in e.key
    ]
    said = f"{rev}: {word('verdict', mark.verdict)}" + (
        f" (worst of the variants {', '.join(variants)})" if len(variants) > 1 else ""
    )
    shown = L.symbols.compact("verdict", mark.verdict, said)
    cls = state_class("verdict", mark.verdict)
    return (
        f'<td data-rev="{esc(rev)}"><a id="{anchor}" class="{cls}" '
        f'href="{href(L.cell_href(mark.cell))}">{shown}</a></td>'
    )


def impl_grid(L: Links, rows: list[Row], impl: str, revisions: list[str]) -> Md:
    """Rows × revisions for one implementation: only the rows that can apply to it."""
    mine = [r for r in rows if applies(L.data, r, impl)]
    head = ['<th scope="col">row</th>', '<th scope="col">state</th>']
    head += [_rev_head(L, rev) for rev in revisions]
    body = []
    for row in mine:
        link = (
            f'<a href="{href(L.area_href(row.area) + "#" + L.row_anchor(row))}">{esc(row.id)}</a>'
        )
        st = row.status.get(impl)
        state = st.state if st else "unknown"
        shown = L.sym("status", state, st.label if st and state == "error" else "")
        cells = "".join(_square(L, row, impl, rev) for rev in revisions)
        body.append(
            f'<tr><th scope="row">{link} <span class="mc-diff">{esc(row.difference)}</span></th>'
            f'<td class="{state_class("status", state)}">{shown}</td>{cells}</tr>'
        )
    return Md(
        '<div class="mc-wrap" data-search-exclude><table class="mc-grid">'
        f'<caption class="mc-sr">Verdict per row and revision for {esc(impl)}</caption>'
        f"<thead><tr>{''.join(head)}</tr></thead><tbody>\n"
        + "\n".join(body)
        + "\n</tbody></table></div>"
    )


def not_applying(L: Links, rows: list[Row], impl: str) -> list[Row]:
    """The rows whose check is played against another kind of implementation."""
    return [r for r in rows if not applies(L.data, r, impl)]


def _probe(L: Links, cell: Cell, result: str, expect: str, contrary: bool) -> str:
    """One probe entry coloured by meaning: expected (good, whatever the result) or contrary
    (bad, with a ``!`` and an outline), the result's symbol and word beside it."""
    L.sym("probe", result)
    sym = SYMBOLS["probe"].get(result, ("•", ""))[0]
    graded = expect in ("allowed", "refused") and result in ("allowed", "refused")
    cls = "mc-contrary" if contrary else "mc-expected" if graded else "mc-neutral"
    flag = '<span aria-hidden="true">!</span>' if contrary else ""
    said = f"{word('probe', result)} (expected {word('probe', expect)})"
    if contrary:
        said += ": contrary to expectation"
    target = href(L.cell_href(cell) + "#probes")
    return (
        f'<a class="mc-b {cls} mc-probe-{slug(result)}" href="{target}" title="{esc(said)}">'
        f'{flag}<span aria-hidden="true">{sym}&nbsp;{esc(word("probe", result))}</span>'
        f'<span class="mc-sr">{esc(said)}</span></a>'
    )


def enforcement_table(L: Links, m: Matrix) -> Md:
    """Operation × probed place; each place's header says what it expects."""
    head = ['<th scope="col">operation (tool)</th>']
    for step, place in m.columns:
        expect = next((h.expect for (_, s, p), h in m.hits.items() if (s, p) == (step, place)), "")
        label = (f"{step}: " if m.multi_step else "") + place
        shown = esc(label).replace("&#95;", "&#95;<wbr>").replace("&#45;", "&#45;<wbr>")
        head.append(
            f'<th scope="col" title="{esc("expects: " + word("probe", expect))}">{shown}'
            f"<br><small>expects {esc(word('probe', expect))}</small></th>"
        )
    body = []
    for op, tool in m.rows:
        tool_shown = esc(tool).replace("&#95;", "&#95;<wbr>")
        cells = []
        for step, place in m.columns:
            h = m.hit(op, step, place)
            cells.append(
                f"<td>{_probe(L, m.cell, h.result, h.expect, h.unexpected)}</td>"
                if h
                else "<td>—</td>"
            )
        body.append(
            f'<tr><th scope="row"><code>{esc(op)}</code> (<code>{tool_shown}</code>)</th>'
            f"{''.join(cells)}</tr>"
        )
    return Md(
        '<div class="mc-wrap" data-search-exclude><table class="mc-grid mc-enforce">'
        f'<caption class="mc-sr">Enforcement probes of {esc(m.scenario)}</caption>'
        f"<thead><tr>{''.join(head)}</tr></thead><tbody>\n"
        + "\n".join(body)
        + "\n</tbody></table></div>"
    )
