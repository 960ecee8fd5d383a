"""The rules of issue 40's utilities, from crafted transcripts: progress (progress-sent,
progress-increases), cancellation (cancel-honoured, cancel-progress), lines broken on purpose
(fault-answered, fault-answer-id, and how the wire checks leave what answers them alone),
error codes (wire-error-codes), ``_meta`` keys (wire-meta-keys) and list changes
(list-changed-sent, list-changed-declared).

Each case writes what the scripted client records (its steps, the server's lines between
them, with the seconds a cancel is timed by and the fault mark of a ``raw`` step) and asserts
both the outcome the rule names and the verdict the shipped scenario, or the common server
checks of ``_wire-server.yaml``, gives it at that revision: a grade moved in a scenario file
shows here. Between them the cases reach every outcome these rules name apart from the shared
gates (no-initialize, no-discover), which tests/judge/test_server_modern_rules.py covers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_server_lists_rules import opened
from .test_server_modern_rules import LEGACY, MODERN, ServerTape

TOOLS = {"tools": {}}
EARLY = "2024-11-05"
JUNE = "2025-06-18"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture
def scenarios(shipped_scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    return shipped_scenarios


class Clocked(ServerTape):
    """A ServerTape whose records carry the time :meth:`at` last set (seconds since the
    start: cancel-progress counts a grace period in them), and whose :meth:`fault` writes a
    ``raw`` step's line with the fault mark the scripted client records it with."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = 0.0

    def at(self, seconds: float) -> Clocked:
        self.clock = seconds
        return self

    def add(self, direction: str, message: Any, raw: str | None = None) -> int:
        n = super().add(direction, message, raw)
        self.records[-1]["t"] = self.clock
        return n

    def fault(self, label: str, index: int, text: str | None, marked: bool = True) -> int | None:
        """A raw step writing ``text`` as it is, its id the line's where the line parses to an
        object holding one; None: a step never played (the cell ended before it)."""
        if text is None:
            return None
        self.note(event="step", index=index, step={"raw": text, "label": label})
        n = self.add("out", None, raw=text)
        if marked:
            self.records[-1]["fault"] = True
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        rid = parsed.get("id") if isinstance(parsed, dict) else None
        self.note(event="step-done", index=index, label=label, outcome="ok", id=rid, evidence=n)
        return n

    def notify(self, label: str, index: int, method: str, params: dict[str, Any]) -> int:
        self.note(event="step", index=index, step={"notify": method, "label": label})
        n = self.add("out", {"jsonrpc": "2.0", "method": method, "params": params})
        self.note(event="step-done", index=index, label=label, outcome="ok", id=None, evidence=n)
        return n


def begin(caps: dict[str, Any] = TOOLS, revision: str = LEGACY) -> Clocked:
    """The cell's opening, as ``opened`` writes it (server/discover at 2026-07-28), on a tape
    that keeps time; before 2026-07-28 a serverInfo with its version, so that wire-valid
    reads the opening valid and what it says is about the lines under test."""
    tape = Clocked()
    if revision == MODERN:
        tape.records = opened(caps, revision).records
        return tape
    info = {"name": "s", "version": "0"}
    result = {"protocolVersion": revision, "capabilities": caps, "serverInfo": info}
    tape.step("initialize", -1, {"id": 1, "method": "initialize"}, {"result": result})
    tape.add("out", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return tape


def judged(
    tmp: Path, scenario: Scenario, tape: ServerTape, revision: str, *checks: str
) -> dict[str, tuple[str, str]]:
    """(outcome, verdict) of each check named, the scenario's own or a common server check."""
    got = tape.judge(tmp, scenario, revision)["checks"]
    for check in checks:
        assert check in got, f"{check} is not judged at {revision}: {sorted(got)}"
        assert got[check]["verdict"] != "error", got[check]
    return {c: (str(got[c]["outcome"]), str(got[c]["verdict"])) for c in checks}


def message(**fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", **fields}


def error(rid: Any, code: Any, text: str = "m") -> dict[str, Any]:
    return {"id": rid, "error": {"code": code, "message": text}}


# -- progress -------------------------------------------------------------------------------

LONG = {"name": "trigger-long-running-operation", "inputSchema": {"type": "object"}}
TOKEN = "mcp-compare-progress-1"
DONE = {"result": {"content": [{"type": "text", "text": "done"}]}}
REFUSED = {"error": {"code": -32602, "message": "no such tool"}}


def progress(value: Any, token: Any = TOKEN, text: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"progressToken": token, "progress": value, "total": 4}
    if text is not None:
        params["message"] = text
    return message(method="notifications/progress", params=params)


def tool_call(rid: int, token: Any, seconds: int = 2) -> dict[str, Any]:
    params: dict[str, Any] = {"name": LONG["name"], "arguments": {"duration": seconds}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return message(id=rid, method="tools/call", params=params)


def progressed(
    during: list[dict[str, Any]],
    reply: dict[str, Any] | None = DONE,
    after: tuple[dict[str, Any], ...] = (),
    revision: str = LEGACY,
) -> Clocked:
    """server-progress's steps: the call with a token, the server's lines ``during`` it, its
    ``reply`` (None: still pending at the step's end) and lines ``after`` it."""
    tape = begin(TOOLS, revision)
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, {"result": {"tools": [LONG]}})
    tape.note(event="step", index=1, step={"label": "call-progress"})
    tape.add("out", tool_call(3, TOKEN))
    for line in during:
        tape.add("in", line)
    n = tape.add("in", message(id=3, **reply)) if reply is not None else None
    outcome = "timeout" if reply is None else "ok" if "result" in reply else "error"
    tape.note(event="step-done", index=1, label="call-progress", outcome=outcome, id=3,
              evidence=n)  # fmt: skip
    for line in after:
        tape.add("in", line)
    tape.step("call-plain", 2, {k: v for k, v in tool_call(4, None).items() if k != "jsonrpc"},
              DONE)  # fmt: skip
    return tape


PROGRESS_CASES = [
    # (during the call, its reply, after it) -> progress-sent, progress-increases
    ([progress(1), progress(2), progress(3), progress(4)], DONE, (),
     ("sent", "informational"), ("increasing", "pass")),
    ([progress(0.5, text="step 1 of 4"), progress(1.5)], DONE, (),
     ("with-message", "informational"), ("increasing", "pass")),
    ([progress(2), progress(1)], DONE, (),
     ("sent", "informational"), ("not-increasing", "fail")),
    ([progress(1), progress(1)], DONE, (),
     ("sent", "informational"), ("not-increasing", "fail")),
    ([progress(1), progress("2")], DONE, (),
     ("sent", "informational"), ("not-increasing", "fail")),
    ([progress(1), progress(True)], DONE, (),
     ("sent", "informational"), ("not-increasing", "fail")),
    ([progress(1)], DONE, (),
     ("sent", "informational"), ("one", "not-exercised")),
    ([], DONE, (),
     ("none", "informational"), ("none", "not-exercised")),
    ([], REFUSED, (),
     ("refused", "not-exercised"), ("refused", "not-exercised")),
    # progress before an error is progress all the same
    ([progress(1), progress(2)], REFUSED, (),
     ("sent", "informational"), ("increasing", "pass")),
    # still pending when the step ended: what came while it waited is read
    ([progress(1), progress(2)], None, (),
     ("sent", "informational"), ("increasing", "pass")),
    # another token's progress, and progress after the response, are wire-progress's
    ([progress(1, token="other")], DONE, (progress(0), progress(-1)),
     ("none", "informational"), ("none", "not-exercised")),
    ([progress(1, token=1)], DONE, (),  # 1 is not the string token the request carried
     ("none", "informational"), ("none", "not-exercised")),
    ([progress(3), progress(5)], DONE, (progress(4),),
     ("sent", "informational"), ("increasing", "pass")),
]  # fmt: skip


@pytest.mark.parametrize(("during", "reply", "after", "sent", "increases"), PROGRESS_CASES)
def test_progress_is_read_while_the_request_is_pending(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    during: list[dict[str, Any]],
    reply: dict[str, Any],
    after: tuple[dict[str, Any], ...],
    sent: tuple[str, str],
    increases: tuple[str, str],
) -> None:
    tape = progressed(during, reply, after)
    got = judged(tmp_path, scenarios["server-progress"], tape, LEGACY,
                 "progress-sent", "progress-increases")  # fmt: skip
    assert got == {"progress-sent": sent, "progress-increases": increases}


def test_progress_that_goes_down_fails_at_2026_07_28_too(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = progressed([progress(3), progress(2)], revision=MODERN)
    got = judged(tmp_path, scenarios["server-progress"], tape, MODERN, "progress-increases")
    assert got["progress-increases"] == ("not-increasing", "fail")


def test_the_decrease_is_shown_in_the_observation(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = progressed([progress(1), progress(3), progress(2)])
    got = tape.judge(tmp_path, scenarios["server-progress"], LEGACY)["checks"]
    assert got["progress-increases"]["observed"].startswith("progress 2 after 3")


def test_a_server_without_the_tool_reads_no_tool(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = begin()
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, {"result": {"tools": []}})
    tape.note(event="step", index=1, step={"label": "call-progress"})
    tape.note(event="step-done", index=1, label="call-progress", outcome="no-tool")
    got = judged(tmp_path, scenarios["server-progress"], tape, LEGACY,
                 "progress-sent", "progress-increases")  # fmt: skip
    assert got == {
        "progress-sent": ("no-tool", "not-exercised"),
        "progress-increases": ("no-tool", "not-exercised"),
    }


# -- cancellation ---------------------------------------------------------------------------

CANCEL_TOKEN = "mcp-compare-cancel-1"
REASON = "mcp-compare: the caller no longer needs the answer"
CANCEL_AT = 3.0


def cancelled(
    before: list[tuple[float, dict[str, Any]]],
    after: list[tuple[float, dict[str, Any]]],
    revision: str = LEGACY,
    *,
    sent: bool = True,
    listed: bool = True,
    closed: bool = False,
) -> Clocked:
    """server-cancel's steps: the call left open (wait: false) at 0.5 s, the server's lines
    ``before`` our cancel at 3 s and ``after`` it (each at its second), the tools/list at 9.5 s.
    ``sent`` false: the cancel step found no request to cancel; ``listed`` false: no tool was
    called; ``closed``: the server closed its output before the tools/list."""
    tape = begin(TOOLS, revision)
    tools = [LONG] if listed else []
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, {"result": {"tools": tools}})
    tape.at(0.5).note(event="step", index=1, step={"label": "long-call", "wait": False})
    if listed:
        tape.add("out", tool_call(3, CANCEL_TOKEN, 6))
        tape.note(event="step-done", index=1, label="long-call", outcome="sent", id=3,
                  evidence=None)  # fmt: skip
    else:
        tape.note(event="step-done", index=1, label="long-call", outcome="no-tool")
    for seconds, line in before:
        tape.at(seconds).add("in", line)
    tape.at(CANCEL_AT).note(event="step", index=3, step={"cancel": "long-call", "label": "cancel"})
    if sent and listed:
        params = {"requestId": 3, "reason": REASON}
        n = tape.add("out", message(method="notifications/cancelled", params=params))
        tape.note(event="step-done", index=3, label="cancel", outcome="ok", id=None, evidence=n)
    else:
        tape.note(event="step-done", index=3, label="cancel", outcome="no-request", id=None,
                  evidence=None)  # fmt: skip
    for seconds, line in after:
        tape.at(seconds).add("in", line)
    tape.at(9.5)
    if closed:
        tape.note(event="server-closed")
    tape.step("still-there", 5, {"id": 4, "method": "tools/list"},
              None if closed else {"result": {"tools": []}})  # fmt: skip
    return tape


ANSWER = message(id=3, **DONE)


def tick(value: Any, token: Any = CANCEL_TOKEN) -> dict[str, Any]:
    """Progress for the call server-cancel cancels."""
    return progress(value, token)


CANCEL_CASES = [
    # (server lines before the cancel, after it, tape options) -> cancel-honoured,
    # cancel-progress
    ([(1.0, tick(1)), (2.0, tick(2))], [], {}, "no-response", "stopped"),
    # a notification already on its way when the cancel went is no fault
    ([(1.0, tick(1))], [(3.5, tick(2))], {}, "no-response", "stopped"),
    ([(1.0, tick(1))], [(4.5, tick(2)), (5.5, tick(3))], {},
     "no-response", "continued"),
    ([(1.0, tick(1))], [(3.2, ANSWER)], {}, "answered", "stopped"),
    ([(1.0, tick(1))], [(4.5, tick(2)), (6.0, ANSWER)], {}, "answered", "continued"),
    ([(1.0, tick(1)), (2.5, ANSWER)], [], {}, "answered-first", "answered-first"),
    ([], [], {}, "no-response", "no-progress"),
    ([(1.0, tick(1, token="other"))], [], {}, "no-response", "no-progress"),
    ([(1.0, tick(1))], [], {"sent": False}, "not-cancelled", "not-cancelled"),
    ([], [], {"listed": False}, "no-tool", "no-tool"),
    ([(1.0, tick(1))], [], {"closed": True}, "closed", "stopped"),
]  # fmt: skip

#: The verdicts server-cancel gives each outcome; only the answer and the progress that go on
#: after a cancel are graded otherwise at 2026-07-28, whose stdio transport forbids them.
CANCEL_GRADES = {
    "no-response": "pass",
    "stopped": "pass",
    "answered-first": "not-exercised",
    "not-cancelled": "not-exercised",
    "no-progress": "not-exercised",
    "no-tool": "not-exercised",
    "closed": "informational",
}
AFTER_CANCEL = {LEGACY: "non-strict", MODERN: "fail"}


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
@pytest.mark.parametrize(("before", "after", "options", "honoured", "stopped"), CANCEL_CASES)
def test_a_cancelled_request_gets_no_answer_and_its_progress_stops(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    revision: str,
    before: list[tuple[float, dict[str, Any]]],
    after: list[tuple[float, dict[str, Any]]],
    options: dict[str, bool],
    honoured: str,
    stopped: str,
) -> None:
    grade = {**CANCEL_GRADES, "answered": AFTER_CANCEL[revision]}
    grade["continued"] = AFTER_CANCEL[revision]
    suffix = "-modern" if revision == MODERN else ""
    checks = (f"no-answer-after-cancel{suffix}", f"progress-stops{suffix}")
    tape = cancelled(before, after, revision, **options)
    got = judged(tmp_path, scenarios["server-cancel"], tape, revision, *checks)
    assert got == {checks[0]: (honoured, grade[honoured]), checks[1]: (stopped, grade[stopped])}


def test_the_server_that_goes_on_answering_after_a_cancel_is_still_there(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = cancelled([(1.0, tick(1))], [(3.2, ANSWER)])
    got = judged(tmp_path, scenarios["server-cancel"], tape, LEGACY, "still-there")
    assert got["still-there"] == ("result", "pass")


def test_late_progress_is_timed_from_the_cancel(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = cancelled([(1.0, tick(1))], [(5.5, tick(2))])
    got = tape.judge(tmp_path, scenarios["server-cancel"], LEGACY)["checks"]["progress-stops"]
    assert "first 2.5 s after it" in got["observed"]


# -- lines broken on purpose ----------------------------------------------------------------

B0, B1, B2, B3, B4 = (f"mcp-compare-b{i}" for i in range(5))
#: What a server that follows JSON-RPC answers to each fault of server-bad-messages (the
#: cancel that names no request gets nothing).
GOOD = {
    "broken-json": error(None, -32700, "Parse error"),
    "method-number": error(B1, -32600, "Invalid Request"),
    "wrong-jsonrpc": error(B2, -32600, "Invalid Request"),
    "unknown-method": error(B3, -32601, "Method not found"),
    "listen": error(B4, -32601, "Method not found"),
}


def raws(scenario: Scenario) -> dict[str, str]:
    """The scenario's raw steps by label, as it writes them."""
    return {str(s["label"]): str(s["raw"]) for s in scenario.steps if "raw" in s}


def bad(
    scenario: Scenario,
    changes: dict[str, dict[str, Any] | None] | None = None,
    revision: str = LEGACY,
    *,
    at_end: bool = False,
    marked: bool = True,
    lines: dict[str, str | None] | None = None,
    notified: dict[str, Any] | None = None,
    ping: dict[str, Any] | None = None,
    closed: bool = False,
) -> Clocked:
    """server-bad-messages' steps: each raw line (``lines`` replaces some) answered as
    :data:`GOOD` with ``changes`` (None: no answer) right after it (``at_end``: after the
    unknown notification), what answers the notification (``notified``) and the ping's
    answer (``ping``, by default a result)."""
    answers = {**GOOD, **(changes or {})}
    tape = begin(TOOLS, revision)
    later: list[dict[str, Any]] = []
    for index, (label, text) in enumerate({**raws(scenario), **(lines or {})}.items()):
        tape.fault(label, index, text, marked)
        answer = answers.get(label)
        if answer is not None and at_end:
            later.append(answer)
        elif answer is not None:
            tape.add("in", message(**answer))
        # the scenario's tools/list after each line: what answers the line comes before its answer
        listing = {"id": 10 + index, "method": "tools/list"}
        tape.step(f"sync-{index}", index, listing, {"result": {"tools": []}})
    if closed:
        tape.note(event="server-closed")
        return tape
    params = {}
    tape.notify("unknown-notification", 6, "notifications/mcp-compare-unknown", params)
    for answer in later:
        tape.add("in", message(**answer))
    if notified is not None:
        tape.add("in", message(**notified))
    listing = {"id": 2, "method": "tools/list"}
    tape.step("still-there", 8, listing, ping or {"result": {"tools": []}})
    return tape


FAULT_CHECKS = ("parse-error", "invalid-request", "wrong-jsonrpc", "unknown-method",
                "listen-legacy", "cancel-without-id")  # fmt: skip
ID_CHECKS = ("invalid-request-id", "unknown-method-id")
WIRE = ("wire-ids", "wire-notification-reply", "wire-valid")


SILENT: dict[str, dict[str, Any] | None] = dict.fromkeys(GOOD)
METHOD_NOT_FOUND = error(None, -32601, "Method not found")


@pytest.mark.parametrize("at_end", [False])
def test_a_server_that_follows_json_rpc_is_recorded_and_passes(
    tmp_path: Path, scenarios: dict[str, Scenario], at_end: bool
) -> None:
    """Each answer right after its line, before the answer to the tools/list that follows it
    (the scenario's sync requests bound the window a null-id answer is read in)."""
    scenario = scenarios["server-bad-messages"]
    got = judged(tmp_path, scenario, bad(scenario, at_end=at_end), LEGACY,
                 *FAULT_CHECKS, *ID_CHECKS, "still-there", *WIRE)  # fmt: skip
    assert got == {
        **{c: ("code", "informational") for c in FAULT_CHECKS[:-1]},
        "cancel-without-id": ("silence", "pass"),
        "invalid-request-id": ("same-id", "informational"),
        "unknown-method-id": ("same-id", "pass"),
        "still-there": ("result", "pass"),
        "wire-ids": ("matched", "pass"),
        "wire-notification-reply": ("no-reply", "pass"),
        "wire-valid": ("valid", "pass"),
    }


def test_the_null_id_answer_to_a_fault_is_not_held_against_the_server(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """The parse error answered with a null id is the fault's (parse-error reads it): without
    the fault mark the same lines read as a response to nothing, which shows the wire checks
    skip it because of the pairing, not by chance."""
    scenario = scenarios["server-bad-messages"]
    only = {**SILENT, "broken-json": GOOD["broken-json"]}
    got = judged(tmp_path, scenario, bad(scenario, only), LEGACY, "parse-error", *WIRE)
    assert got == {
        "parse-error": ("code", "informational"),
        "wire-ids": ("matched", "pass"),
        "wire-notification-reply": ("no-reply", "pass"),
        "wire-valid": ("valid", "pass"),
    }
    unmarked = bad(scenario, only, marked=False)
    got = judged(tmp_path, scenario, unmarked, LEGACY, "parse-error", *WIRE)
    assert got["parse-error"] == ("not-sent", "not-exercised")  # no raw line of ours
    # our notifications/initialized came before it: a reply to that, as far as it can tell
    assert got["wire-notification-reply"] == ("replied", "fail")


def test_a_reply_to_a_real_notification_is_still_counted(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """Every fault answered and no cancel naming nothing written: the null-id reply after our
    unknown notification is the notification's, and wire-notification-reply fails it."""
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, lines={"cancel-no-id": None}, notified=METHOD_NOT_FOUND)
    got = judged(tmp_path, scenario, tape, LEGACY, "wire-notification-reply", "wire-ids")
    assert got == {
        "wire-notification-reply": ("replied", "fail"),
        "wire-ids": ("matched", "pass"),
    }


def test_a_reply_to_the_unknown_notification_is_not_taken_for_the_cancels(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, notified=METHOD_NOT_FOUND)
    got = judged(tmp_path, scenario, tape, LEGACY, "cancel-without-id", "wire-notification-reply")
    assert got == {
        "cancel-without-id": ("silence", "pass"),
        "wire-notification-reply": ("replied", "fail"),
    }


def test_a_null_id_for_a_readable_id_fails_where_the_broken_json_got_nothing(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, {"broken-json": None, "unknown-method": error(None, -32601)})
    got = judged(tmp_path, scenario, tape, LEGACY, "parse-error", "unknown-method-id")
    assert got == {
        "parse-error": ("silence", "informational"),
        "unknown-method-id": ("null-id", "fail"),
    }


def test_an_answer_with_another_id_pairs_with_no_fault(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """Recorded as it reads now: a fault is answered by its own id or a null one, so an
    answer with another id is no answer to it (fault-answer-id's other-id is never reached)
    and wire-ids reads it as a response to nothing."""
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, {"unknown-method": error("other", -32601)})
    got = judged(tmp_path, scenario, tape, LEGACY, "unknown-method-id", "unknown-method",
                 "wire-ids")  # fmt: skip
    assert got == {
        "unknown-method-id": ("no-answer", "not-exercised"),
        "unknown-method": ("silence", "fail"),
        "wire-ids": ("unknown-id", "fail"),
    }


def test_an_answer_to_a_fault_with_an_id_is_not_an_unknown_id(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """method-number's answer carries the line's id, which no request of ours had (its method
    is no string): paired with the fault it is no stray; without the mark it is one."""
    scenario = scenarios["server-bad-messages"]
    assert judged(tmp_path, scenario, bad(scenario), LEGACY,
                  "wire-ids")["wire-ids"] == ("matched", "pass")  # fmt: skip
    unmarked = bad(scenario, marked=False)
    assert judged(tmp_path, scenario, unmarked, LEGACY,
                  "wire-ids")["wire-ids"] == ("unknown-id", "fail")  # fmt: skip


BAD_CASES = [
    # (answers other than GOOD's, other raw lines, check) -> outcome, verdict at 2025-11-25
    ({"broken-json": error(None, "-32700")}, {}, "parse-error", ("not-integer", "fail")),
    ({"broken-json": error(None, -32700.0)}, {}, "parse-error", ("not-integer", "fail")),
    ({"broken-json": error(None, -32600)}, {}, "parse-error", ("other-code", "informational")),
    ({"broken-json": {"id": None, "result": {}}}, {}, "parse-error",
     ("result", "informational")),
    ({"broken-json": None}, {}, "parse-error", ("silence", "informational")),
    ({}, {"broken-json": None}, "parse-error", ("not-sent", "not-exercised")),
    ({"method-number": error(None, -32600)}, {}, "invalid-request", ("code", "informational")),
    # a reader of the request whole finds it malformed: its id is recorded, not graded
    ({"method-number": error(None, -32600)}, {}, "invalid-request-id",
     ("null-id", "informational")),
    ({"method-number": error(B1, -32600)}, {}, "invalid-request-id",
     ("same-id", "informational")),
    # a well-formed request for an unknown method: its id can be read, so a null id fails
    ({"unknown-method": error(None, -32601)}, {}, "unknown-method-id", ("null-id", "fail")),
    ({"unknown-method": error(B3, -32601)}, {}, "unknown-method-id", ("same-id", "pass")),
    ({"unknown-method": None}, {}, "unknown-method-id", ("no-answer", "not-exercised")),
    ({}, {"unknown-method": '{"jsonrpc":"2.0","method":"mcp-compare/no-such-method"}'},
     "unknown-method-id", ("unreadable", "not-exercised")),
    ({"method-number": error(B1, -32602)}, {}, "invalid-request",
     ("other-code", "informational")),
    ({"method-number": {"id": B1, "result": {}}}, {}, "invalid-request",
     ("result", "informational")),
    ({"method-number": None}, {}, "invalid-request", ("silence", "informational")),
    ({"method-number": None}, {}, "invalid-request-id", ("no-answer", "not-exercised")),
    ({}, {"method-number": '{"jsonrpc":"2.0","method":7}'}, "invalid-request-id",
     ("unreadable", "not-exercised")),
    ({}, {"method-number": None}, "invalid-request-id", ("not-sent", "not-exercised")),
    ({"wrong-jsonrpc": {"id": B2, "result": {}}}, {}, "wrong-jsonrpc",
     ("result", "informational")),
    ({"unknown-method": error(B3, "Method not found")}, {}, "unknown-method",
     ("not-integer", "fail")),
    ({"unknown-method": None}, {}, "unknown-method", ("silence", "fail")),
    ({"listen": error(B4, -32602)}, {}, "listen-legacy", ("other-code", "informational")),
    ({"cancel-no-id": error(None, -32602)}, {}, "cancel-without-id", ("code", "fail")),
    ({"cancel-no-id": error(None, -32600)}, {}, "cancel-without-id", ("other-code", "fail")),
    ({"cancel-no-id": {"id": None, "result": {}}}, {}, "cancel-without-id", ("result", "fail")),
]  # fmt: skip


@pytest.mark.parametrize(("answers", "lines", "check", "want"), BAD_CASES)
def test_what_answers_each_fault_is_recorded_and_graded(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    answers: dict[str, dict[str, Any]],
    lines: dict[str, str | None],
    check: str,
    want: tuple[str, str],
) -> None:
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, answers, lines=lines)
    assert judged(tmp_path, scenario, tape, LEGACY, check)[check] == want


def test_a_server_that_closes_after_a_fault_reads_closed(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, SILENT, closed=True)
    got = judged(tmp_path, scenario, tape, LEGACY, "parse-error", "unknown-method")
    assert got == {
        "parse-error": ("closed", "informational"),
        "unknown-method": ("closed", "informational"),
    }


def test_answering_the_cancel_that_names_nothing_is_non_strict_at_2024_11_05(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, {"cancel-no-id": error(None, -32602)}, EARLY)
    got = tape.judge(tmp_path, scenario, EARLY)["checks"]
    assert "cancel-without-id" not in got and "invalid-request-id" not in got
    early = got["cancel-without-id-early"]
    assert (early["outcome"], early["verdict"]) == ("code", "non-strict")


def test_a_raw_batch_keeps_its_fault_mark(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    scenario = scenarios["server-bad-messages"]
    batch = '[{"jsonrpc":"1.0","id":"mcp-compare-b2","method":"ping"}]'
    tape = bad(scenario, {"wrong-jsonrpc": error(B2, -32600)}, lines={"wrong-jsonrpc": batch})
    got = judged(tmp_path, scenario, tape, LEGACY, "wrong-jsonrpc")
    assert got["wrong-jsonrpc"] == ("code", "informational")


# -- error codes (2026-07-28) ---------------------------------------------------------------

ERROR_CASES = [
    # (codes the server answers with) -> wire-error-codes
    ([-32002], ("retired", "fail")),
    ([-32042], ("retired", "fail")),
    ([-32050], ("reserved-undefined", "fail")),
    ([-32099], ("reserved-undefined", "fail")),
    ([-32010], ("legacy-band", "non-strict")),
    ([-32000], ("legacy-band", "non-strict")),
    ([-32021], ("defined", "pass")),
    ([-32601, -32700], ("defined", "pass")),
    ([42], ("other", "informational")),
    ([-32100], ("jsonrpc-reserved", "non-strict")),
    ([-32768], ("jsonrpc-reserved", "non-strict")),
    ([-32769], ("other", "informational")),
    ([-1, 42], ("other", "informational")),
    (["-32601"], ("not-integer", "fail")),
    ([None], ("not-integer", "fail")),
    ([], ("none", "not-exercised")),
    # worst first
    ([42, -32010, -32002], ("retired", "fail")),
    ([-32010, -32050], ("reserved-undefined", "fail")),
    ([42, "x", -32010], ("not-integer", "fail")),
    ([42, -32010], ("legacy-band", "non-strict")),
]


@pytest.mark.parametrize(("codes", "want"), ERROR_CASES)
def test_error_codes_are_held_to_the_bands_of_2026_07_28(
    tmp_path: Path, scenarios: dict[str, Scenario], codes: list[Any], want: tuple[str, str]
) -> None:
    """Each code answers one request of ours (a tools/list step each)."""
    scenario = scenarios["server-meta-keys"]
    tape = begin(TOOLS, MODERN)
    for i, code in enumerate(codes):
        tape.step(f"ask-{i}", i, {"id": 10 + i, "method": "tools/list"}, error(10 + i, code))
    got = judged(tmp_path, scenario, tape, MODERN, "wire-error-codes")
    assert got["wire-error-codes"] == want


def test_error_codes_are_not_read_before_2026_07_28(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = begin(TOOLS, LEGACY)
    tape.step("ask", 0, {"id": 10, "method": "tools/list"}, error(10, -32002))
    assert "wire-error-codes" not in tape.judge(tmp_path, scenarios["server-meta-keys"])["checks"]


def test_the_codes_a_revision_defines_come_from_its_schema() -> None:
    from compare.judge.rules.errors import JSONRPC_CODES, defined_codes

    assert {-32020, -32021, -32022} <= defined_codes(MODERN)
    assert defined_codes(EARLY) >= JSONRPC_CODES
    assert -32042 in defined_codes(LEGACY) and -32042 not in defined_codes(EARLY)
    assert defined_codes("1999-01-01") == JSONRPC_CODES


# -- _meta keys -----------------------------------------------------------------------------

TRACE = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"


def with_meta(revision: str, *metas: dict[str, Any]) -> Clocked:
    """server-meta-keys' two lists, the first answered with a result whose ``_meta`` is each
    of ``metas`` in turn (one on the result, the next on its first tool)."""
    tape = begin(TOOLS, revision)
    tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
    result: dict[str, Any] = {"tools": [tool]}
    if metas:
        result["_meta"] = metas[0]
    if len(metas) > 1:
        tool["_meta"] = metas[1]
    tape.step("list-with-keys", 0, {"id": 2, "method": "tools/list"}, {"result": result})
    tape.step("list-plain", 1, {"id": 3, "method": "tools/list"}, {"result": {"tools": []}})
    return tape


META_CASES = [
    # (revision, the _meta objects) -> the wire-meta-keys check of that revision
    (JUNE, [{"com.example/trace": "1", "progress": 2}], ("well-formed", "pass")),
    (JUNE, [{"bad key/": 1}], ("malformed", "fail")),
    (JUNE, [{"-x/y": 1}], ("malformed", "fail")),
    (JUNE, [{"com.example/-name": 1}], ("malformed", "fail")),
    (JUNE, [{"ok": 1}, {"com.example./x": 1}], ("malformed", "fail")),  # nested, empty label
    (JUNE, [{"mcp.dev/x": 1}], ("reserved-own", "informational")),
    (JUNE, [{"io.modelcontextprotocol/foo": 1}], ("well-formed", "pass")),  # forward only
    (JUNE, [], ("none", "not-exercised")),
    (LEGACY, [{"io.modelcontextprotocol/foo": 1}], ("reserved-own", "informational")),
    (LEGACY, [{"mcp.dev/x": 1}], ("well-formed", "pass")),  # reverse only
    (LEGACY, [{"com.example.mcp/x": 1}], ("well-formed", "pass")),
    (LEGACY, [{"bad key/": 1, "io.modelcontextprotocol/foo": 2}], ("malformed", "fail")),
    (LEGACY, [{"traceparent": "nope"}], ("well-formed", "pass")),  # no trace rule yet
    (EARLY, [{"bad key/": 1}], ("well-formed", "informational")),  # no key rules yet
    (EARLY, [], ("none", "informational")),
    (MODERN, [{"traceparent": "nope"}], ("bad-trace", "fail")),
    (MODERN, [{"traceparent": TRACE.upper()}], ("bad-trace", "fail")),
    (MODERN, [{"traceparent": 7}], ("bad-trace", "fail")),
    (MODERN, [{"traceparent": "ff" + TRACE[2:]}], ("bad-trace", "fail")),
    (MODERN, [{"traceparent": "00-" + "0" * 32 + TRACE[35:]}], ("bad-trace", "fail")),
    (MODERN, [{"traceparent": TRACE}], ("well-formed", "pass")),
    (MODERN, [{"traceparent": TRACE, "io.modelcontextprotocol/foo": 1}],
     ("reserved-own", "informational")),
    (MODERN, [{"traceparent": "nope", "bad key/": 1}], ("malformed", "fail")),
]  # fmt: skip

META_CHECK = {
    EARLY: "wire-meta-keys-early",
    JUNE: "wire-meta-keys",
    LEGACY: "wire-meta-keys-reverse",
    MODERN: "wire-meta-keys-modern",
}


@pytest.mark.parametrize(("revision", "metas", "want"), META_CASES)
def test_meta_keys_are_held_to_the_key_format_of_the_revision(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    revision: str,
    metas: list[dict[str, Any]],
    want: tuple[str, str],
) -> None:
    check = META_CHECK[revision]
    tape = with_meta(revision, *metas)
    assert judged(tmp_path, scenarios["server-meta-keys"], tape, revision, check)[check] == want


def test_a_reserved_key_the_schema_names_is_the_specs_own(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A key under the reserved prefix that the revision's schema spells out (2026-07-28's
    protocol version key) is MCP's own use, not a server's."""
    key = "io.modelcontextprotocol/protocolVersion"
    check = META_CHECK[MODERN]
    tape = with_meta(MODERN, {key: MODERN})
    got = judged(tmp_path, scenarios["server-meta-keys"], tape, MODERN, check)
    assert got[check] == ("well-formed", "pass")


def test_every_key_is_listed_whatever_the_grade(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = with_meta(JUNE, {"b/x": 1, "a": 2}, {"c.d/e": 3})
    got = tape.judge(tmp_path, scenarios["server-meta-keys"], JUNE)["checks"]["wire-meta-keys"]
    assert got["observed"] == "keys: a, b/x, c.d/e"


def test_keys_in_reads_meta_objects_at_any_depth_and_stops_at_a_hostile_one() -> None:
    from compare.judge.rules.meta import keys_in, malformed, reserved

    value = {"_meta": {"a": 1}, "x": [{"y": {"_meta": {"b": 2, "c": {"_meta": {"d": 3}}}}}]}
    assert sorted(keys_in(value)) == ["a", "b", "c", "d"]
    deep: dict[str, Any] = {"_meta": {"deep": 1}}
    for _ in range(60):
        deep = {"x": deep}
    assert keys_in(deep) == []
    assert keys_in({"_meta": "not an object"}) == []
    assert not malformed("") and not malformed("com.example/") and not malformed("a.b-c/d_e.f")
    assert malformed("com..example/x") and malformed("a/b/c") and malformed("x_")
    assert reserved("modelcontextprotocol.io/x", "forward")
    assert not reserved("com.mcp/x", "forward") and reserved("com.mcp/x", "reverse")
    assert not reserved("mcp/x", "reverse") and not reserved("plain", "reverse")
    assert not reserved("mcp.dev/x", "")


# -- list changes ---------------------------------------------------------------------------

RESOURCES = {"tools": {}, "resources": {"listChanged": True}}
FIRST = {"uri": "demo://a", "name": "a"}
ADDED = {"uri": "demo://added", "name": "mcp-compare.txt.gz"}
LIST_CHANGED = message(method="notifications/resources/list_changed")
GZIP = {"name": "gzip-file-as-resource", "inputSchema": {"type": "object"}}


def listed_twice(
    after: list[Any] | None,
    between: tuple[dict[str, Any], ...] = (),
    caps: dict[str, Any] = RESOURCES,
    *,
    early: tuple[dict[str, Any], ...] = (),
    late: tuple[dict[str, Any], ...] = (),
    tool: bool = True,
    revision: str = JUNE,
) -> Clocked:
    """server-list-changed's steps: the resources listed (one), the tool that adds one, the
    server's lines ``between`` it and the second list, which holds ``after`` (None: no
    answer). ``early`` lines come before the tool call, ``late`` ones after the second list
    began; ``tool`` false: no tool to call."""
    tape = begin(caps, revision)
    tools = [GZIP] if tool else []
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, {"result": {"tools": tools}})
    tape.step("resources-before", 1, {"id": 3, "method": "resources/list"},
              {"result": {"resources": [FIRST]}})  # fmt: skip
    for line in early:
        tape.add("in", line)
    if tool:
        call = {"id": 4, "method": "tools/call", "params": {"name": GZIP["name"]}}
        tape.step("add-resource", 2, call, {"result": {"content": []}})
    else:
        tape.note(event="step", index=2, step={"label": "add-resource"})
        tape.note(event="step-done", index=2, label="add-resource", outcome="no-tool")
    for line in between:
        tape.add("in", line)
    reply = {"result": {"resources": after}} if after is not None else None
    tape.step("resources-after", 4, {"id": 5, "method": "resources/list"}, reply)
    for line in late:
        tape.add("in", line)
    return tape


LIST_CASES = [
    # (second list, lines between, options) -> list-changed-sent
    ([FIRST, ADDED], (LIST_CHANGED,), {}, ("notified", "pass")),
    ([FIRST, ADDED], (), {}, ("changed-silently", "non-strict")),
    ([ADDED], (), {}, ("changed-silently", "non-strict")),  # as many items, another one
    ([FIRST], (), {}, ("unchanged", "not-exercised")),
    ([FIRST], (LIST_CHANGED,), {}, ("notified-unchanged", "informational")),
    (None, (LIST_CHANGED,), {}, ("not-listed", "not-exercised")),
    ([FIRST, ADDED], (), {"tool": False}, ("no-tool", "not-exercised")),
    ([FIRST, ADDED], (LIST_CHANGED,), {"caps": {"tools": {}, "resources": {}}},
     ("undeclared", "not-exercised")),
    ([FIRST, ADDED], (), {"caps": {"tools": {}}}, ("undeclared", "not-exercised")),
    # only the notification between the call and the second list counts
    ([FIRST, ADDED], (), {"early": (LIST_CHANGED,), "late": (LIST_CHANGED,)},
     ("changed-silently", "non-strict")),
    ([FIRST, ADDED], (message(method="notifications/tools/list_changed"),), {},
     ("changed-silently", "non-strict")),
]  # fmt: skip


@pytest.mark.parametrize(("after", "between", "options", "want"), LIST_CASES)
def test_a_list_that_changed_is_announced_between_the_two_lists(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    after: list[Any] | None,
    between: tuple[dict[str, Any], ...],
    options: dict[str, Any],
    want: tuple[str, str],
) -> None:
    tape = listed_twice(after, between, **options)
    got = judged(tmp_path, scenarios["server-list-changed"], tape, JUNE, "resources-changed")
    assert got["resources-changed"] == want


DECLARED_CASES = [
    # (capabilities, notifications) -> list-changed-declared at 2024-11-05 and at 2025-06-18
    ({"tools": {}, "resources": {}}, (LIST_CHANGED,),
     ("undeclared-sent", "non-strict"), ("undeclared-sent", "fail")),
    ({"tools": {}}, (LIST_CHANGED,),
     ("undeclared-sent", "non-strict"), ("undeclared-sent", "fail")),
    ({"tools": {}, "resources": {"listChanged": False}}, (LIST_CHANGED,),
     ("undeclared-sent", "non-strict"), ("undeclared-sent", "fail")),
    (RESOURCES, (LIST_CHANGED, message(method="notifications/tools/list_changed")),
     ("undeclared-sent", "non-strict"), ("undeclared-sent", "fail")),
    (RESOURCES, (LIST_CHANGED,), ("declared-sent", "pass"), ("declared-sent", "pass")),
    ({**RESOURCES, "tools": {"listChanged": True}, "prompts": {"listChanged": True}},
     (message(method="notifications/prompts/list_changed"),
      message(method="notifications/tools/list_changed")),
     ("declared-sent", "pass"), ("declared-sent", "pass")),
    (RESOURCES, (), ("none", "not-exercised"), ("none", "not-exercised")),
]  # fmt: skip


@pytest.mark.parametrize(("caps", "sent", "early", "later"), DECLARED_CASES)
def test_list_changed_only_for_a_list_declared_with_list_changed(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    caps: dict[str, Any],
    sent: tuple[dict[str, Any], ...],
    early: tuple[str, str],
    later: tuple[str, str],
) -> None:
    scenario = scenarios["server-list-changed"]
    for revision, check, want in ((EARLY, "wire-list-changed-early", early),
                                  (JUNE, "wire-list-changed", later)):  # fmt: skip
        tape = listed_twice([FIRST, ADDED], sent, caps, revision=revision)
        assert judged(tmp_path, scenario, tape, revision, check)[check] == want, revision


def test_list_changed_is_read_in_every_server_scenario_until_2025_11_25(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A common check: the progress scenario's cell reads it as well, and 2026-07-28 (where
    list_changed rides a subscriptions/listen stream) has neither window."""
    tape = progressed([progress(1), LIST_CHANGED])
    got = judged(tmp_path, scenarios["server-progress"], tape, LEGACY, "wire-list-changed")
    assert got["wire-list-changed"] == ("undeclared-sent", "fail")
    tape = progressed([progress(1), LIST_CHANGED], revision=MODERN)
    modern = tape.judge(tmp_path, scenarios["server-progress"], MODERN)["checks"]
    assert not {"wire-list-changed", "wire-list-changed-early"} & set(modern)


# -- a server's own cancellations (wire-server-cancels) -------------------------------------

ROOTS_ASKED = {"jsonrpc": "2.0", "id": 7, "method": "roots/list"}


@pytest.mark.parametrize(
    ("named", "answered_first", "want"),
    [
        (7, False, ("own-pending", "pass")),
        (7, True, ("not-pending", "fail")),
        (8, False, ("not-pending", "fail")),
        (None, False, ("not-pending", "fail")),
    ],
)
def test_a_server_cancels_only_its_own_pending_request(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    named: Any,
    answered_first: bool,
    want: tuple[str, str],
) -> None:
    """The server asks roots/list and gives up on it: its cancellation must name that
    request while it still waits; one naming an answered or never-sent id fails."""
    scenario = scenarios["server-meta-keys"]
    tape = begin()
    tape.add("in", ROOTS_ASKED)
    if answered_first:
        tape.add("out", {"jsonrpc": "2.0", "id": 7, "result": {"roots": []}})
    params = {} if named is None else {"requestId": named}
    tape.add("in", message(method="notifications/cancelled", params=params))
    assert judged(tmp_path, scenario, tape, LEGACY, "wire-server-cancels") == {
        "wire-server-cancels": want
    }


def test_a_server_that_cancels_nothing_is_not_tested(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    got = judged(tmp_path, scenarios["server-meta-keys"], begin(), LEGACY, "wire-server-cancels")
    assert got == {"wire-server-cancels": ("none", "not-exercised")}


def test_a_null_id_answer_after_the_next_requests_answer_is_no_faults(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """The request after each faulty line bounds the window its null-id answer is read in: a
    parse error the server answers only after that request's answer (with every later line
    answered by its own id) is paired with no line of ours, so it reads as a response
    without an id after our notification."""
    scenario = scenarios["server-bad-messages"]
    tape = bad(scenario, {"broken-json": None}, notified=error(None, -32700, "Parse error"))
    got = judged(tmp_path, scenario, tape, LEGACY, "parse-error", "wire-notification-reply")
    assert got == {
        "parse-error": ("silence", "informational"),
        "wire-notification-reply": ("replied", "fail"),
    }


# -- block types of tool results (server-tool-content block-types) ------------------------

LINK = {"type": "resource_link", "uri": "demo://a", "name": "a"}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
TEXT = {"type": "text", "text": "t"}


@pytest.mark.parametrize(
    ("revision", "blocks", "want"),
    [
        (LEGACY, [TEXT, LINK], ("known", "pass")),
        ("2024-11-05", [TEXT], ("known", "pass")),
        ("2024-11-05", [TEXT, LINK], ("newer-type", "fail")),
        ("2024-11-05", [AUDIO], ("newer-type", "fail")),
        ("2025-03-26", [AUDIO], ("known", "pass")),
        ("2025-03-26", [LINK], ("newer-type", "fail")),
        (LEGACY, [], ("no-blocks", "not-exercised")),
    ],
)
def test_tool_result_blocks_are_held_to_the_revisions_types(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    revision: str,
    blocks: list[dict[str, Any]],
    want: tuple[str, str],
) -> None:
    scenario = scenarios["server-tool-content"]
    tape = begin(TOOLS, revision)
    call = {"id": 3, "method": "tools/call", "params": {"name": "get-resource-links"}}
    tape.step("call-links", 1, call, {"result": {"content": blocks}})
    assert judged(tmp_path, scenario, tape, revision, "block-types") == {"block-types": want}
