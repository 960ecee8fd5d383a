"""A row's state for every version of a client with results, so the site can say which
version changed it (issue 12), computed by the same rule as the current state."""

from __future__ import annotations

from pathlib import Path

from _revisions import revisions

from .test_compute import cell, run, status_of

REV = revisions()[0]


def test_history_lists_each_version_oldest_first_with_its_own_state(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.99.0", REV, [("answered", "fail")], verdict="fail")
    cell(results, "codex", "0.100.0", REV, [("answered", "pass")])
    cell(results, "codex", "0.171.0", REV, [("answered", "pass")])
    column = status_of(run(tmp_path, results), "codex")
    history = column["history"]
    # Numeric order: 0.100.0 is after 0.99.0 although it sorts before it as text.
    assert [h["version"] for h in history] == ["0.99.0", "0.100.0", "0.171.0"]
    assert [h["state"] for h in history] == ["not-supported", "supported", "supported"]
    assert history[0]["evidence"] and "0.99.0" in history[0]["evidence"][0]
    # The last entry is the current state, read the same way.
    assert history[-1]["state"] == column["state"]


def test_a_version_without_a_cell_for_the_query_is_not_run_in_the_history(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", REV, [("answered", "pass")])
    cell(results, "codex", "0.170.0", REV, [("other-check", "pass")], scenario="handshake")
    history = status_of(run(tmp_path, results), "codex")["history"]
    assert [(h["version"], h["state"]) for h in history] == [
        ("0.170.0", "not-run"),
        ("0.171.0", "supported"),
    ]
