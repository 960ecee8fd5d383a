"""One answer per square (issue 42, item 1): an area's tables say, per row and program, one
word with the revision it holds from, from the per-revision verdicts the rows stage recorded;
n/a and not tested never share a mark; the per-revision grids hold one mark per square."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from site_data import DATED

from compare.site import render
from compare.site._answer_html import chunks
from compare.site._symbols import SYMBOLS


def _docs(root: Path, rel: str) -> str:
    return (root / "site" / "docs" / rel).read_text(encoding="utf-8")


def _squares(page: str) -> dict[str, str]:
    """Square anchor → the square's HTML (each square is one ``td.mc-ans``)."""
    out = {}
    for m in re.finditer(r'<td class="mc-ans mc-ans-[a-z-]+"[^>]*>.*?</td>', page):
        found = re.search(r'id="([^"]+)"', m.group(0))
        out[found.group(1) if found else f"span-{m.start()}"] = m.group(0)
    return out


def _rows_json(root: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((root / "build" / "rows.json").read_text(encoding="utf-8"))


def _save(root: Path, data: dict) -> None:  # type: ignore[type-arg]
    (root / "build" / "rows.json").write_text(json.dumps(data), encoding="utf-8")


def test_a_square_says_yes_since_the_first_revision_and_opens_the_newest_cell(
    site_env: Path,
) -> None:
    render()
    squares = _squares(_docs(site_env, "roots.md"))
    ts = html.unescape(squares["root-01-ts-sdk"])
    assert "mc-ans-yes" in ts and ">yes<" in ts
    assert f"since {DATED[0]}" in ts
    assert f"cells/ts-sdk--1.32.2--roots-list--{DATED[-1]}--roots.html" in ts
    py = html.unescape(squares["root-01-py-sdk"])
    assert "mc-ans-non-strict" in py and "since 2025-11-25" in py


def test_every_square_holds_one_mark(site_env: Path) -> None:
    render()
    for page in ("roots.md", "implementations/ts-sdk.md"):
        text = _docs(site_env, page)
        for anchor, square in _squares(text).items():
            assert square.count('class="mc-mark"') == 1, (page, anchor, square)
        for cell in re.findall(r"<td data-rev=[^>]*>.*?</td>", text):
            assert cell.count("<a ") == 1, (page, cell)


def test_failing_before_and_passing_from_a_revision_on_reads_yes_since_it(
    site_env: Path,
) -> None:
    data = _rows_json(site_env)
    st = data["areas"][0]["rows"][0]["status"]["ts-sdk"]
    st["state"] = "partial"
    for rev in DATED[:2]:
        st["revisions"][rev]["verdict"] = "fail"
    _save(site_env, data)
    render()
    square = html.unescape(_squares(_docs(site_env, "roots.md"))["root-01-ts-sdk"])
    assert ">yes<" in square and f"since {DATED[2]}" in square
    # The revisions that failed are named in its title.
    assert f"{DATED[0]} fail" in square and f"{DATED[2]} pass" in square


def test_passing_then_failing_stays_partial(site_env: Path) -> None:
    data = _rows_json(site_env)
    st = data["areas"][0]["rows"][0]["status"]["ts-sdk"]
    st["state"] = "partial"
    st["revisions"][DATED[-1]]["verdict"] = "fail"
    _save(site_env, data)
    render()
    square = html.unescape(_squares(_docs(site_env, "roots.md"))["root-01-ts-sdk"])
    assert "mc-ans-partial" in square and ">partial<" in square


def test_a_row_nobody_was_run_for_is_one_cell_with_its_reason(site_env: Path) -> None:
    data = _rows_json(site_env)
    data["areas"][0]["rows"][1]["status"]["py-sdk"] = {
        "state": "not-run",
        "label": "not run",
        "reason": "not run, because no cell",
        "revisions": {"2025-11-25": {"cell": "", "verdict": "not-run"}},
    }
    _save(site_env, data)
    render()
    page = html.unescape(_docs(site_env, "roots.md"))
    row = page[page.index('<a href="roots.html#root-02">') :].split("</tr>")[0]
    assert 'colspan="2"' in row and "not tested for any of them" in row
    assert "not run, because no cell" in row


def test_n_a_and_not_tested_never_share_a_mark() -> None:
    answer = SYMBOLS["answer"]
    assert answer["n-a"][0] != answer["not-tested"][0]
    assert len({mark for mark, _ in answer.values()}) == len(answer)
    # The per-revision grids: n/a is "–", not run is the verdict's own mark.
    assert SYMBOLS["verdict"]["not-run"][0] != "–"


def test_a_cited_program_reads_cited_with_what_its_source_says(site_env: Path) -> None:
    render()
    square = html.unescape(_squares(_docs(site_env, "roots.md"))["root-01-mcpx"])
    assert "mc-ans-cited" in square and ">cited<" in square and "no" in square


def test_columns_are_cut_into_even_tables() -> None:
    assert [len(c) for c in chunks([str(i) for i in range(14)])] == [7, 7]
    assert [len(c) for c in chunks([str(i) for i in range(9)])] == [9]
    assert [len(c) for c in chunks([str(i) for i in range(19)])] == [7, 7, 5]
    assert chunks([]) == []


def test_the_home_page_leads_with_the_areas_then_the_interop_numbers(site_env: Path) -> None:
    render()
    home = html.unescape(_docs(site_env, "index.md"))
    areas, glance = home.index("{ #areas }"), home.index("{ #areas-at-a-glance }")
    assert areas < glance < home.index("{ #implementations }")
    assert "[Roots](roots.md)" in home[areas:glance]
    section = home[glance : home.index("{ #implementations }")]
    assert 'class="mc-interop' in section and "implementations/ts-sdk.html#rows-roots" in section
    # No per-revision strip and no grid of every row on the home page any more.
    assert "mc-strip" not in home and "mc-answers" not in home
