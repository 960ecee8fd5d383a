"""The lint that no row state contradicts its cells (issue 42): a crafted ``rows.json`` over
crafted cells, read back by ``compare.rows._consistency`` without the rule that wrote it.

The issue's case was LOG-12 reading "ℹ observed" above four "✔ pass" cells; these tests
build that, a consistent column beside it, and the ways a named cell can go missing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from compare._paths import PROJECT_ROOT
from compare.rows._consistency import check, contradictions

from ._area import area, row, write
from .test_compute import run

REVS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
SCENARIO = "server-log-threshold"


def _cell(
    results: Path,
    revision: str,
    checks: dict[str, str],
    verdict: str | None = None,
    target: str = "server-everything",
    version: str = "2026.8.31",
    scenario: str = SCENARIO,
    plays: int = 0,
) -> str:
    """Write one verdict.json; returns the folder as rows.json names it."""
    folder = results / target / version / scenario / revision
    folder.mkdir(parents=True)
    data: dict[str, Any] = {
        "format": 1,
        "target": target,
        "target_version": version,
        "variant": "default",
        "scenario": scenario,
        "revision": revision,
        "verdict": verdict or next(iter(checks.values())),
        "reason": "crafted",
        "checks": [{"id": k, "verdict": v} for k, v in checks.items()],
    }
    if plays:
        data["plays"] = [{"play": n, "verdict": "pass", "transcript": "t"} for n in range(plays)]
    (folder / "verdict.json").write_text(json.dumps(data))
    return f"results/{target}/{version}/{scenario}/{revision}"


def _column(state: str, entries: dict[str, tuple[str, str]], **more: Any) -> dict[str, Any]:
    """A run column: revision -> (cell as named, the verdict rows.json recorded)."""
    return {
        "state": state,
        "label": state,
        "version": "2026.8.31",
        "revisions": {rev: {"cell": c, "verdict": v} for rev, (c, v) in entries.items()},
        "evidence": [c for c, _ in entries.values()],
        **more,
    }


def _rows_json(
    tmp_path: Path, columns: dict[str, dict[str, Any]], query: dict[str, Any] | None = None
) -> Path:
    status_query = query if query is not None else {"scenario": SCENARIO, "check": "threshold"}
    document = {
        "format": 1,
        "areas": [
            {
                "area": "logging",
                "rows": [{"id": "LOG-12", "status_query": status_query, "status": columns}],
            }
        ],
        "broken_cells": [],
    }
    path = tmp_path / "build" / "rows.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(document))
    return path


def _four(results: Path, verdict: str, **checks: str) -> dict[str, tuple[str, str]]:
    return {rev: (_cell(results, rev, {"threshold": verdict, **checks}), verdict) for rev in REVS}


def test_a_state_its_cells_keep_is_no_contradiction(tmp_path: Path) -> None:
    results = tmp_path / "results"
    path = _rows_json(tmp_path, {"server-everything": _column("supported", _four(results, "pass"))})
    report = check(path, results)
    assert report.found == []
    assert (report.by_cells, report.cells) == (1, 4)
    assert "no state contradicts its cells" in report.summary()


def test_observed_above_four_pass_cells_is_reported_with_the_cells(tmp_path: Path) -> None:
    """LOG-12 as the issue found it: "ℹ observed" over checks that were graded pass."""
    results = tmp_path / "results"
    path = _rows_json(tmp_path, {"server-everything": _column("observed", _four(results, "pass"))})
    [sentence] = contradictions(path, results)
    assert sentence.startswith("LOG-12 server-everything: reads “observed (informational)”")
    assert "every check behind it is informational" in sentence  # the promise, quoted
    assert f"threshold pass at {', '.join(REVS)}" in sentence
    assert f"results/server-everything/2026.8.31/{SCENARIO}/" in sentence


def test_each_promise_is_tested_against_the_queried_checks_only(tmp_path: Path) -> None:
    """Another check of the cell (a wire check that failed) does not speak for the row;
    several queried checks all do."""
    results = tmp_path / "results"
    entries = _four(results, "informational", **{"wire-ids": "fail"})
    assert not contradictions(
        _rows_json(tmp_path, {"server-everything": _column("observed", entries)}), results
    )
    query = {"scenario": SCENARIO, "check": ["threshold", "wire-ids"]}
    failing = {rev: (cell, "fail") for rev, (cell, _) in entries.items()}
    path = _rows_json(tmp_path, {"server-everything": _column("observed", failing)}, query)
    [sentence] = contradictions(path, results)
    assert "wire-ids fail at" in sentence and "threshold informational at" in sentence


def test_partial_needs_a_pass_and_a_fail(tmp_path: Path) -> None:
    results = tmp_path / "results"
    entries = {
        REVS[0]: (_cell(results, REVS[0], {"threshold": "pass"}), "pass"),
        REVS[1]: (_cell(results, REVS[1], {"threshold": "non-strict"}), "non-strict"),
    }
    for state, wrong in [("partial", True), ("non-strict", False), ("supported", True)]:
        path = _rows_json(tmp_path, {"server-everything": _column(state, entries)})
        assert bool(contradictions(path, results)) is wrong, state


def test_a_missing_or_unreadable_cell_is_named_not_a_crash(tmp_path: Path) -> None:
    results = tmp_path / "results"
    entries = _four(results, "pass")
    gone = results / "server-everything" / "2026.8.31" / SCENARIO / REVS[1] / "verdict.json"
    gone.unlink()
    (gone.parent.parent / REVS[2] / "verdict.json").write_text("{ not json")
    path = _rows_json(tmp_path, {"server-everything": _column("supported", entries)})
    found = contradictions(path, results)
    assert len(found) == 2
    assert (
        f"its cell results/server-everything/2026.8.31/{SCENARIO}/{REVS[1]} cannot be" in found[0]
    )
    assert "it has no verdict.json" in found[0]
    assert "its verdict.json cannot be read" in found[1]


def test_a_recorded_verdict_the_cell_does_not_give_is_reported(tmp_path: Path) -> None:
    """rows.json older than its cells: the cell was judged again since."""
    results = tmp_path / "results"
    entries = _four(results, "pass")
    entries[REVS[3]] = (entries[REVS[3]][0], "fail")
    path = _rows_json(tmp_path, {"server-everything": _column("supported", entries)})
    [sentence] = contradictions(path, results)
    assert f"rows.json records fail at {REVS[3]}" in sentence and "gives pass" in sentence


def test_a_cell_of_another_scenario_is_not_this_rows(tmp_path: Path) -> None:
    results = tmp_path / "results"
    named = _cell(results, REVS[0], {"threshold": "pass"}, scenario="server-log-other")
    path = _rows_json(
        tmp_path, {"server-everything": _column("supported", {REVS[0]: (named, "pass")})}
    )
    [sentence] = contradictions(path, results)
    assert "is not this row's: scenario 'server-log-other'" in sentence


def test_errors_and_differing_plays_are_never_hidden(tmp_path: Path) -> None:
    results = tmp_path / "results"
    entries = _four(results, "pass")
    broke = _cell(results, "draft", {"wire-ids": "pass"}, verdict="error")
    with_error = {**entries, "draft": (broke, "error")}
    path = _rows_json(tmp_path, {"server-everything": _column("supported", with_error)})
    [sentence] = contradictions(path, results)
    assert "the cell at draft ended in error" in sentence
    column = _column("error", with_error, errors=1, judged_state="supported")
    assert not contradictions(_rows_json(tmp_path, {"server-everything": column}), results)
    column = _column("error", with_error, errors=1, judged_state="partial")
    [sentence] = contradictions(_rows_json(tmp_path, {"server-everything": column}), results)
    assert "says the rest of its cells read “partial”" in sentence
    # unstable promises plays that differed: a cell played once cannot have
    flaky = _cell(results, "2026-07-28", {"threshold": "unstable"}, verdict="unstable")
    column = _column(
        "unstable", {**entries, "2026-07-28": (flaky, "unstable")}, unstable=1,
        judged_state="supported",
    )  # fmt: skip
    [sentence] = contradictions(_rows_json(tmp_path, {"server-everything": column}), results)
    assert "were played once" in sentence


def test_not_run_with_a_cell_in_the_results_is_reported(tmp_path: Path) -> None:
    results = tmp_path / "results"
    _cell(results, REVS[0], {"threshold": "pass"})
    column = {"state": "not-run", "label": "not run", "version": "2026.8.31", "reason": "none"}
    report = check(_rows_json(tmp_path, {"server-everything": column}), results)
    [found] = report.found
    assert "the results hold 1 cell(s) for it" in found.text and REVS[0] in found.text
    assert report.by_absence == 1
    column["version"] = "2026.9.1"  # another version's cell is not one it should name
    assert not contradictions(_rows_json(tmp_path, {"server-everything": column}), results)


def test_an_older_versions_state_is_checked_against_its_cells(tmp_path: Path) -> None:
    results = tmp_path / "results"
    old = [_cell(results, rev, {"threshold": "fail"}, version="2025.1.1") for rev in REVS[:2]]
    history = [
        {"version": "2025.1.1", "state": "supported", "label": "supported", "evidence": old},
        {"version": "2026.8.31", "state": "supported", "label": "supported", "evidence": []},
    ]
    column = _column("supported", _four(results, "pass"), history=history)
    report = check(_rows_json(tmp_path, {"server-everything": column}), results)
    [found] = report.found
    assert "its 2025.1.1 state reads “supported”" in found.text and "threshold fail" in found.text
    assert report.history == 1


def test_a_derived_column_may_not_rest_on_a_cell_in_error(tmp_path: Path) -> None:
    results = tmp_path / "results"
    good = _cell(results, REVS[0], {"outside": "informational"}, scenario="roots-enforced")
    bad = _cell(results, REVS[1], {"outside": "error"}, verdict="error", scenario="roots-enforced")
    column = {
        "state": "observed", "label": "refuses", "value": "refuses", "version": "2026.8.31",
        "evidence": [good, bad], "facts": {"asked": True},
    }  # fmt: skip
    report = check(_rows_json(tmp_path, {"server-everything": column}, query={}), results)
    [found] = report.found
    assert f"from the cell {bad}, which is error" in found.text and report.derived == 1


def test_cited_columns_are_skipped_and_unqueried_ones_must_be_not_run(tmp_path: Path) -> None:
    columns = {
        "mcpx": {"state": "cited", "label": "cited, not run", "cited_state": "supported"},
        "codex": {"state": "supported", "label": "supported", "reason": "typed by hand"},
    }
    report = check(_rows_json(tmp_path, columns, query={}), tmp_path / "results")
    assert (report.cited, report.unqueried) == (1, 1)
    [found] = report.found
    assert found.implementation == "codex" and "queries no check" in found.text


def test_the_rows_stage_output_agrees_and_a_declared_row_over_passes_does_not(
    isolated: Path, tmp_path: Path
) -> None:
    """Round trip: what the rows stage itself writes over crafted cells passes the lint; a
    row declared informational whose check was graded pass (LOG-12 before its check was made
    informational) reads observed there, and the lint names it."""
    from .test_compute import cell

    results = isolated / "results"
    for rev, verdict in zip(REVS[:3], ["pass", "fail", "pass"], strict=True):
        cell(results, "codex", "0.171.0", rev, [("answered", verdict)])
    for rev in REVS[:2]:
        cell(results, "ts-sdk", "1.32.2", rev, [("answered", "pass")], variant=None)
    doc = run(tmp_path, results)
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(doc))
    assert contradictions(path, results) == []
    declared = row(status={"query": {"scenario": "roots-list", "check": "answered"},
                           "informational": "the spec leaves it open, crafted"})  # fmt: skip
    doc = run(tmp_path, results, area(rows=[declared]))
    assert doc["areas"][0]["rows"][0]["status"]["ts-sdk"]["state"] == "observed"
    path.write_text(json.dumps(doc))
    found = contradictions(path, results)
    assert any(s.startswith("ROOT-01 ts-sdk: reads “observed") for s in found)


def test_rows_lint_reports_contradictions_and_exits_1(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    _rows_json(isolated, {"server-everything": _column("observed", _four(results, "pass"))})
    path = write(tmp_path / "roots.yaml", area())
    done = subprocess.run(
        [sys.executable, "-m", "compare", "rows", "--lint", "--area", str(path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = done.stdout.replace("\n", " ")
    assert done.returncode == 1, out
    assert "build/rows.json LOG-12 server-everything: reads “observed (informational)”" in out
    assert "1 state(s) contradict their cells" in out
