"""Notes name the client version and the state they describe; stale ones are flagged.

Regression tests for issue 9: per-target notes were free strings, so a note kept saying what
an old client version did after the pinned version or the verdicts had moved on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare.rows import Issue, lint_all, load_yaml
from compare.rows._context import load_target_names
from compare.rows._load import AREAS_DIR

from ._area import REVS, area, known, row, write
from .test_compute import cell, run, status_of

QUERY = {"scenario": "roots-list", "check": "answered"}


def _noted(version: str = "0.171.0", state: str = "partial") -> dict[str, Any]:
    note = {"version": version, "state": state, "text": "fails at 2025-11-25"}
    return area(rows=[row(status={"query": QUERY, "notes": {"codex": note}})])


def _lint(tmp_path: Path, data: dict[str, Any]) -> list[Issue]:
    return lint_all([write(tmp_path / "roots.yaml", data)], known())


def test_a_note_for_a_version_that_is_no_longer_pinned_is_an_error(
    isolated: Path, tmp_path: Path
) -> None:
    [issue] = _lint(tmp_path, _noted(version="0.170.0"))
    assert issue.severity == "error" and issue.where == "ROOT-01/status/notes/codex"
    assert issue.message == "note describes codex 0.170.0, but the pinned version is 0.171.0"
    assert "0.171.0" in issue.tip
    assert _lint(tmp_path, _noted()) == []


def test_a_note_that_names_no_version_is_rejected(isolated: Path, tmp_path: Path) -> None:
    bare = area(rows=[row(status={"query": QUERY, "notes": {"codex": "fails sometimes"}})])
    issues = _lint(tmp_path, bare)
    assert issues and all(i.where.startswith("rows/0/status/notes/codex") for i in issues)


def test_a_note_on_a_column_that_was_not_run_is_flagged(isolated: Path, tmp_path: Path) -> None:
    doc = run(tmp_path, isolated / "results", _noted())
    [issue] = [i for i in doc["issues"] if i["where"] == "ROOT-01/status/codex/note"]
    assert issue["severity"] == "warning"
    assert "the column is not run" in issue["message"]


def test_a_note_written_for_another_state_is_flagged(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    for rev in REVS[:2]:
        cell(results, "codex", "0.171.0", rev, [("answered", "pass")])
    doc = run(tmp_path, results, _noted(state="partial"))
    column = status_of(doc, "codex")
    assert (column["state"], column["note_version"], column["note_state"]) == (
        "supported",
        "0.171.0",
        "partial",
    )
    [issue] = [i for i in doc["issues"] if i["where"] == "ROOT-01/status/codex/note"]
    assert "written for state partial, but the computed state is supported" in issue["message"]
    quiet = run(tmp_path, results, _noted(state="supported"))
    assert not [i for i in quiet["issues"] if i["where"].startswith("ROOT-01/status/codex")]


def test_every_shipped_note_names_the_pinned_version_of_its_target() -> None:
    pinned = {t: d["package"]["version"] for t, d in load_target_names().items() if "package" in d}
    for r in load_yaml(AREAS_DIR / "roots.yaml")["rows"]:
        for target, note in (r["status"].get("notes") or {}).items():
            assert note["version"] == pinned[target], (r["id"], target)
