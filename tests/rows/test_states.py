"""Row states are exact: each is true of every graded check behind it, and errors are shown.

Regression tests for issue 9: errors were dropped before the state was chosen (three errors
and a pass read "supported"), a column of non-strict cells read "partial", and a cited
column said "not-supported" for the same behaviour a run column calls "observed".
"""

from __future__ import annotations

from pathlib import Path

from _revisions import revisions

from compare.rows import STATE_LABELS, STATE_PROMISES, load_yaml
from compare.rows._load import AREAS_DIR
from compare.site._symbols import SYMBOLS

from ._area import GOOD_CITE, area, row
from .test_compute import cell, run, status_of

# Four cells of one column, one per revision; which revisions they are does not matter.
FOUR = revisions()[:4]


def test_three_error_cells_and_one_pass_read_error_not_supported(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    for rev in FOUR[:3]:
        cell(results, "ts-sdk", "1.32.2", rev, [("answered", "error")], verdict="error")
    cell(results, "ts-sdk", "1.32.2", FOUR[3], [("answered", "pass")])
    doc = run(tmp_path, results)
    column = status_of(doc, "ts-sdk")
    assert column["state"] == "error"
    assert column["label"] == "harness error in 3 of 4 cells (the rest: supported)"
    assert (column["errors"], column["judged_state"]) == (3, "supported")
    warned = [i for i in doc["issues"] if i["where"] == "ROOT-01/status/ts-sdk"]
    assert warned and "computed status is error" in warned[0]["message"]
    assert "re-runs every cell that ended in error" in warned[0]["tip"]


def test_a_cell_that_ended_in_error_before_the_check_is_an_error_not_not_run(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", FOUR[0], [], verdict="error", reason="timed out after 3 s")
    column = status_of(run(tmp_path, results), "codex")
    assert column["state"] == "error"
    assert column["revisions"][FOUR[0]]["verdict"] == "error"
    assert "timed out after 3 s" in column["reason"]


def test_a_passing_check_in_a_cell_that_ended_in_error_does_not_read_supported(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", FOUR[0], [("answered", "pass")])
    cell(results, "codex", "0.171.0", FOUR[1], [("answered", "pass")], verdict="error")
    column = status_of(run(tmp_path, results), "codex")
    assert column["state"] == "error"
    assert column["revisions"][FOUR[1]]["cell_verdict"] == "error"
    assert column["label"].endswith("(the rest: supported)")


def test_a_column_of_non_strict_cells_reads_non_strict_not_partial(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    for rev in FOUR[:2]:
        cell(results, "codex", "0.171.0", rev, [("answered", "non-strict")], verdict="non-strict")
    doc = run(tmp_path, results)
    assert status_of(doc, "codex")["state"] == "non-strict"
    assert not any("partial" in i["message"] for i in doc["issues"])


def test_pass_with_non_strict_is_non_strict_and_partial_needs_a_failure(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", FOUR[0], [("answered", "pass")])
    cell(results, "codex", "0.171.0", FOUR[1], [("answered", "non-strict")], verdict="non-strict")
    cell(results, "ts-sdk", "1.32.2", FOUR[0], [("answered", "non-strict")], verdict="non-strict")
    cell(results, "ts-sdk", "1.32.2", FOUR[1], [("answered", "fail")])
    doc = run(tmp_path, results)
    assert status_of(doc, "codex")["state"] == "non-strict"
    assert status_of(doc, "ts-sdk")["state"] == "partial"


def test_every_judged_state_says_why_from_its_cells(isolated: Path, tmp_path: Path) -> None:
    """Issue 42 item 5: a judged state is never without a why; the line names, worst verdict
    first, the revisions with each verdict and what the first of them said."""
    results = isolated / "results"
    cell(results, "codex", "0.171.0", FOUR[0], [("answered", "pass")])
    cell(results, "codex", "0.171.0", FOUR[1], [("answered", "pass")])
    cell(results, "ts-sdk", "1.32.2", FOUR[0], [("answered", "non-strict")], verdict="non-strict")
    cell(results, "ts-sdk", "1.32.2", FOUR[1], [("answered", "fail")])
    doc = run(tmp_path, results)
    codex, ts = status_of(doc, "codex"), status_of(doc, "ts-sdk")
    assert codex["reason"].startswith(f"passed at {FOUR[0]}, {FOUR[1]}: ")
    assert ts["reason"].startswith(f"failed at {FOUR[1]}: ")
    assert f"; not to the letter at {FOUR[0]}: " in ts["reason"]


def test_informational_cells_never_stand_behind_a_graded_state(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", FOUR[0], [("answered", "informational")])
    cell(results, "ts-sdk", "1.32.2", FOUR[0], [("answered", "informational")])
    cell(results, "ts-sdk", "1.32.2", FOUR[1], [("answered", "pass")])
    doc = run(tmp_path, results)
    assert status_of(doc, "codex")["state"] == "observed"
    ts = status_of(doc, "ts-sdk")
    assert ts["state"] == "supported" and ts["counts"] == {"informational": 1, "pass": 1}


def test_a_cited_column_uses_the_run_words_for_the_same_behaviour(
    isolated: Path, tmp_path: Path
) -> None:
    """A client that declares no roots is informational on roots-list when it is run; a cited
    implementation that declares none must be able to say the same word."""
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", FOUR[0], [("answered", "informational")])
    cited = {"mcpx": {"state": "observed", "note": "declares no roots", "sources": [GOOD_CITE]}}
    r = row(status={"query": {"scenario": "roots-list", "check": "answered"}, "cited": cited})
    doc = run(tmp_path, results, area(rows=[r]))
    assert doc["issues"] == [] or all(i["severity"] == "warning" for i in doc["issues"])
    assert status_of(doc, "mcpx")["cited_state"] == status_of(doc, "ts-sdk")["state"]


def test_lootbox_reads_observed_where_it_declares_no_roots() -> None:
    rows = {r["id"]: r for r in load_yaml(AREAS_DIR / "roots.yaml")["rows"]}
    for rid in ("ROOT-01", "ROOT-04"):
        assert rows[rid]["status"]["cited"]["lootbox"]["state"] == "observed", rid


def test_every_state_has_a_legend_entry_that_states_its_promise() -> None:
    for state in STATE_LABELS:
        assert SYMBOLS["status"][state][1] == STATE_PROMISES[state], state
    assert "partial" in SYMBOLS["status"] and "non-strict" in SYMBOLS["status"]
