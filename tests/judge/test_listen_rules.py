"""server-listen's rules from crafted transcripts: a subscriptions/listen stream acknowledged,
tagged, filtered, cancelled and ended at close (listen-acknowledged, listen-notified,
listen-only-requested, listen-cancelled, listen-ended). Each case writes what the scripted client
records at 2026-07-28 and asserts the outcome and the grade the shipped scenario gives it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_server_modern_rules import MODERN
from .test_utilities_rules import Clocked, begin, judged

SID = "io.modelcontextprotocol/subscriptionId"
CAPS = {"tools": {"listChanged": True}, "prompts": {"listChanged": True}}
ACK = "notifications/subscriptions/acknowledged"
TOOLS_CHANGED = "notifications/tools/list_changed"


@pytest.fixture
def scenario(shipped_scenarios: dict[str, Scenario]) -> Scenario:
    return shipped_scenarios["server-listen"]


def _sent(tape: Clocked, label: str, index: int, rid: int, method: str, params: Any) -> None:
    """A request sent without waiting (outcome sent)."""
    tape.note(event="step", index=index, step={"request": method, "label": label})
    tape.add("out", {"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    tape.note(event="step-done", index=index, label=label, outcome="sent", id=rid)


def _ack(tape: Clocked, rid: Any, honoured: dict[str, Any], tagged: bool = True) -> None:
    meta = {SID: rid} if tagged else {}
    tape.add(
        "in",
        {"jsonrpc": "2.0", "method": ACK, "params": {"_meta": meta, "notifications": honoured}},
    )


def _notice(tape: Clocked, method: str, rid: Any | None) -> None:
    params: dict[str, Any] = {"_meta": {SID: rid}} if rid is not None else {}
    tape.add("in", {"jsonrpc": "2.0", "method": method, "params": params})


def listened(
    *,
    acks: bool = True,
    widened: bool = False,
    untagged_ack: bool = False,
    early: bool = False,
    refused: bool = False,
    change: bool = True,
    after_change: list[tuple[str, Any]] | None = None,
    after_cancel: list[tuple[str, Any]] | None = None,
    at_close: dict[str, Any] | None = None,
) -> Clocked:
    """The scenario's steps: listen 10 (tools and resources), listen 11 (prompts), the change,
    the cancel of listen 10, and what the server sends at each point."""
    tape = begin(CAPS, MODERN)
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, {"result": {"tools": []}})
    _sent(
        tape,
        "listen",
        1,
        10,
        "subscriptions/listen",
        {"notifications": {"toolsListChanged": True, "resourcesListChanged": True}},
    )
    _sent(tape, "listen-open", 2, 11, "subscriptions/listen",
          {"notifications": {"promptsListChanged": True}})  # fmt: skip
    if refused:
        tape.add("in", {"jsonrpc": "2.0", "id": 10, "error": {"code": -32601, "message": "no"}})
        tape.add("in", {"jsonrpc": "2.0", "id": 11, "error": {"code": -32601, "message": "no"}})
    if early:
        _notice(tape, TOOLS_CHANGED, 10)
    if acks and not refused:
        honoured = {"toolsListChanged": True, "resourcesListChanged": True}
        if widened:
            honoured["promptsListChanged"] = True
        _ack(tape, 10, honoured, tagged=not untagged_ack)
        _ack(tape, 11, {"promptsListChanged": True})
    if change:
        call = {"id": 3, "method": "tools/call", "params": {"name": "add_tool_later"}}
        tape.step("change", 4, call, {"result": {"content": []}})
    else:
        tape.note(event="step", index=4, step={"label": "change"})
        tape.note(event="step-done", index=4, label="change", outcome="no-tool")
    for method, rid in after_change or []:
        _notice(tape, method, rid)
    tape.at(5.0)
    tape.note(event="step", index=6, step={"cancel": "listen", "label": "cancel"})
    n = tape.add("out", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                         "params": {"requestId": 10, "reason": "done"}})  # fmt: skip
    tape.note(event="step-done", index=6, label="cancel", outcome="ok", id=None, evidence=n)
    tape.at(6.5)
    for method, rid in after_cancel or []:
        _notice(tape, method, rid)
    if at_close is not None:
        tape.add("in", {"jsonrpc": "2.0", "id": 11, **at_close})
    return tape


CASES = [
    # (case, check, (outcome, verdict))
    ({}, "acknowledged", ("acknowledged", "pass")),
    ({"widened": True}, "acknowledged", ("widened", "informational")),
    ({"untagged_ack": True}, "acknowledged", ("untagged", "fail")),
    ({"early": True}, "acknowledged", ("not-first", "fail")),
    ({"refused": True}, "acknowledged", ("refused", "informational")),
    ({"acks": False}, "acknowledged", ("no-ack", "informational")),
    ({"after_change": [(TOOLS_CHANGED, 10)]}, "tagged", ("tagged", "pass")),
    ({"after_change": [(TOOLS_CHANGED, None)]}, "tagged", ("untagged", "fail")),
    ({}, "tagged", ("none", "non-strict")),
    ({"refused": True}, "tagged", ("not-open", "not-exercised")),
    ({"change": False}, "tagged", ("no-tool", "not-exercised")),
    ({"after_change": [(TOOLS_CHANGED, 10)]}, "only-requested", ("only-requested", "pass")),
    (
        {"after_change": [(TOOLS_CHANGED, 10), (TOOLS_CHANGED, 11)]},
        "only-requested",
        ("unrequested", "fail"),
    ),
    ({}, "only-requested", ("nothing-sent", "not-exercised")),
    ({}, "cancel-stops", ("stopped", "pass")),
    ({"after_cancel": [(TOOLS_CHANGED, 10)]}, "cancel-stops", ("continued", "fail")),
    ({"refused": True}, "cancel-stops", ("not-open", "not-exercised")),
    ({}, "ended-at-close", ("nothing", "informational")),
    ({"at_close": {"result": {"_meta": {SID: 11}}}}, "ended-at-close", ("result", "informational")),
    (
        {"at_close": {"error": {"code": -32000, "message": "closed"}}},
        "ended-at-close",
        ("error", "informational"),
    ),
]


@pytest.mark.parametrize(("case", "check", "want"), CASES)
def test_a_listen_stream_is_read_as_the_scenario_grades_it(
    tmp_path: Path, scenario: Scenario, case: dict[str, Any], check: str, want: tuple[str, str]
) -> None:
    assert judged(tmp_path, scenario, listened(**case), MODERN, check) == {check: want}
