"""The rules of client-stdio-lines from crafted cells: a string id, a burst on the server's
stderr, a banner line, a long line and the environment the client started its server with,
each graded as the scenario grades it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios

from .test_judge import WS, Tape

STRING_ID = "mcp-compare-ping-é"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return next(s for s in load_scenarios() if s.id == "client-stdio-lines")


def grade(
    tmp: Path, scenario: Scenario, tape: Tape, check: str, rev: str = "2025-11-25", **plan: Any
) -> tuple[str, str]:
    got = tape.judge(tmp, scenario, rev, **plan)["checks"][check]
    return got["outcome"], got["verdict"]


def ping(tape: Tape, label: str, rid: Any, answered: bool | None) -> None:
    """A ping of the peer's: answered, left unanswered (False), or the client gone (None)."""
    tape.note(event="step", index=1, step={"request": "ping", "label": label})
    tape.add("out", {"jsonrpc": "2.0", "id": rid, "method": "ping"})
    if answered is None:
        tape.note(event="stdin-closed")
    evidence = tape.add("in", {"jsonrpc": "2.0", "id": rid, "result": {}}) if answered else None
    tape.note(event="step-done", index=1, label=label, outcome="ok" if answered else "timeout",
              id=rid, evidence=evidence)  # fmt: skip


@pytest.mark.parametrize(
    ("string", "number", "outcome", "verdict"),
    [
        (True, True, "answered", "pass"),
        (False, True, "dropped", "fail"),
        (False, False, "no-ping-answered", "informational"),
    ],
)
def test_a_string_id_is_answered_as_a_number_is(
    tmp_path: Path, scenario: Scenario, string: bool, number: bool, outcome: str, verdict: str
) -> None:
    tape = Tape()
    tape.handshake({})
    ping(tape, "string-id", STRING_ID, string)
    ping(tape, "after-chatter", 1, number)
    tape.note(event="stdin-closed")
    assert grade(tmp_path, scenario, tape, "string-id") == (outcome, verdict)


@pytest.mark.parametrize(
    ("complete", "answered", "rev", "check", "outcome", "verdict"),
    [
        (True, True, "2025-11-25", "stderr-chatter", "went-on", "pass"),
        (True, False, "2025-11-25", "stderr-chatter", "stopped", "non-strict"),
        (True, None, "2025-11-25", "stderr-chatter", "closed", "informational"),
        (False, False, "2025-11-25", "stderr-chatter", "blocked", "informational"),
        (True, False, "2025-06-18", "stderr-chatter-early", "stopped", "informational"),
    ],
)
def test_a_burst_on_the_servers_stderr(
    tmp_path: Path,
    scenario: Scenario,
    complete: bool,
    answered: bool | None,
    rev: str,
    check: str,
    outcome: str,
    verdict: str,
) -> None:
    tape = Tape()
    tape.handshake({}, rev)
    tape.note(event="step", index=2, step={"stderr_bytes": 262144, "label": "chatter"})
    tape.note(event="stderr-written", bytes=262198, complete=complete)
    tape.note(event="step-done", index=2, label="chatter",
              outcome="ok" if complete else "blocked", id=None, evidence=None)  # fmt: skip
    if complete:
        ping(tape, "after-chatter", 1, answered)
    assert grade(tmp_path, scenario, tape, check, rev) == (outcome, verdict)


@pytest.mark.parametrize(
    ("plan", "seen", "outcome", "verdict"),
    [
        ({"variant": "default"}, True, "inherited", "informational"),
        ({"variant": "default"}, False, "filtered", "informational"),
        ({"variant": "no-roots"}, False, "host-chose", "not-exercised"),
    ],
)
def test_the_environment_the_server_is_started_with(
    tmp_path: Path,
    scenario: Scenario,
    plan: dict[str, Any],
    seen: bool,
    outcome: str,
    verdict: str,
) -> None:
    tape = Tape()
    tape.note(event="start", pid=1, scenario="client-stdio-lines", cwd=WS, client_env=seen)
    tape.handshake({})
    assert grade(tmp_path, scenario, tape, "environment", **plan) == (outcome, verdict)


@pytest.mark.parametrize(
    ("answered", "outcome", "verdict"),
    [
        (True, "answered", "informational"),
        (False, "no-answer", "informational"),
        (None, "no-answer", "informational"),
    ],
)
def test_after_a_banner_silence_and_a_closed_connection_are_one_answer(
    tmp_path: Path, scenario: Scenario, answered: bool | None, outcome: str, verdict: str
) -> None:
    """Whether a client fell silent or closed after the banner is a race inside it; both
    read no-answer, so three plays of one client agree."""
    tape = Tape()
    tape.handshake({})
    tape.note(event="raw-written", text="banner", bytes=7)
    ping(tape, "after-banner", 2, answered)
    assert grade(tmp_path, scenario, tape, "after-banner") == (outcome, verdict)
