"""An area's compatibility tables: rows down the side by name, implementations across, one
answer in words per square (``compare.site._answer``).

Rows are sentences, so they go down the side where they can be read; implementations go
across, split by the side they play (a server row is no row of the clients' table) and by
their kind, and a kind with more programs than fit at 1366 px is cut into tables of at most
``MAX_COLUMNS`` columns rather than scrolled sideways. A program with no result in the area
is named under the tables instead of filling a column with "not tested".
"""

from __future__ import annotations

from math import ceil

from compare.site._answer import MARKS, WORDS, Answer, answer
from compare.site._escape import Md, esc, slug
from compare.site._inputs import Row
from compare.site._links import Links
from compare.site._matrix import kind_group
from compare.site._matrix_html import href, kind_keys
from compare.site._strip import display_name, side_tables
from compare.site._symbols import SYMBOLS
from compare.site._text import reader_text

#: The most implementation columns one table holds: ten answers of about 6 em beside the
#: row names fill 1366 px without a sideways scroll.
MAX_COLUMNS = 9


def measured(rows: list[Row], impl: str) -> bool:
    """Whether ``impl`` has anything to show in these rows (a result, a reason it could not
    be judged, or a citation), not only "not run"."""
    return any(
        st.state != "not-run" or st.per_revision
        for row in rows
        if (st := row.status.get(impl)) is not None
    )


def chunks(names: list[str], size: int = MAX_COLUMNS) -> list[list[str]]:
    """``names`` cut into even tables of at most ``size`` (14 → 7 + 7, not 9 + 5)."""
    if not names:
        return []
    count = ceil(len(names) / size)
    width = ceil(len(names) / count)
    return [names[i : i + width] for i in range(0, len(names), width)]


def square(L: Links, row: Row, impl: str) -> str:
    """One square: its colour, one mark, the answer's words and its revision qualifier; it
    opens the newest judged cell (else the row's section) and has an anchor to share."""
    a: Answer = answer(L, row, impl)
    L.sym("answer", a.kind)
    anchor = f"{slug(row.id)}-{slug(impl)}"
    cell = a.mark_for.cell if a.mark_for is not None else None
    target = (
        href(L.cell_href(cell)) if cell else href(f"{L.area_href(row.area)}#{L.row_anchor(row)}")
    )
    since = f'<small class="mc-since">{esc(a.since)}</small>' if a.since else ""
    return (
        f'<td class="mc-ans mc-ans-{a.kind}"><a id="{anchor}" href="{target}" '
        f'title="{esc(a.title)}"><span class="mc-mark" aria-hidden="true">{a.mark}</span> '
        f'<span class="mc-w">{esc(a.words)}</span>{since}</a></td>'
    )


def _head(L: Links, names: list[str]) -> str:
    cells = ['<th scope="col" class="mc-rowhead">row</th>']
    for impl in names:
        page = href(L.root + L.data.impl_page(impl))
        version = str((L.data.impl_info.get(impl) or {}).get("version") or "")
        said = esc(f"{impl} {version}".strip())
        cells.append(
            f'<th scope="col"><a href="{page}" title="{said}">'
            f"{esc(display_name(L.data, impl))}</a></th>"
        )
    return f"<thead><tr>{''.join(cells)}</tr></thead>"


def _row_head(L: Links, row: Row) -> str:
    target = href(f"{L.area_href(row.area)}#{L.row_anchor(row)}")
    return (
        f'<th scope="row" class="mc-rowhead"><a href="{target}">{esc(row.id)}</a> '
        f'<span class="mc-diff">{esc(row.difference)}</span></th>'
    )


def _same_for_all(L: Links, row: Row, names: list[str]) -> str:
    """One cell across the table when no program in it has a verdict for the row and they
    share one reason (a row no scenario plays yet): a line of identical squares says it less
    clearly. "" when the squares differ."""
    said = {(a.kind, a.since) for a in (answer(L, row, n) for n in names)}
    if len(names) < 2 or len(said) != 1 or next(iter(said))[0] not in ("not-tested", "n-a"):
        return ""
    kind, since = next(iter(said))
    reasons = {st.reason for n in names if (st := row.status.get(n)) is not None}
    why = reasons.pop() if len(reasons) == 1 else ""
    L.sym("answer", kind)
    target = href(f"{L.area_href(row.area)}#{L.row_anchor(row)}")
    text = f"{WORDS[kind]} for any of them" + (f" ({since})" if since else "")
    return (
        f'<td class="mc-ans mc-ans-{kind}" colspan="{len(names)}"><a href="{target}" '
        f'title="{esc(why or text)}"><span class="mc-mark" aria-hidden="true">{MARKS[kind]}'
        f'</span> <span class="mc-w">{esc(text)}</span>'
        + (f'<small class="mc-since">{esc(reader_text(why))}</small>' if why else "")
        + "</a></td>"
    )


def table(L: Links, rows: list[Row], names: list[str], caption: str) -> str:
    body = [
        f"<tr>{_row_head(L, row)}"
        + (_same_for_all(L, row, names) or "".join(square(L, row, impl) for impl in names))
        + "</tr>"
        for row in rows
    ]
    return "\n".join(
        [
            f'<table class="mc-answers"><caption class="mc-sr">{esc(caption)}</caption>',
            _head(L, names),
            "<tbody>",
            *body,
            "</tbody></table>",
        ]
    )


def answers_matrix(L: Links, rows: list[Row], columns: list[str]) -> Md:
    """Every side's tables for these rows (one area's), each kind cut to fit, with the
    programs that have no result here named below them."""
    parts: list[str] = []
    quiet: list[str] = []
    for title, mine, names in side_tables(L.data, rows, columns):
        if not mine:
            continue
        shown = [n for n in names if measured(mine, n)]
        quiet += [n for n in names if n not in shown]
        groups: dict[str, list[str]] = {}
        for name in shown:
            groups.setdefault(kind_group(L.data, name), []).append(name)
        for kind, members in groups.items():
            key = kind_keys().get(kind, "other")
            parts_of = chunks(members)
            for i, part in enumerate(parts_of, 1):
                count = f" ({i} of {len(parts_of)})" if len(parts_of) > 1 else ""
                side = " · clients" if title == "Clients" and "client" not in kind else ""
                heading = f"{kind}{side}{count}"
                parts.append(
                    f'<div class="mc-answers-wrap" data-kind="{key}" data-search-exclude>'
                    f'<p class="mc-side"><strong>{esc(heading)}</strong></p>'
                    + table(L, mine, part, f"{heading}: the answer of each for each row")
                    + "</div>"
                )
    if quiet:
        listed = ", ".join(esc(display_name(L.data, n)) for n in quiet)
        parts.append(
            f'<p class="mc-quiet">No result in this area for: {listed} (they are measured in '
            "other areas only, or not run yet).</p>"
        )
    return Md("\n".join(parts))


def short_legend(kinds: list[str] | None = None) -> Md:
    """The key right above the first table: each mark with its word and what it means."""
    shown = [k for k in MARKS if kinds is None or k in kinds]
    items = [
        f'<li><span class="mc-ans mc-ans-{k} mc-key-mark"><span aria-hidden="true">{MARKS[k]}'
        f"</span> {esc(WORDS[k])}</span> "
        f'<span class="mc-key-meaning">{esc(SYMBOLS["answer"][k][1])}</span></li>'
        for k in shown
    ]
    return Md(
        '<details class="mc-legend" open><summary>How to read a square</summary>'
        "<p>Each square is one program's answer for one row, at the newest version run: the "
        "word, and under it the spec revision it holds from. Hover it for every revision; "
        "click it for the recorded exchange behind it.</p>"
        f'<ul class="mc-key-list">{"".join(items)}</ul></details>'
    )
