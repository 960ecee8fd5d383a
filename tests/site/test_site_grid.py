"""Issue 12: the compatibility grid, state changes across versions, anchors and badges.

Every expectation is read from the crafted data set (``site_data.py``); a test that edits
``build/rows.json`` shows that the grid follows the rows stage and computes nothing itself.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from conftest import mc
from site_data import DATED, HOSTILE_NAME, REVISIONS

from compare.site import render
from compare.site._grid import Badge, badge, badge_svg, changes, state_class
from compare.site._inputs import Row, RowStatus
from compare.site._matrix import matrix_schema

UNDATED = [r for r in REVISIONS if r not in DATED]


def _page(root: Path, rel: str) -> str:
    return (root / "site" / "docs" / rel).read_text(encoding="utf-8")


def _grid_line(page: str, row_id: str) -> str:
    """The grid's table line of one row (before any other section of the page)."""
    grid = page[page.index("## Compatibility grid") :]
    grid = grid[: grid.index("\n## ", 1)]
    anchor = f'roots.html#{row_id.lower()}"'
    return next(line for line in grid.splitlines() if line.startswith("<tr>") and anchor in line)


def test_an_implementation_page_leads_with_its_grid(site_env: Path) -> None:
    render()
    page = _page(site_env, "implementations/ts-sdk.md")
    headings = re.findall(r"^## (.+)$", page, flags=re.M)
    assert headings[0] == "Compatibility grid { #grid }"
    assert page.index("## Compatibility grid") < page.index("Versions run:")
    line = _grid_line(page, "ROOT-01")
    for rev in DATED:  # a pass cell at each dated revision, linked and anchored
        cell = f"../cells/ts-sdk--1.32.2--roots-list--{rev}--roots.html"
        square = f'<a id="root-01-{rev}" class="state-verdict-pass" href="{cell}">'
        assert square in line
        assert f'title="{rev}: pass"' in html.unescape(line)  # its word on hover
    for rev in UNDATED:  # no cell there: a shareable dot, not a verdict
        assert f'<a id="root-01-{rev}" href="#root-01-{rev}"' in line
        assert "state-verdict-none" in line
    assert 'class="state-status-supported"' in line
    # ROOT-02 has no cells for ts-sdk: every square says so.
    assert html.unescape(_grid_line(page, "ROOT-02")).count(": not run") >= len(REVISIONS)


def test_the_grid_shows_what_rows_json_says_not_a_recount(site_env: Path) -> None:
    path = site_env / "build" / "rows.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    status = data["areas"][0]["rows"][0]["status"]["ts-sdk"]
    status["revisions"][DATED[-1]]["verdict"] = "fail"
    path.write_text(json.dumps(data), encoding="utf-8")
    render()
    line = _grid_line(_page(site_env, "implementations/ts-sdk.md"), "ROOT-01")
    assert f'<a id="root-01-{DATED[-1]}" class="state-verdict-fail"' in line
    assert f'<a id="root-01-{DATED[0]}" class="state-verdict-pass"' in line


def test_each_area_row_has_a_grid_per_implementation(site_env: Path) -> None:
    render()
    page = _page(site_env, "roots.md")
    section = page[page.index("{ #root-01 }") : page.index("{ #root-02 }")]
    grid = section[
        section.index("Revision by revision:") : section.index(
            "Evidence and reasons per implementation"
        )
    ]
    py = next(line for line in grid.splitlines() if "implementations/py-sdk.md" in line)
    cell = "cells/py-sdk--2.3.0--roots-list--2025-11-25--roots.html"
    assert f"({cell}){{ #root-01-py-sdk-2025-11-25 .state-verdict-non-strict }}" in py
    assert ".state-status-non-strict }" in py
    # A cited implementation gets its row too, with no cell behind any square: not run,
    # one mark each.
    mcpx = next(line for line in grid.splitlines() if "implementations/mcpx.md" in line)
    assert mcpx.count(".state-verdict-none }") == len(REVISIONS)
    assert mcpx.count("∅") == len(REVISIONS)
    anchors = re.findall(r"\{ #(root-01-[a-z0-9.-]+)", grid)
    assert len(anchors) == len(set(anchors)) > len(REVISIONS)


def test_history_says_which_version_changed_a_state(site_env: Path) -> None:
    render()
    page = _page(site_env, "implementations/ts-sdk.md")
    history = page[page.index("## State changes across versions") :]
    history = history[: history.index("\n## ", 1)]
    assert "<code>1&#46;31&#46;0</code>" in history
    assert 'class="state-status-not-supported"' in history
    assert 'class="state-status-supported"' in history
    assert "changed by version <code>1&#46;32&#46;2</code>" in history
    # py-sdk has one version only: nothing to compare, and the page says so.
    py = _page(site_env, "implementations/py-sdk.md")
    assert "Only one version has results" in py
    changed = _page(site_env, "changes.md")
    section = changed[changed.index("## Row states changed by a client version") :]
    section = section[: section.index("\n## ", 1)]
    line = next(x for x in section.splitlines() if "implementations/ts-sdk.md" in x)
    assert "roots.md#root-01" in line and line.endswith("| <code>1&#46;32&#46;2</code> |")


def _row(history: list[tuple[str, str]]) -> Row:
    status = RowStatus("x", history=[(v, s, s) for v, s in history])
    return Row("ROOT-09", "roots", "d", [], {}, set(), "", {"c": status}, "", "", "", [], [])


def test_changes_are_counted_between_consecutive_versions_only() -> None:
    row = _row([("1", "supported"), ("2", "supported"), ("3", "partial"), ("4", "supported")])
    found = [(c.before_version, c.version, c.state) for c in changes([row])]
    assert found == [("2", "3", "partial"), ("3", "4", "supported")]
    assert changes([row], "other") == []
    assert changes([_row([("1", "supported")])]) == []


def test_badges_are_generated_escaped_and_offered_to_copy(site_env: Path) -> None:
    render()
    docs = site_env / "site" / "docs"
    svg = ET.fromstring((docs / "badges" / "ts-sdk.svg").read_text(encoding="utf-8"))
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    span = f"{DATED[0]}–{DATED[-1]}"  # the revisions its graded rows were measured at
    assert texts == [f"roots {span}", "1 pass"]  # ROOT-02 was not run: not counted
    py = ET.fromstring((docs / "badges" / "py-sdk.svg").read_text(encoding="utf-8"))
    assert [t.text for t in py.iter("{http://www.w3.org/2000/svg}text")][1] == "1 non-strict"
    mcpx = (docs / "badges" / "mcpx.svg").read_text(encoding="utf-8")
    assert "cited, not run" in mcpx
    page = _page(site_env, "implementations/ts-sdk.md")
    assert f"![roots {span.replace('-', '&#45;')}&#58; 1 pass](../badges/ts-sdk.svg)" in page
    snippet = f"[![roots {span}: 1 pass](SITE/badges/ts-sdk.svg)](SITE/implementations/ts-sdk.html)"
    assert f"```markdown\n{snippet}\n```" in page


def test_badge_text_from_data_cannot_become_markup() -> None:
    svg = badge_svg(Badge(HOSTILE_NAME, '"/><script>x</script>', "supported"))
    assert "<script>" not in svg
    tree = ET.fromstring(svg)  # still one well-formed SVG
    texts = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == [HOSTILE_NAME, '"/><script>x</script>']


@pytest.mark.parametrize(
    ("states", "message", "colour_state"),
    [
        (["supported", "supported"], "2 pass", "supported"),
        # An observed row grades nothing: ts-sdk failed nothing and read amber "5/6 supported".
        (["supported", "observed"], "1 pass", "supported"),
        (["supported", "non-strict"], "1 pass, 1 non-strict", "supported"),
        (["supported", "partial", "not-run"], "1 pass, 1 fail", "partial"),
        (["error", "not-supported"], "1 fail", "not-supported"),
        (["not-run"], "not run", "not-run"),
    ],
)
def test_badge_counts_only_graded_rows_and_is_green_when_nothing_fails(
    states: list[str], message: str, colour_state: str
) -> None:
    rows = [
        Row(f"R-{i}", "roots", "d", [], {}, set(), "", {"x": RowStatus(s)}, "", "", "", [], [])
        for i, s in enumerate(states)
    ]
    made = badge("roots", rows, "x")
    assert (made.message, made.state) == (message, colour_state)


def test_state_classes_are_safe_names() -> None:
    assert state_class("verdict", "non-strict") == "state-verdict-non-strict"
    assert state_class("status", "<b>x y") == "state-status-b-x-y"


def test_the_matrix_carries_its_format_and_the_schema_requires_it(site_env: Path) -> None:
    assert mc("export").returncode == 0
    matrix = json.loads((site_env / "build" / "matrix.json").read_text(encoding="utf-8"))
    assert matrix["format"] == 2
    jsonschema.validate(matrix, matrix_schema(), cls=jsonschema.Draft202012Validator)
    del matrix["format"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(matrix, matrix_schema(), cls=jsonschema.Draft202012Validator)


def test_grid_anchors_and_classes_survive_the_strict_build(site_env: Path) -> None:
    render()
    proc = mc("site")
    assert proc.returncode == 0, proc.stderr
    built = site_env / "site" / "build"
    page = (built / "implementations" / "ts-sdk.html").read_text("utf-8")
    square = re.search(r'<a [^>]*id="root-01-2025-11-25"[^>]*>', page)
    assert square and 'class="state-verdict-pass"' in square.group(0)
    assert 'href="../cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.html"' in square.group(0)
    assert (built / "badges" / "ts-sdk.svg").is_file()
    roots = (built / "roots.html").read_text("utf-8")
    assert 'id="root-01-py-sdk-2025-11-25"' in roots


def test_a_row_with_no_cell_anywhere_gets_no_empty_grid(site_env: Path) -> None:
    render()
    page = _page(site_env, "roots.md")
    section = page[page.index("{ #root-02 }") :]
    assert "no cell stands behind this row for any implementation" in section
    assert "{ #root-02-ts-sdk-" not in section
