"""The rules of three issue-24 rows, from crafted transcripts: a client's requests before its
initialize is answered (client-early-requests, LIFE-18), a server's requests before our
notifications/initialized (server-early-requests, LIFE-19), and a chain of InputRequiredResults
asked again on every retry (mrtr-rounds, and the request-state and new-id checks over every
round, ELI-19).

Each case writes the lines the peer or the scripted client would have recorded and asserts the
outcome and the grade the scenario file gives it, so a changed rule or a changed grade shows.
The real implementations' cells are asserted in tests/hosts and tests/play.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_judge import Tape
from .test_server_modern_rules import ServerTape

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture
def scenarios(shipped_scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    return shipped_scenarios


def _graded(result: dict[str, Any], check: str) -> tuple[str, str]:
    got = result["checks"][check]
    return got["outcome"], got["verdict"]


# -- a client before its session is ready ------------------------------------------------------
INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "crafted", "version": "1"},
}
ANSWER = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "p"}}


def _client(order: list[str]) -> Tape:
    """The lines of a client session in ``order``: init (its initialize), answer (ours),
    ready (its notifications/initialized), list (a tools/list of its own), ping."""
    tape, rid = Tape(), 10
    for what in order:
        if what == "init":
            tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": INIT})
        elif what == "answer":
            tape.add("out", {"jsonrpc": "2.0", "id": 0, "result": ANSWER})
        elif what == "ready":
            tape.add("in", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            rid += 1
            method = "tools/list" if what == "list" else "ping"
            tape.add("in", {"jsonrpc": "2.0", "id": rid, "method": method})
    return tape


@pytest.mark.parametrize(
    ("order", "outcome", "grade"),
    [
        (["init", "answer", "ready", "list"], "waited", "pass"),
        (["init", "ping", "answer", "ready", "list"], "waited", "pass"),
        (["init", "list", "answer", "ready"], "before-answer", "non-strict"),
        (["list", "init", "answer", "ready"], "before-answer", "non-strict"),
        (["init", "list"], "before-answer", "non-strict"),
        (["init", "answer", "list", "ready"], "before-initialized", "informational"),
        (["init", "answer", "list"], "before-initialized", "informational"),
    ],
)
@pytest.mark.parametrize("scenario", ["initialize-held", "handshake"])
def test_client_early_requests(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    scenario: str,
    order: list[str],
    outcome: str,
    grade: str,
) -> None:
    result = _client(order).judge(tmp_path, scenarios[scenario])
    assert _graded(result, "early-requests") == (outcome, grade)
    if outcome == "before-answer":  # the first early request is the evidence
        check = result["checks"]["early-requests"]
        assert "tools/list" in check["observed"]


@pytest.mark.parametrize(
    ("second", "outcome"),
    [
        (["init", "answer", "ready", "list"], "waited"),
        (["init", "list", "answer", "ready"], "before-answer"),
        (["init", "answer", "list", "ready"], "before-initialized"),
    ],
)
def test_a_host_that_reconnects_is_read_session_by_session(
    tmp_path: Path, scenarios: dict[str, Scenario], second: list[str], outcome: str
) -> None:
    """A host that opens a second session in the same cell (mastra-v1 does) leaves both in
    one transcript, numbered from 1 again: the second initialize is a session's start, not
    a request before the first session's answer, and the worst session is what is reported."""
    first = _client(["init", "answer", "ready", "list"])
    again = _client(second)
    first.records += again.records  # as the harness appends a second session: n starts again
    result = first.judge(tmp_path, scenarios["handshake"])
    assert result["checks"]["early-requests"]["outcome"] == outcome


def test_no_initialize_is_not_graded(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    result = _client(["list"]).judge(tmp_path, scenarios["initialize-held"])
    assert _graded(result, "early-requests")[1] == "informational"


# -- a server before our initialized -----------------------------------------------------------
def _server(order: list[str]) -> ServerTape:
    """Our initialize and its answer, then in ``order``: roots (a roots/list of the server's),
    ping (a ping of the server's), ready (our notifications/initialized)."""
    tape = ServerTape()
    params = {"protocolVersion": "2025-11-25", "capabilities": {"roots": {}}, "clientInfo": {}}
    reply = {"result": {**ANSWER, "serverInfo": {"name": "s", "version": "1"}}}
    tape.step("initialize", -1, {"id": 1, "method": "initialize", "params": params}, reply)
    for i, what in enumerate(order):
        if what == "ready":
            tape.add("out", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        else:
            method = "roots/list" if what == "roots" else "ping"
            tape.add("in", {"jsonrpc": "2.0", "id": i, "method": method})
    return tape


@pytest.mark.parametrize(
    ("order", "outcome", "grade"),
    [
        (["ready", "roots"], "waited", "pass"),
        (["ping", "ready", "roots"], "waited", "pass"),
        (["roots", "ready"], "early", "non-strict"),
        (["roots"], "early", "non-strict"),
        (["ping", "ready"], "none", "informational"),
        (["ready"], "none", "informational"),
    ],
)
def test_server_early_requests(
    tmp_path: Path, scenarios: dict[str, Scenario], order: list[str], outcome: str, grade: str
) -> None:
    result = _server(order).judge(tmp_path, scenarios["server-before-initialized"])
    assert _graded(result, "early-requests") == (outcome, grade)


def test_a_server_that_never_answered_initialize(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    tape.step("initialize", -1, {"id": 1, "method": "initialize", "params": {}}, None)
    result = tape.judge(tmp_path, scenarios["server-before-initialized"])
    assert _graded(result, "early-requests") == ("no-initialize", "informational")


# -- a chain of InputRequiredResults -------------------------------------------------------------
def _chain(
    rounds: int, asked: int, echo: list[str | None] | None = None, ids: list[int] | None = None
) -> Tape:
    """A modern call asked ``asked`` times in a row (a fresh state each time), the client
    retrying ``asked`` times: echoing ``echo[k]`` (default: the state it was given) with id
    ``ids[k]`` (default: k + 2); the last retry is answered complete when asked == rounds."""
    tape = Tape()
    params: dict[str, Any] = {"name": "t", "arguments": {}, "_meta": META}
    tape.add("in", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    form = {"answer": {"method": "elicitation/create", "params": {}}}
    for k in range(asked):
        state = f"s{k}+/="
        tape.note(event="embed-armed", key="answer", request_state=state)
        irr = {"resultType": "input_required", "inputRequests": form, "requestState": state}
        tape.add(
            "out", {"jsonrpc": "2.0", "id": (ids[k - 1] if ids and k else k + 1), "result": irr}
        )
        retry = {**params, "inputResponses": {"answer": {"action": "accept", "content": {}}}}
        sent = echo[k] if echo is not None else state
        if sent is not None:
            retry["requestState"] = sent
        rid = ids[k] if ids else k + 2
        tape.add("in", {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": retry})
    return tape


def _rounds_plan(rounds: int) -> dict[str, Any]:
    return {"steps": [{"request": "elicitation/create", "embed": "answer", "rounds": rounds}]}


@pytest.mark.parametrize(
    ("asked", "echo", "ids", "rounds_out", "state", "new_id"),
    [
        (3, None, None, "all-rounds", "exact", "new"),
        (2, None, None, "stopped", "exact", "new"),
        # the second retry echoes the first round's state: the newest one was due
        (3, ["s0+/=", "s0+/=", "s2+/="], None, "all-rounds", "altered", "new"),
        (3, ["s0+/=", None, "s2+/="], None, "all-rounds", "missing", "new"),
        # the third retry reuses the second's id
        (3, None, [2, 3, 3], "all-rounds", "exact", "reused"),
        # a retry reusing the first call's id
        (2, None, [2, 1], "stopped", "exact", "reused"),
    ],
)
def test_every_round_is_judged(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    asked: int,
    echo: list[str | None] | None,
    ids: list[int] | None,
    rounds_out: str,
    state: str,
    new_id: str,
) -> None:
    result = _chain(3, asked, echo, ids).judge(
        tmp_path, scenarios["elicitation-rounds"], MODERN, first_modern=MODERN, **_rounds_plan(3)
    )
    assert _graded(result, "rounds") == (rounds_out, "informational")
    assert _graded(result, "request-state") == (state, "pass" if state == "exact" else "fail")
    assert _graded(result, "new-id") == (new_id, "pass" if new_id == "new" else "fail")


def test_a_legacy_client_reads_legacy(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    result = _client(["init", "answer", "ready"]).judge(
        tmp_path, scenarios["elicitation-rounds"], MODERN, first_modern=MODERN, **_rounds_plan(3)
    )
    assert _graded(result, "rounds") == ("legacy", "informational")
