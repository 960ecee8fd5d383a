"""One answer per square (issue 42, item 1): an area's tables say, per row and program, one
word with the revision it holds from, from the per-revision verdicts the rows stage recorded;
n/a and not tested never share a mark; the per-revision grids hold one mark per square.

The site is rendered once for the module (a render took a second and a half, and each test
made its own): the small data set with each crafted case in a row of its own (``CASES``), so
that no case changes a square another test reads.
"""

from __future__ import annotations

import copy
import html
import json
import re
import shutil
from pathlib import Path

import pytest
from site_data import DATED, write_dataset

from compare.site import render
from compare.site._answer_html import chunks
from compare.site._symbols import SYMBOLS

#: The crafted rows beside the data set's own two: copies of ROOT-01 whose ts-sdk fails in
#: these revisions and passes in the others (ROOT-03: fails first, then passes; ROOT-04: passes,
#: then fails). ROOT-01 stays as written (yes since the first revision, non-strict, cited);
#: ROOT-02 gets a second program that was not run either.
CASES = {"ROOT-03": DATED[:2], "ROOT-04": DATED[-1:]}


def _craft(rows_json: Path) -> None:
    """Each case of the module in a row of its own (``CASES``)."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    rows = data["areas"][0]["rows"]
    rows[1]["status"]["py-sdk"] = {
        "state": "not-run",
        "label": "not run",
        "reason": "not run, because no cell",
        "revisions": {"2025-11-25": {"cell": "", "verdict": "not-run"}},
    }
    for row_id, failing in CASES.items():
        row = copy.deepcopy(rows[0])
        row["id"] = row_id
        row["difference"] = f"{row['difference']}, failing at {', '.join(failing)}"
        st = row["status"]["ts-sdk"]
        st["state"] = "partial"
        for rev in failing:
            st["revisions"][rev]["verdict"] = "fail"
        rows.append(row)
    rows_json.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path) -> Path:
    """``site/docs/`` rendered once from the crafted data set, in a folder of the module's
    own (what ``isolated`` and ``site_env`` give a single test)."""
    root = tmp_path_factory.mktemp("answers")
    with pytest.MonkeyPatch.context() as patch:
        for name, sub in {
            "MCP_COMPARE_CACHE": "cache",
            "MCP_COMPARE_RESULTS": "results",
            "MCP_COMPARE_BUILD": "build",
            "MCP_COMPARE_SITE": "site",
        }.items():
            patch.setenv(name, str(root / sub))
        shutil.copytree(pinned_spec / "spec", root / "cache" / "spec")
        _craft(write_dataset(root)["build"] / "rows.json")
        render()
    return root / "site" / "docs"


def _docs(docs: Path, rel: str) -> str:
    return (docs / rel).read_text(encoding="utf-8")


def _squares(page: str) -> dict[str, str]:
    """Square anchor → the square's HTML (each square is one ``td.mc-ans``)."""
    out = {}
    for m in re.finditer(r'<td class="mc-ans mc-ans-[a-z-]+"[^>]*>.*?</td>', page):
        found = re.search(r'id="([^"]+)"', m.group(0))
        out[found.group(1) if found else f"span-{m.start()}"] = m.group(0)
    return out


def test_a_square_says_yes_since_the_first_revision_and_opens_the_newest_cell(
    docs: Path,
) -> None:
    squares = _squares(_docs(docs, "roots.md"))
    ts = html.unescape(squares["root-01-ts-sdk"])
    assert "mc-ans-yes" in ts and ">yes<" in ts
    assert f"since {DATED[0]}" in ts
    assert f"cells/ts-sdk--1.32.2--roots-list--{DATED[-1]}--roots.html" in ts
    py = html.unescape(squares["root-01-py-sdk"])
    assert "mc-ans-non-strict" in py and "since 2025-11-25" in py


def test_every_square_holds_one_mark(docs: Path) -> None:
    for page in ("roots.md", "implementations/ts-sdk.md"):
        text = _docs(docs, page)
        for anchor, square in _squares(text).items():
            assert square.count('class="mc-mark"') == 1, (page, anchor, square)
        for cell in re.findall(r"<td data-rev=[^>]*>.*?</td>", text):
            assert cell.count("<a ") == 1, (page, cell)


def test_failing_before_and_passing_from_a_revision_on_reads_yes_since_it(docs: Path) -> None:
    square = html.unescape(_squares(_docs(docs, "roots.md"))["root-03-ts-sdk"])
    assert ">yes<" in square and f"since {DATED[2]}" in square
    # The revisions that failed are named in its title.
    assert f"{DATED[0]} fail" in square and f"{DATED[2]} pass" in square


def test_passing_then_failing_stays_partial(docs: Path) -> None:
    square = html.unescape(_squares(_docs(docs, "roots.md"))["root-04-ts-sdk"])
    assert "mc-ans-partial" in square and ">partial<" in square


def test_a_row_nobody_was_run_for_is_one_cell_with_its_reason(docs: Path) -> None:
    page = html.unescape(_docs(docs, "roots.md"))
    row = page[page.index('<a href="roots.html#root-02">') :].split("</tr>")[0]
    assert 'colspan="2"' in row and "not tested for any of them" in row
    assert "not run, because no cell" in row


def test_n_a_and_not_tested_never_share_a_mark() -> None:
    answer = SYMBOLS["answer"]
    assert answer["n-a"][0] != answer["not-tested"][0]
    assert len({mark for mark, _ in answer.values()}) == len(answer)
    # The per-revision grids: n/a is "–", not run is the verdict's own mark.
    assert SYMBOLS["verdict"]["not-run"][0] != "–"


def test_a_cited_program_reads_cited_with_what_its_source_says(docs: Path) -> None:
    square = html.unescape(_squares(_docs(docs, "roots.md"))["root-01-mcpx"])
    assert "mc-ans-cited" in square and ">cited<" in square and "no" in square


def test_columns_are_cut_into_even_tables() -> None:
    assert [len(c) for c in chunks([str(i) for i in range(14)])] == [7, 7]
    assert [len(c) for c in chunks([str(i) for i in range(9)])] == [9]
    assert [len(c) for c in chunks([str(i) for i in range(19)])] == [7, 7, 5]
    assert chunks([]) == []


def test_the_home_page_leads_with_the_areas_then_the_interop_numbers(docs: Path) -> None:
    home = html.unescape(_docs(docs, "index.md"))
    areas, glance = home.index("{ #areas }"), home.index("{ #areas-at-a-glance }")
    assert areas < glance < home.index("{ #implementations }")
    assert "[Roots](roots.md)" in home[areas:glance]
    section = home[glance : home.index("{ #implementations }")]
    assert 'class="mc-interop' in section and "implementations/ts-sdk.html#rows-roots" in section
    # No per-revision strip and no grid of every row on the home page any more.
    assert "mc-strip" not in home and "mc-answers" not in home
