"""host-step from crafted cells: what an SDK handed our host for each request of a scripted
session (``host-session.jsonl``), as client-structured-schema and client-tool-answers read it.

Each case writes the cell's transcript (the host's calls on the wire), its host plan (the
script) and the record as a host writes it, and asserts the outcome the rule names and the
grade the scenario gives it; between them the cases reach every outcome the rule names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._host_plan import HOST_PLAN, HOST_SESSION
from compare.exchange._scenarios import Scenario

from .test_judge import Tape


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def judged(
    tmp: Path, scenario: Scenario, record: list[Any] | None, revision: str = "2025-11-25"
) -> dict[str, Any]:
    """The checks of a cell whose host listed the tools and called each tool of the script
    on the wire (each call answered), and wrote ``record`` (None: no record file)."""
    script = scenario.raw["host_session"]
    tape = Tape()
    tape.handshake({}, revision)
    tape.add("in", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tape.add("out", {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}})
    for rid, request in enumerate(script[1:], start=3):
        tape.add("in", {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                        "params": {"name": request["call"]}})  # fmt: skip
        tape.add("out", {"jsonrpc": "2.0", "id": rid, "result": {"content": []}})
    plan = {"session": {"call_tools": False, "requests": script}}
    (tmp / HOST_PLAN).write_text(json.dumps(plan), encoding="utf-8")
    if record is not None:
        lines = "".join(json.dumps(e) + "\n" for e in record)
        (tmp / HOST_SESSION).write_text(lines + "not json\n", encoding="utf-8")
    checks: dict[str, Any] = tape.judge(tmp, scenario, revision)["checks"]
    return checks


def ok(step: int, result: Any) -> dict[str, Any]:
    return {"step": step, "request": "call" if step else "list", "ok": True, "result": result}


def raised(step: int, said: str, code: int | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"step": step, "request": "call", "ok": False, "error": said}
    return {**entry, "code": code} if code is not None else entry


CONFORMING = {"structuredContent": {"marker": "conforming-marker-71c2"}}
LISTED = ok(0, {"tools": []})


@pytest.mark.parametrize(
    ("record", "first", "second", "verdict"),
    [
        ([LISTED, ok(1, CONFORMING), raised(2, "RuntimeError: Invalid structured content")],
         "returned", "raised", "pass"),
        ([LISTED, ok(1, CONFORMING), ok(2, {"structuredContent": {"marker": 42}})],
         "returned", "returned", "non-strict"),
        # a library that turns the refusal into an error result of its own hands no content on
        ([LISTED, ok(1, CONFORMING), ok(2, {"content": [{"text": "Invalid"}], "isError": True})],
         "returned", "returned-without", "informational"),
        ([LISTED, ok(1, {"content": []}), raised(2, "RuntimeError: invalid")],
         "returned-without", "no-baseline", "not-exercised"),
        ([LISTED, raised(1, "McpError: closed", -32000)], "raised", "no-baseline", "not-exercised"),
        ([LISTED, ok(1, CONFORMING)], "returned", "not-reached", "not-exercised"),
        (None, "no-record", "no-baseline", "not-exercised"),
    ],
)  # fmt: skip
def test_a_broken_structured_result_is_graded_only_beside_a_conforming_one(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    record: list[Any] | None,
    first: str,
    second: str,
    verdict: str,
) -> None:
    checks = judged(tmp_path, shipped_scenarios["client-structured-schema"], record)
    assert checks["conforming-returned"]["outcome"] == first
    validated = checks["structured-validated"]
    assert (validated["outcome"], validated["verdict"]) == (second, verdict)
    if second == "returned":
        assert "Clients **SHOULD** validate structured results" in validated["refs"][0]["quote"]


def test_the_evidence_is_the_wire_request_the_scripted_request_made(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    error = ok(1, {"content": [{"text": "fault-marker-3e8a"}], "isError": True})
    record = [LISTED, error, raised(2, "McpError: protocol-marker-8d1f", -32603), ok(3, {})]
    checks = judged(tmp_path, shipped_scenarios["client-tool-answers"], record)
    assert checks["error-result"]["outcome"] == "returned"
    assert checks["protocol-error"]["outcome"] == "raised"
    assert "(code -32603)" in checks["protocol-error"]["observed"]
    assert checks["unknown-content"]["outcome"] == "returned-without"
    assert len(checks["unknown-content"]["evidence"]) == 2  # its call and the answer to it
    # the second call's own request and answer, not the first call's or the last one's
    first, second = checks["error-result"]["evidence"], checks["protocol-error"]["evidence"]
    assert len(first) == len(second) == 2 and second[0] > first[1]
    assert "tools/call, line" in checks["protocol-error"]["observed"]


def test_a_record_line_for_another_step_does_not_stand_for_this_one(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    # a host that skipped step 1 and went on: step 1 reads not reached, not step 2's result
    record = [LISTED, ok(2, {"content": []})]
    checks = judged(tmp_path, shipped_scenarios["client-tool-answers"], record)
    assert checks["error-result"]["outcome"] == "not-reached"
    assert checks["protocol-error"]["outcome"] == "returned"


WATCHED = "mcp-compare://watch/status-5d1a"
UPDATE = {"notification": "notifications/resources/updated", "params": {"uri": WATCHED}}


def subscribed(tmp: Path, scenario: Scenario, record: list[Any] | None, sent: bool) -> Any:
    """The checks of a client-resource-subscribe cell: the host subscribed, read and
    unsubscribed on the wire, and the peer sent its update after the subscription when
    ``sent`` (else the host never subscribed: only the read went out)."""
    tape = Tape()
    tape.handshake({}, "2025-11-25")
    if sent:
        tape.add("in", {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                        "params": {"uri": WATCHED}})  # fmt: skip
        tape.add("out", {"jsonrpc": "2.0", "id": 2, "result": {}})
        tape.add("out", {"jsonrpc": "2.0", "method": "notifications/resources/updated",
                         "params": {"uri": WATCHED}})  # fmt: skip
    tape.add(
        "in", {"jsonrpc": "2.0", "id": 3, "method": "resources/read", "params": {"uri": WATCHED}}
    )
    tape.add("out", {"jsonrpc": "2.0", "id": 3, "result": {"contents": []}})
    plan = {"session": {"call_tools": False, "requests": scenario.raw["host_session"]}}
    (tmp / HOST_PLAN).write_text(json.dumps(plan), encoding="utf-8")
    if record is not None:
        lines = "".join(json.dumps(e) + "\n" for e in record)
        (tmp / HOST_SESSION).write_text(lines, encoding="utf-8")
    return tape.judge(tmp, scenario, "2025-11-25")["checks"]


SUBSCRIBED = {"step": 0, "request": "subscribe", "ok": True, "result": {}}


@pytest.mark.parametrize(
    ("record", "sent", "outcome", "verdict"),
    [
        ([SUBSCRIBED, UPDATE], True, "delivered", "informational"),
        # a library that reads the resource again hands what it read: the URI is in it
        ([SUBSCRIBED, {**UPDATE, "params": {"contents": [{"uri": WATCHED, "text": "x"}]}}],
         True, "delivered", "informational"),
        ([SUBSCRIBED, {**UPDATE, "params": {}}], True, "delivered-without", "informational"),
        ([SUBSCRIBED], True, "not-delivered", "informational"),
        # a stray update line where the peer sent none stands for nothing
        ([UPDATE], False, "not-sent", "not-exercised"),
        (None, True, "no-record", "not-exercised"),
    ],
)  # fmt: skip
def test_an_update_counts_only_where_the_peer_sent_one_and_the_handler_was_handed_it(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    record: list[Any] | None,
    sent: bool,
    outcome: str,
    verdict: str,
) -> None:
    scenario = shipped_scenarios["client-resource-subscribe"]
    check = subscribed(tmp_path, scenario, record, sent)["update-delivered"]
    assert (check["outcome"], check["verdict"]) == (outcome, verdict)
    if sent:
        assert check["evidence"], "the peer's notification is the evidence"


def test_update_lines_do_not_count_as_requests_made(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    # subscribed, handed an update, then stopped: the unsubscribe reads not reached, and the
    # record is said to hold one request, not two lines
    scenario = shipped_scenarios["client-resource-subscribe"]
    checks = subscribed(tmp_path, scenario, [SUBSCRIBED, UPDATE], True)
    assert checks["subscribed"]["outcome"] == "returned"
    assert checks["unsubscribed"]["outcome"] == "not-reached"
    assert "holds 1 request(s)" in checks["unsubscribed"]["observed"]
