"""The home page leads with the areas and one line per implementation and area (issue 24):
each line counts the implementation's row states in that area, graded states first, and
leaves out the rows it was not run for; an area with none reads "not run"."""

from __future__ import annotations

from pathlib import Path

from compare.site import render
from compare.site._glance import glance
from compare.site._inputs import Area, Row, RowStatus


def _row(rid: str, area: str, states: dict[str, str]) -> Row:
    status = {name: RowStatus(state) for name, state in states.items()}
    return Row(rid, area, "d", [], {}, set(), "", status, "", "", "", [], [])


def test_a_line_counts_states_graded_first_and_skips_rows_not_run() -> None:
    areas = [Area("roots", "Roots", "s"), Area("logging", "Logging", "s")]
    rows = [
        _row("ROOT-01", "roots", {"a": "supported", "b": "not-run"}),
        _row("ROOT-02", "roots", {"a": "observed", "b": "not-run"}),
        _row("ROOT-03", "roots", {"a": "not-supported", "b": "supported"}),
        _row("LOG-01", "logging", {"a": "not-run", "b": "supported"}),
    ]
    (a, a_lines), (b, b_lines) = glance(rows, areas, ["a", "b"])
    assert (a, b) == ("a", "b")
    roots, logging = a_lines
    assert [(p.state, p.count) for p in roots.parts] == [
        ("not-supported", 1),
        ("supported", 1),
        ("observed", 1),
    ]
    assert (roots.measured, roots.rows) == (3, 3)
    assert logging.parts == () and logging.measured == 0
    assert [(p.word, p.count) for p in b_lines[0].parts] == [("pass", 1)]


def test_the_home_page_leads_with_the_areas_and_the_lines(site_env: Path) -> None:
    render()
    home = (site_env / "site" / "docs" / "index.md").read_text(encoding="utf-8")
    glance_at = home.index("{ #areas-at-a-glance }")
    assert glance_at < home.index("{ #rows-implementations }")
    section = home[glance_at : home.index("{ #rows-implementations }")]
    assert "[Roots](roots.md)" in section
    # one table line per implementation column, each cell a counted line with its word
    assert 'class="mc-b mc-status-supported">✔&nbsp;' in section
    assert section.count("| [") >= 2
