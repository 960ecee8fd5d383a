"""The server rules of the lifecycle, logging and elicitation server scenarios, from crafted
transcripts: server-version, server-info, server-log-threshold, server-requests and
server-asks-undeclared with the method it is given.

Each case writes what the scripted client would have recorded and asserts the outcome the rule
names, and that the scenario grades it (the grade is read from the scenario file). Between them
the cases reach every outcome each rule names here; the real servers' cells are asserted line
by line in tests/play/test_real_servers.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios

from .test_judge import Tape
from .test_server_modern_rules import LEGACY, ServerTape


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios(pinned_spec: Path) -> dict[str, Scenario]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        return {s.id: s for s in load_scenarios()}


def opened(proposed: str, reply: dict[str, Any] | None) -> ServerTape:
    """Our initialize proposing ``proposed``, the server's ``reply`` (None: no answer)."""
    tape = ServerTape()
    params = {"protocolVersion": proposed, "capabilities": {}, "clientInfo": {"name": "c"}}
    tape.step("initialize", -1, {"id": 1, "method": "initialize", "params": params}, reply)
    if reply is not None and "result" in reply:
        tape.add("out", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return tape


def result(protocol: str = LEGACY, **info: Any) -> dict[str, Any]:
    """An initialize result at ``protocol`` whose serverInfo holds ``info`` over a name and
    version."""
    server = {"name": "s", "version": "1", **info}
    caps = {"logging": {}}
    return {"result": {"protocolVersion": protocol, "capabilities": caps, "serverInfo": server}}


def judged(tmp: Path, scenario: Scenario, check: str, tape: ServerTape, **plan: Any) -> str:
    got = tape.judge(tmp, scenario, LEGACY, **plan)["checks"][check]
    declared = next(c for c in scenario.checks if c.id == check).outcomes
    assert got["outcome"] in declared, got
    return str(got["outcome"])


@pytest.mark.parametrize(
    ("proposed", "reply", "expected"),
    [
        ("2099-01-01", result("2025-11-25"), "pinned"),
        ("2099-01-01", result("2099-01-01"), "same"),
        ("2099-01-01", result("1.0"), "unpinned"),
        (
            "2099-01-01",
            {"error": {"code": -32602, "message": "Unsupported protocol version"}},
            "error",
        ),
        ("2099-01-01", None, "unanswered"),
    ],
)
def test_server_version_compares_our_proposal_with_the_answer(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    proposed: str,
    reply: dict[str, Any] | None,
    expected: str,
) -> None:
    tape = opened(proposed, reply)
    assert judged(tmp_path, scenarios["server-version"], "unknown-version", tape) == expected


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({}, "name-version"),
        ({"title": "S", "icons": []}, "extended"),
        ({"version": None}, "incomplete"),
    ],
)
def test_server_info_lists_what_serverinfo_carries(
    tmp_path: Path, scenarios: dict[str, Scenario], info: dict[str, Any], expected: str
) -> None:
    assert (
        judged(tmp_path, scenarios["server-ping"], "server-info", opened(LEGACY, result(**info)))
        == expected
    )


def test_a_serverinfo_without_a_name_is_incomplete(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    reply = result()
    del reply["result"]["serverInfo"]["name"]
    tape = opened(LEGACY, reply)
    assert judged(tmp_path, scenarios["server-ping"], "server-info", tape) == "incomplete"


def logging_tape(control: list[str], after: list[str]) -> ServerTape:
    """setLevel debug, messages at ``control``'s levels, setLevel emergency, then ``after``."""
    tape = opened(LEGACY, result())
    rid = 2
    for label, level, levels in (
        ("every-level", "debug", control),
        ("set-level", "emergency", after),
    ):
        request = {"id": rid, "method": "logging/setLevel", "params": {"level": level}}
        tape.step(label, rid, request, {"result": {}})
        for name in levels:
            message = {"level": name, "data": f"a {name} message"}
            tape.add("in", {"jsonrpc": "2.0", "method": "notifications/message", "params": message})
        rid += 1
    return tape


@pytest.mark.parametrize(
    ("control", "after", "expected"),
    [
        (["info"], [], "honoured"),
        (["debug", "alert"], ["emergency"], "honoured"),
        (["info"], ["emergency", "warning"], "below"),
        (["info"], ["loud"], "below"),
        ([], ["debug"], "silent"),
    ],
)
def test_server_log_threshold_reads_each_window_apart(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    control: list[str],
    after: list[str],
    expected: str,
) -> None:
    tape = logging_tape(control, after)
    assert judged(tmp_path, scenarios["server-log-threshold"], "threshold", tape) == expected


def test_a_server_without_logging_is_not_held_to_a_level(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    reply = result()
    reply["result"]["capabilities"] = {}
    tape = opened(LEGACY, reply)
    assert judged(tmp_path, scenarios["server-log-threshold"], "threshold", tape) == "undeclared"


def elicited(asks: bool, tool: str = "trigger-elicitation-request") -> ServerTape:
    tape = opened(LEGACY, result())
    tape.note(event="step", index=1, step={"label": "call"})
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool}}
    tape.add("out", call)
    if asks:
        tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": {}})
    # a roots/list is not what these checks watch
    tape.add("in", {"jsonrpc": "2.0", "id": 9, "method": "roots/list"})
    tape.add("in", {"jsonrpc": "2.0", "id": 2, "result": {"content": []}})
    tape.note(event="step-done", index=1, label="call", outcome="ok", id=2, evidence=None)
    return tape


@pytest.mark.parametrize(
    ("asks", "declared", "tool", "expected"),
    [
        (True, {}, "trigger-elicitation-request", "asked"),
        (False, {}, "trigger-elicitation-request", "not-asked"),
        (True, {"elicitation": {}}, "trigger-elicitation-request", "declared"),
        # issue 36: a server with none of the tools known to elicit, called on its first tool,
        # never asking shows nothing; not a pass
        (False, {}, "echo", "no-trigger"),
        # asking is a finding whatever tool was called
        (True, {}, "echo", "asked"),
    ],
)
def test_elicitation_asked_of_a_client_that_declared_none(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    asks: bool,
    declared: dict[str, Any],
    tool: str,
    expected: str,
) -> None:
    scenario = scenarios["server-elicits-undeclared"]
    tape = elicited(asks, tool)
    plan = {"capabilities": declared, "steps": scenario.steps}
    assert judged(tmp_path, scenario, "asks-undeclared", tape, **plan) == expected


def test_an_untriggered_server_reads_not_exercised_not_pass(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """The cell of a server that lists no tool known to sample is not exercised, with why."""
    scenario = scenarios["server-samples-undeclared"]
    tape = elicited(False, "echo")
    got = tape.judge(tmp_path, scenario, "2025-11-25", capabilities={}, steps=scenario.steps)
    check = got["checks"]["asks-undeclared-must"]
    assert (check["outcome"], check["verdict"]) == ("no-trigger", "not-exercised")
    assert "'echo'" in check["observed"] and "trigger-sampling-request" in check["observed"]
    assert got["verdict"] == "not-exercised"
    assert got["reason"].startswith("asks-undeclared-must: the server lists none of the tools")


@pytest.mark.parametrize(("asks", "expected"), [(True, "asked"), (False, "not-asked")])
def test_server_requests_records_whether_elicitation_came(
    tmp_path: Path, scenarios: dict[str, Scenario], asks: bool, expected: str
) -> None:
    caps = {"elicitation": {"form": {}}}
    tape = elicited(asks)
    assert (
        judged(tmp_path, scenarios["server-elicits"], "asks", tape, capabilities=caps) == expected
    )


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"ended_by": "self", "code": 0, "after_s": 0.03}, "on-close"),
        ({"ended_by": "sigterm", "code": -15, "after_s": 2.01}, "on-sigterm"),
        ({"ended_by": "sigkill", "code": -9}, "on-sigkill"),
        (None, "not-recorded"),
    ],
)
def test_server_exit_reads_the_scripted_clients_exit_note(
    tmp_path: Path, scenarios: dict[str, Scenario], fields: dict[str, Any] | None, expected: str
) -> None:
    tape = opened(LEGACY, result())
    if fields is not None:
        tape.note(event="server-exit", group_left=False, **fields)
    assert judged(tmp_path, scenarios["server-ping"], "shutdown", tape) == expected


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({"name": "c", "version": "1"}, "name-version"),
        ({"name": "c", "version": "1", "websiteUrl": "https://example.org"}, "extended"),
        ({"name": "c"}, "incomplete"),
    ],
)
def test_client_info_fields_read_the_clients_initialize(
    tmp_path: Path, scenarios: dict[str, Scenario], info: dict[str, Any], expected: str
) -> None:
    """The client side of the same question, from the client's own initialize request."""
    tape = Tape()
    params = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": info}
    tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    got = tape.judge(tmp_path, scenarios["handshake"])["checks"]["client-info-fields"]
    assert got["outcome"] == expected


URL_ASKED = {"mode": "url", "elicitationId": "e1", "url": "https://x.invalid/", "message": "m"}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            {"error": {"code": -32042, "message": "m", "data": {"elicitations": [URL_ASKED]}}},
            "valid",
        ),
        ({"error": {"code": -32042, "message": "m", "data": {}}}, "invalid"),
        (
            {
                "error": {
                    "code": -32042,
                    "message": "m",
                    "data": {"elicitations": [{"mode": "form"}]},
                }
            },
            "invalid",
        ),
        ({"error": {"code": -32603, "message": "m"}}, "other"),
        ({"result": {"content": []}}, "other"),
        (None, "unanswered"),
    ],
)
def test_server_error_valid_validates_the_url_required_error(
    tmp_path: Path, scenarios: dict[str, Scenario], reply: dict[str, Any] | None, expected: str
) -> None:
    tape = opened(LEGACY, result())
    call = {"id": 2, "method": "tools/call", "params": {"name": "trigger-url-elicitation"}}
    tape.step("call", 1, call, reply)
    scenario = scenarios["server-url-required"]
    assert judged(tmp_path, scenario, "error-valid", tape) == expected
