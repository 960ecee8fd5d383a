"""Issue 36 on the rows side: a column reads supported only over passes that could have
failed, a column whose checks were never exercised says so, and the rows stage names every
pass cell that rests on no failable check (what an old verdict, judged by older grades, can
still say until it is re-judged).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compare.rows import STATE_LABELS, STATE_PROMISES
from compare.rows._state import graded_state

from ._area import area, row
from .test_compute import cell, run, status_of
from .test_states import FOUR


def test_not_exercised_never_stands_behind_support() -> None:
    from collections import Counter

    assert graded_state(Counter({"not-exercised": 2})) == "not-exercised"
    assert graded_state(Counter({"not-exercised": 1, "informational": 1})) == "not-exercised"
    assert graded_state(Counter({"not-exercised": 1, "pass": 1})) == "supported"
    assert STATE_LABELS["not-exercised"] == "not exercised"
    assert "precondition never held" in STATE_PROMISES["not-exercised"]


def test_a_column_never_exercised_reads_so_with_its_reason(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    for rev in FOUR[:2]:
        cell(
            results,
            "ts-sdk",
            "1.32.2",
            rev,
            [("answered", "not-exercised")],
            verdict="not-exercised",
        )
    column = status_of(run(tmp_path, results), "ts-sdk")
    assert column["state"] == "not-exercised"
    assert column["label"] == "not exercised"
    assert column["reason"].startswith("not exercised: ")


INFORMATIONAL = "the spec leaves what a client answers open"


def test_an_informational_row_keeps_not_exercised(isolated: Path, tmp_path: Path) -> None:
    """A row that only records behaviour does not turn "never happened" into "observed"."""
    results = isolated / "results"
    checks = [("workspace-root", "not-exercised")]
    cell(results, "ts-sdk", "1.32.2", FOUR[0], checks, verdict="not-exercised")
    query = {"scenario": "roots-list", "check": "workspace-root"}
    doc = run(
        tmp_path, results, area(rows=[row(status={"query": query, "informational": INFORMATIONAL})])
    )
    assert [i["message"] for i in doc["issues"] if i["severity"] == "error"] == []
    assert status_of(doc, "ts-sdk")["state"] == "not-exercised"


def _earned_issues(doc: dict[str, object]) -> list[dict[str, str]]:
    issues = doc["issues"]
    assert isinstance(issues, list)
    return [i for i in issues if i["where"] == "pass"]


def test_a_pass_cell_on_checks_that_cannot_fail_is_named(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    # workspace-root grades no outcome fail or non-strict; wire-json does, but is a wire check
    cell(results, "ts-sdk", "1.32.2", FOUR[0], [("workspace-root", "pass"), ("wire-json", "pass")])
    cell(results, "codex", "0.171.0", FOUR[0], [("answered", "pass")])
    found = _earned_issues(run(tmp_path, results))
    assert len(found) == 1
    assert found[0]["message"].startswith("1 pass cell(s) rest on no check that could have failed")
    assert "ts-sdk (roots)" in found[0]["message"] and "codex" not in found[0]["message"]
    assert found[0]["severity"] == "error"


def test_earned_passes_raise_nothing(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", FOUR[0], [("answered", "pass"), ("workspace-root", "pass")])
    assert _earned_issues(run(tmp_path, results)) == []


def test_the_earned_count_reads_the_shipped_scenarios(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mcp-compare rows --earned``: the count the issue asks for, and exit 1 on a hollow
    pass (here a verdict written before workspace-root stopped grading pass)."""
    from compare.exchange._targets import load_targets
    from compare.rows.cli import rows

    version = next(t.version for t in load_targets() if t.id == "ts-sdk")
    results = isolated / "results"
    cell(results, "ts-sdk", version, "2025-11-25", [("answered", "pass")])
    assert rows(earned=True) == 0
    assert "1 current pass cell(s); 0 rest on no check" in capsys.readouterr().out
    hollow = [("workspace-root", "pass"), ("wire-json", "pass")]
    cell(results, "ts-sdk", version, "2025-06-18", hollow)
    assert rows(earned=True) == 1
    out = capsys.readouterr().out
    assert "ts-sdk (roots) roots-list 2025-06-18" in out
    assert "2 current pass cell(s); 1 rest on no check that could have failed" in out
