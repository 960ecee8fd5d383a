"""Regressions from the real CLI clients: a scenario the client never got to, or left early.

Each test is named for what the judge got wrong before: a closed connection graded as a broken
one, a client without roots failing roots-list, a refused version graded as a failed handshake,
and a client that died before initialize getting informational checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge._judge import judge_checks, overall

from .test_judge import GOOD_URI, KNOWN, WS, Tape

PROBE = "notifications/mcp-compare/unknown-probe"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


def _judge(
    tape: Tape,
    tmp: Path,
    scenario: Scenario,
    revision: str,
    process: dict[str, Any],
    **plan: Any,
) -> dict[str, Any]:
    (tmp / "transcript.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in tape.records), encoding="utf-8"
    )
    full = {"revision": revision, "answer_revision": revision, "workspace": WS, **plan}
    checks, _ = judge_checks(scenario, tmp, full, KNOWN, process)
    verdict, reason = overall(checks, process)
    return {"checks": {c["id"]: c for c in checks}, "verdict": verdict, "reason": reason}


SELF_OK = {"ended_by": "self", "exit_code": 0, "ends": "self"}


def _probe(tape: Tape) -> int:
    tape.note(event="step", index=1, step={"notify": PROBE, "label": "probe"})
    n = tape.add("out", {"jsonrpc": "2.0", "method": PROBE})
    tape.note(event="step-done", index=1, label="probe", outcome="ok", id=None, evidence=n)
    return n


def test_ping_never_sent_because_the_client_closed_before_the_probe_is_not_a_fail(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({})
    tape.note(event="stdin-closed")
    tape.note(event="done", reason="stdin closed before step 1 completed")
    result = _judge(tape, tmp_path, scenarios["unknown-notification"], "2025-11-25", SELF_OK)
    still = result["checks"]["still-responsive"]
    assert still["outcome"] == "closed-before-probe"
    # issue 36: the probe never went out, so neither check was exercised (never a pass)
    assert still["verdict"] == "not-exercised"
    assert "before the notification was sent" in still["reason"]
    assert result["checks"]["no-reply"]["outcome"] == "not-sent"
    assert result["checks"]["no-reply"]["verdict"] == "not-exercised"
    assert result["verdict"] == "not-exercised", result["reason"]


def test_a_probe_whose_write_failed_counts_as_not_sent(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({})
    n = _probe(tape)
    tape.note(event="write-failed", n=n)
    result = _judge(tape, tmp_path, scenarios["unknown-notification"], "2025-11-25", SELF_OK)
    assert result["checks"]["still-responsive"]["outcome"] == "closed-before-probe"
    assert result["checks"]["no-reply"]["outcome"] == "not-sent"


def test_a_client_that_closes_after_the_notification_is_recorded_not_failed(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """No MUST keeps a connection open after an unknown notification, and a close is not
    assumed to be caused by it: it is informational, with the control window named."""
    tape = Tape()
    tape.handshake({})
    probe = _probe(tape)
    closed = tape.note(event="stdin-closed")
    result = _judge(tape, tmp_path, scenarios["unknown-notification"], "2025-11-25", SELF_OK)
    still = result["checks"]["still-responsive"]
    assert still["outcome"] == "closed-after-probe"
    assert still["verdict"] == "informational"
    assert still["evidence"] == [probe, closed]
    assert "no quiet window" in still["observed"]
    assert result["verdict"] != "fail"


def test_an_unanswered_ping_after_the_notification_still_fails(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({})
    _probe(tape)
    tape.request("ping", "ping", 1, None)
    result = _judge(tape, tmp_path, scenarios["unknown-notification"], "2025-11-25", SELF_OK)
    assert result["checks"]["still-responsive"]["outcome"] == "silent"
    assert result["verdict"] == "fail"


def _empty_roots_tape() -> Tape:
    """Codex: no roots capability, answers roots/list with an empty list anyway."""
    tape = Tape()
    tape.handshake({}, version="2025-06-18")
    tape.request("roots", "roots/list", 1, {"result": {"roots": []}})
    return tape


def test_roots_list_of_a_client_without_roots_is_informational_not_a_failure(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = _empty_roots_tape()
    result = _judge(tape, tmp_path, scenarios["roots-list"], "2025-06-18", SELF_OK)
    for check in ("answered", "result-valid", "workspace-root", "root-uri-encoding", "root-name"):
        found = result["checks"][check]
        assert found["outcome"] == "undeclared", (check, found)
        assert found["verdict"] == "informational", (check, found)
        assert "see roots-undeclared" in found["reason"]
    assert result["verdict"] == "informational", result["reason"]
    # ... while roots-undeclared records the empty list as its divergence
    other = _judge(tape, tmp_path, scenarios["roots-undeclared"], "2025-06-18", SELF_OK)
    assert other["checks"]["answer"]["outcome"] == "empty-list"
    assert other["verdict"] == "non-strict"


def _refusing_tape() -> Tape:
    """Gemini at 2025-11-25: asks 2025-06-18, gets 2025-11-25, stops the server."""
    tape = Tape()
    params = {
        "protocolVersion": "2025-06-18",
        "capabilities": {"roots": {"listChanged": True}},
        "clientInfo": {"name": "crafted", "version": "1"},
    }
    tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    answer = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "p"}}
    tape.add("out", {"jsonrpc": "2.0", "id": 0, "result": answer})
    tape.note(event="signal", signal="SIGTERM")
    tape.note(event="done", reason="peer received SIGTERM (the client ended its server)")
    return tape


HARNESS_ENDED = {"ended_by": "harness", "exit_code": -15, "ends": "harness"}


@pytest.mark.parametrize("scenario", ["handshake", "roots-list", "unknown-notification"])
def test_a_client_refusing_the_servers_version_is_informational_not_a_fail(
    tmp_path: Path, scenarios: dict[str, Scenario], scenario: str
) -> None:
    result = _judge(_refusing_tape(), tmp_path, scenarios[scenario], "2025-11-25", HARNESS_ENDED)
    refused = [c for c in result["checks"].values() if c["outcome"] == "version-refused"]
    assert refused, result["checks"]
    for check in refused:
        assert check["verdict"] == "informational"
        assert "client does not accept 2025-11-25" in check["reason"]
    assert all(c["verdict"] != "fail" for c in result["checks"].values()), result["checks"]
    assert result["verdict"] in ("informational", "pass"), result["reason"]


def test_handshake_refusal_cites_the_lifecycle_should_disconnect(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    result = _judge(_refusing_tape(), tmp_path, scenarios["handshake"], "2025-11-25", HARNESS_ENDED)
    refs = result["checks"]["initialized-sent"]["refs"]
    disconnect = "docs/specification/2025-11-25/basic/lifecycle.mdx:174-175"
    assert any(r["cite"] == disconnect for r in refs)


def test_version_window_still_measures_the_refusal_per_revision(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    result = _judge(
        _refusing_tape(), tmp_path, scenarios["version-window"], "2025-11-25", HARNESS_ENDED
    )
    assert result["checks"]["accepted"]["outcome"] == "disconnected"
    assert result["checks"]["accepted"]["verdict"] == "informational"
    assert result["checks"]["roots-at-revision"]["outcome"] == "version-refused"
    assert result["verdict"] == "informational"


def test_same_version_without_initialized_is_still_a_failed_handshake(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """Leaving after the server answered the very version asked for is no refusal."""
    tape = Tape()
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c"}}
    tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    tape.note(event="stdin-closed")
    result = _judge(tape, tmp_path, scenarios["handshake"], "2025-11-25", SELF_OK)
    assert result["checks"]["initialized-sent"]["outcome"] == "absent"
    assert result["verdict"] == "fail"


CRASHED = {"ended_by": "self", "exit_code": 1, "ends": "self"}


@pytest.mark.parametrize(
    "scenario", ["roots-list", "roots-undeclared", "unknown-notification", "version-window"]
)
def test_a_client_that_ends_before_initialize_is_never_informational_or_pass(
    tmp_path: Path, scenarios: dict[str, Scenario], scenario: str
) -> None:
    tape = Tape()
    tape.note(event="stdin-closed")
    result = _judge(tape, tmp_path, scenarios[scenario], "2025-06-18", CRASHED)
    own = [c for c in result["checks"].values() if not c["id"].startswith(("wire", "client"))]
    assert own
    for check in own:
        assert check["verdict"] in ("error", "fail"), check
    assert result["verdict"] in ("error", "fail")
    early = [c for c in own if c["outcome"] == "no-initialize"]
    if scenario != "version-window":  # there the rule's own no-initialize outcome fails
        assert (
            early and "the client ended before initialize (it exited with 1)" in early[0]["reason"]
        )


def test_good_roots_list_still_passes(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    tape = Tape()
    tape.handshake({"roots": {}})
    tape.request("roots", "roots/list", 1, {"result": {"roots": [{"uri": GOOD_URI}]}})
    result = _judge(tape, tmp_path, scenarios["roots-list"], "2025-11-25", SELF_OK)
    assert result["verdict"] == "pass", result["reason"]
