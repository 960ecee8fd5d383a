"""Regressions the judge's fuzz tests found (tests/fuzz/test_fuzz_judge.py), each as the
smallest transcript that showed it: hostile client lines and hand-edited records must become
findings or damage, never an exception, and every verdict must stay writable as UTF-8.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge._judge import judge_checks, overall
from compare.judge._transcript import read_transcript


@pytest.fixture(scope="module")
def handshake(pinned_spec: Path) -> Scenario:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        return next(s for s in load_scenarios() if s.id == "handshake")


def _write(folder: Path, *records: dict[str, Any]) -> Path:
    path = folder / "transcript.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _initialize(name: str) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": name, "version": "1"},
        },
    }
    return {"n": 1, "t": 0.1, "dir": "in", "raw": json.dumps(message)}


def test_deeply_nested_line_is_a_parse_error_not_a_crash(tmp_path: Path) -> None:
    # 20 000 nested arrays: Python's JSON reader raises RecursionError, not ValueError.
    deep = "[" * 20_000 + "]" * 20_000
    path = _write(tmp_path, {"n": 1, "t": 0.1, "dir": "in", "raw": deep})
    tx = read_transcript(path)
    assert tx.lines[0].obj is None and "recursion" in (tx.lines[0].parse_error or "")
    path.write_text(deep + "\n", encoding="utf-8")  # the record line itself that deep
    assert read_transcript(path).damage == ["transcript line 1 is not a record"]


def test_step_note_with_a_null_index_is_read(tmp_path: Path) -> None:
    note = {"event": "step", "index": None, "step": {"request": "roots/list"}}
    path = _write(tmp_path, {"n": 1, "t": 0.1, "dir": "note", "raw": json.dumps(note)})
    assert read_transcript(path).steps["#None"].index == -1


def test_timeout_without_a_recorded_bound() -> None:
    assert overall([], {"ended_by": "timeout"}) == ("error", "timed out; client killed")
    assert overall([], {"ended_by": "timeout", "timeout_s": 40.0})[1].startswith(
        "timed out after 40 s"
    )


def test_lone_surrogate_from_the_client_stays_writable(tmp_path: Path, handshake: Scenario) -> None:
    # The client wrote "\ud800" (a JSON escape) in its name: json.loads gives a lone surrogate.
    _write(tmp_path, _initialize("\ud800<b>"))
    plan = {"revision": "2025-11-25", "answer_revision": "2025-11-25", "workspace": "/w"}
    checks, facts = judge_checks(handshake, tmp_path, plan, revisions(), {"ended_by": "self"})
    assert facts["client_info"]["name"] == "\\ud800<b>"  # shown as its escape
    verdict = overall(checks, {"ended_by": "self"})
    json.dumps([checks, facts, verdict], ensure_ascii=False).encode("utf-8")


def test_a_time_too_large_for_a_float_is_damage(tmp_path: Path) -> None:
    # JSON allows 1e400 written as an integer; float() of it raised OverflowError.
    path = _write(tmp_path, {"n": 1, "t": 10**400, "dir": "in", "raw": "{}"})
    assert read_transcript(path).damage == ["transcript line 1 is not a record"]


def test_a_list_as_a_request_id_does_not_crash_the_notification_rule(
    tmp_path: Path, pinned_spec: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fuzzer's case: a request of ours whose id is a list (any JSON value reaches the
    transcript) made unknown-notification-reply build a set of ids and raise TypeError."""
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    scenario = next(s for s in load_scenarios() if s.id == "unknown-notification")

    def note(n: int, **fields: Any) -> dict[str, Any]:
        return {"n": n, "t": n / 10, "dir": "note", "raw": json.dumps(fields)}

    def line(n: int, direction: str, message: dict[str, Any]) -> dict[str, Any]:
        return {"n": n, "t": n / 10, "dir": direction, "raw": json.dumps(message)}

    probe = {"jsonrpc": "2.0", "method": "notifications/nonexistent"}
    _write(
        tmp_path,
        _initialize("c"),
        note(2, event="step", index=1, step={"notify": probe["method"], "label": "probe"}),
        line(3, "out", probe),
        note(4, event="step-done", index=1, label="probe", outcome="ok", evidence=3),
        line(5, "out", {"jsonrpc": "2.0", "id": [1, 2], "method": "ping"}),
        line(6, "in", {"jsonrpc": "2.0", "id": 7, "result": {}}),
    )
    plan = {"revision": "2025-11-25", "answer_revision": "2025-11-25", "workspace": "/w"}
    checks, _facts = judge_checks(scenario, tmp_path, plan, revisions(), None)
    got = next(c for c in checks if c["id"] == "no-reply")
    assert got["outcome"] == "replied", got
