"""The lint over the cells: a graded failing check of a current cell that no row queries."""

from __future__ import annotations

from pathlib import Path

from compare.rows import area_files, compute, load_yaml
from compare.rows._cells import read_cells
from compare.rows._context import gather
from compare.rows._findings import lint_findings, scenario_sides

from ._area import LAST_INIT, OLDEST, area, known, write
from .test_compute import cell


def _issues(tmp_path: Path, results: Path) -> list[str]:
    doc = compute([write(tmp_path / "roots.yaml", area())], known(), results)
    return [i["message"] for i in doc["issues"] if "stands behind no row" in i["message"]]


def test_a_fail_on_a_check_no_row_queries_is_named(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", LAST_INIT, [("answered", "pass"), ("listed", "fail")])
    (message,) = _issues(tmp_path, results)
    assert "roots-list/listed" in message and f"ts-sdk (roots) {LAST_INIT}: fail" in message
    doc = compute([write(tmp_path / "roots.yaml", area())], known(), results)
    (issue,) = [i for i in doc["issues"] if "stands behind no row" in i["message"]]
    assert "add 'listed' to the status.query.check" in issue["tip"]


def test_a_non_strict_counts_and_informational_does_not(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    checks = [("answered", "pass"), ("quiet", "informational"), ("late", "non-strict")]
    cell(results, "ts-sdk", "1.32.2", OLDEST, checks)
    (message,) = _issues(tmp_path, results)
    assert "roots-list/late" in message and "non-strict" in message


def test_a_queried_fail_and_an_old_version_raise_nothing(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", LAST_INIT, [("answered", "fail")])
    cell(results, "ts-sdk", "1.0.0", LAST_INIT, [("hidden", "fail")])  # not the pinned version
    assert _issues(tmp_path, results) == []


def test_a_query_limited_to_other_revisions_does_not_cover(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", OLDEST, [("answered", "fail")])
    query = {"scenario": "roots-list", "check": "answered", "revisions": [LAST_INIT]}
    data = area()
    data["rows"][0]["status"] = {"query": query}
    doc = compute([write(tmp_path / "roots.yaml", data)], known(), results)
    assert [i for i in doc["issues"] if "roots-list/answered stands behind no row" in i["message"]]


def test_a_wire_check_queried_in_one_scenario_stands_for_every_scenario_of_its_side(
    isolated: Path, tmp_path: Path
) -> None:
    """A non-JSON stdout line fails wire-json in every cell of a program: one behaviour, so
    one row about it (in one scenario) covers the others of the same side, and only those."""
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", LAST_INIT, [("answered", "pass"), ("wire-json", "fail")])
    data = area()
    data["rows"][0]["status"] = {
        "query": {"scenario": "roots-list", "check": ["answered", "wire-json"]}
    }
    covered = [(f.name, load_yaml(f)) for f in [write(tmp_path / "roots.yaml", data)]]
    cell(results, "ts-sdk", "1.32.2", OLDEST, [("wire-json", "fail")], scenario="handshake")
    cell(
        results, "rs", "1", LAST_INIT, [("wire-json", "fail")], scenario="server-ping", variant=None
    )
    cells = read_cells(results, gather().pinned)
    found = [i.message for i in lint_findings(covered, cells, scenario_sides())]
    assert len(found) == 1 and "server-ping/wire-json" in found[0]
    # without the sides (a caller that does not know them) each scenario is its own
    assert len(lint_findings(covered, cells)) == 2


def test_the_shipped_rows_show_every_finding_of_the_results() -> None:
    """Over the results folder in use (MCP_COMPARE_RESULTS, else results/), no graded failing
    check of a current cell hides from the shipped rows; skipped while there are no cells."""
    import pytest

    from compare._paths import results_dir

    k = gather()
    cells = read_cells(results_dir(), k.pinned)
    if not any(c.current for c in cells.cells):
        pytest.skip(f"no current cells under {results_dir()}")
    # Every shipped area together: a finding may stand behind a row of any of them.
    areas = [(path.name, load_yaml(path)) for path in area_files()]
    issues = lint_findings(areas, cells, scenario_sides())
    assert issues == [], [i.message for i in issues]


def test_the_findings_table_groups_by_check_and_outcome_and_shows_the_wire_line(
    isolated: Path,
) -> None:
    """``rows --findings``: one group per check and outcome across columns and revisions,
    with the first wire line behind it (a step note among the evidence is passed over)."""
    import json

    from compare.rows._findings import findings_table

    results = isolated / "results"
    a = cell(results, "ts-sdk", "1.32.2", LAST_INIT, [("answered", "fail"), ("ok", "pass")])
    cell(results, "ts-sdk", "1.32.2", OLDEST, [("answered", "fail")])
    records = [
        {"n": 1, "t": 0.1, "dir": "note", "raw": json.dumps({"event": "x"})},
        {"n": 2, "t": 0.2, "dir": "out", "raw": '{"jsonrpc":"2.0","id":1,"method":"roots/list"}'},
        {"n": 3, "t": 0.3, "dir": "in", "raw": '{"jsonrpc":"2.0","id":1,"result":{}}'},
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    (a / "transcript.jsonl").write_text(text, encoding="utf-8")
    table = findings_table(read_cells(results, gather().pinned))
    (group,) = table
    assert (group["verdict"], group["check"], group["cells"]) == ("fail", "roots-list/answered", 2)
    assert group["columns"] == {"ts-sdk (roots)": sorted([OLDEST, LAST_INIT])}
    assert group["line"].startswith("line 3 (from the program):")
