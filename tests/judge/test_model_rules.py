"""model-tool-result from crafted model logs: what a client handed its model after the stand-in
model asked it for a tool call, as client-tool-result, client-tool-error and client-tool-link
read it.

Each case writes the cell's transcript (the client calls the tool on the peer) and the model
endpoint's log as the endpoint writes it (which request was answered with the call, and the
client's later requests), and asserts the outcome the rule names and the grade the scenario
gives it; between them the cases reach every outcome the rule names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario
from compare.judge._judge import MODEL_LOG

from .test_judge import Tape

CALL = {"name": "tool_call", "arguments": {"name": "mcp__peer__x"}, "id": "call_mcpc_1"}
WRITTEN = {"text": "```peer.x\n{}\n```\n", "id": "call_mcpc_1"}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def entry(n: int, messages: list[dict[str, Any]], call: dict[str, Any] | None = None) -> Any:
    said = {"tool_call": call} if call else {}
    body = {"model": "m", "messages": messages}
    return {"n": n, "method": "POST", "path": "/v1/chat/completions", "body": body, **said}


def judged(
    tmp: Path, scenario: Scenario, log: list[Any], revision: str = "2025-11-25"
) -> dict[str, Any]:
    tape = Tape()
    tape.handshake({})
    tape.add("in", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "x"}})
    tape.add("out", {"jsonrpc": "2.0", "id": 2, "result": {"content": []}})
    (tmp / MODEL_LOG).write_text(
        "".join(json.dumps(e) + "\n" for e in log) + "not json\n", encoding="utf-8"
    )
    checks: dict[str, Any] = tape.judge(tmp, scenario, revision)["checks"]
    grades = {c.id: c.outcomes for c in scenario.checks}
    for cid, check in checks.items():
        if cid in grades:
            assert check["outcome"] in grades[cid], check
    return checks


def answered(content: Any) -> list[Any]:
    """The log of a client that got our call in its first request and answered it so."""
    user = {"role": "user", "content": "hi"}
    asked = {"role": "assistant", "content": None, "tool_calls": [{"id": "call_mcpc_1"}]}
    reply = {"role": "tool", "tool_call_id": "call_mcpc_1", "content": content}
    return [entry(1, [user], CALL), entry(2, [user]), entry(3, [user, asked, reply])]


@pytest.mark.parametrize(
    ("content", "text", "structured"),
    [
        ("text-marker-5b1e", "holds", "lacks"),
        ([{"type": "text", "text": '{"marker":"structured-marker-9c4d"}\ntext-marker-5b1e'}],
         "holds", "holds"),
        ([{"type": "text", "text": "TEXT-MARKER-5B1E"}], "holds", "lacks"),
        ([{"type": "image_url", "image_url": {"url": "data:,"}}], "lacks", "lacks"),
    ],
)  # fmt: skip
def test_the_answer_to_our_call_is_read_for_each_marker(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    content: Any,
    text: str,
    structured: str,
) -> None:
    checks = judged(tmp_path, shipped_scenarios["client-tool-result"], answered(content))
    assert checks["called"]["outcome"] == "sent"
    assert checks["text-to-model"]["outcome"] == text
    assert checks["structured-to-model"]["outcome"] == structured
    assert (
        "model request 3, the answer to tool_call (call_mcpc_1)"
        in (checks["text-to-model"]["observed"])
    )


def test_a_call_written_in_text_is_answered_by_the_messages_after_it(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    user = {"role": "user", "content": "hi"}
    ours = {"role": "assistant", "content": [{"type": "text", "text": WRITTEN["text"]}]}
    result = {"role": "system", "content": [{"type": "text", "text": "fault-marker-3e8a"}]}
    log = [entry(1, [user], WRITTEN), entry(2, [user, ours, result])]
    checks = judged(tmp_path, shipped_scenarios["client-tool-error"], log)
    assert (checks["error-to-model"]["outcome"], checks["error-to-model"]["verdict"]) == (
        "holds",
        "pass",
    )
    assert checks["error-named"]["outcome"] == "lacks"


@pytest.mark.parametrize(
    ("log", "outcome", "verdict"),
    [
        ([entry(1, [{"role": "user", "content": "hi"}])], "not-offered", "not-exercised"),
        ([entry(1, [{"role": "user", "content": "hi"}], CALL),
          entry(2, [{"role": "user", "content": "title this"}])], "not-returned", "non-strict"),
        (answered("Error: the tool failed"), "lacks", "non-strict"),
        (answered("MCP tool reported tool error: fault-marker-3e8a"), "holds", "pass"),
    ],
)  # fmt: skip
def test_an_error_that_never_reaches_the_model_is_graded_from_2025_11_25(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    log: list[Any],
    outcome: str,
    verdict: str,
) -> None:
    scenario = shipped_scenarios["client-tool-error"]
    checks = judged(tmp_path, scenario, log)
    assert (checks["error-to-model"]["outcome"], checks["error-to-model"]["verdict"]) == (
        outcome,
        verdict,
    )
    earlier = judged(tmp_path, scenario, log, "2025-06-18")
    assert "error-to-model" not in earlier
    assert earlier["error-to-model-recorded"]["outcome"] == outcome
    assert earlier["error-to-model-recorded"]["verdict"] in ("informational", "not-exercised")


def test_a_tool_never_called_is_not_read_for_what_reached_the_model(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    """No tools/call on the wire: whatever the model got, no result of the tool was in it
    (a client that refused to run the call, or never connected to the server)."""
    tape = Tape()
    tape.handshake({})
    (tmp_path / MODEL_LOG).write_text(
        "".join(json.dumps(e) + "\n" for e in answered("refused: link-marker-64d0")), "utf-8"
    )
    checks = tape.judge(tmp_path, shipped_scenarios["client-tool-link"])["checks"]
    assert checks["called"]["outcome"] == "missing"
    link = checks["link-to-model"]
    assert (link["outcome"], link["verdict"]) == ("not-called", "not-exercised")
    assert link["observed"].startswith("follows from check called (missing)")


def test_a_cell_without_a_model_log_offered_nothing(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    checks = judged(tmp_path, shipped_scenarios["client-tool-link"], [])
    assert checks["link-to-model"]["outcome"] == "not-offered"


def test_a_responses_request_carries_the_answer_as_a_function_call_output(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    """The Responses API (Codex): the result comes back as an input item with our call id."""
    called = {"name": "x", "arguments": {}, "namespace": "mcp__peer", "id": "call_mcpc_1"}
    output = {"type": "function_call_output", "call_id": "call_mcpc_1",
              "output": 'Output:\n{"marker":"structured-marker-9c4d"}'}  # fmt: skip
    log = [
        {"n": 1, "body": {"input": [{"type": "message"}]}, "tool_call": called},
        {"n": 2, "body": {"input": [{"type": "message"}, {"type": "function_call"}, output]}},
    ]
    checks = judged(tmp_path, shipped_scenarios["client-tool-result"], log)
    assert checks["structured-to-model"]["outcome"] == "holds"
    assert checks["text-to-model"]["outcome"] == "lacks"


def test_a_client_that_refused_the_cells_revision_reads_as_the_handshake_gate_says(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    """A CLI that asks for 2025-11-25 and leaves when the peer answers 2026-07-28 never
    offered the peer's tool: that is the version refusal, not a finding about its model."""
    tape = Tape()
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c"}}
    tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    result = {"protocolVersion": "2026-07-28", "capabilities": {}, "serverInfo": {"name": "p"}}
    tape.add("out", {"jsonrpc": "2.0", "id": 0, "result": result})
    (tmp_path / MODEL_LOG).write_text(json.dumps(answered("x")[0]) + "\n", encoding="utf-8")
    checks = tape.judge(tmp_path, shipped_scenarios["client-tool-error"], "2026-07-28")["checks"]
    got = checks["error-to-model"]
    assert (got["outcome"], got["verdict"]) == ("version-refused", "informational")


@pytest.mark.parametrize("with_id", [True, False])
def test_a_gemini_request_carries_the_answer_as_a_function_response(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario], with_id: bool
) -> None:
    """The Gemini API: the result comes back as a functionResponse part, with our call's id or,
    from a client that drops it, under the function's name."""
    called = {"name": "mcp_peer_x", "arguments": {}, "id": "call_mcpc_1"}
    response: dict[str, Any] = {"name": "mcp_peer_x", "response": {"error": "fault-marker-3e8a"}}
    if with_id:
        response["id"] = "call_mcpc_1"
    hi = {"role": "user", "parts": [{"text": "hi"}]}
    back = {"role": "user", "parts": [{"functionResponse": response}]}
    log = [
        {"n": 1, "body": {"contents": [hi]}, "tool_call": called},
        {"n": 2, "body": {"contents": [hi]}},
        {"n": 3, "body": {"contents": [hi, back]}},
    ]
    checks = judged(tmp_path, shipped_scenarios["client-tool-error"], log)
    assert checks["error-to-model"]["outcome"] == "holds"
    assert checks["error-named"]["outcome"] == "holds"


@pytest.mark.parametrize("flagged", [True, False])
def test_an_anthropic_request_carries_the_answer_as_a_tool_result_block(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario], flagged: bool
) -> None:
    """The Anthropic Messages API: the result comes back as a tool_result block with our
    call's id; its is_error flag tells the model the call failed, so a raised flag names the
    error and a lowered one does not, whatever the text."""
    called = {"name": "mcp__peer__x", "arguments": {}, "id": "call_mcpc_1"}
    hi = {"role": "user", "content": "hi"}
    asked = {"role": "assistant", "content": [{"type": "tool_use", "id": "call_mcpc_1"}]}
    text = [{"type": "text", "text": "fault-marker-3e8a"}]
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": "call_mcpc_1", "content": text}
    if flagged:
        block["is_error"] = True
    back = {"role": "user", "content": [block]}
    log = [
        {"n": 1, "body": {"messages": [hi]}, "tool_call": called},
        {"n": 2, "body": {"messages": [hi, asked, back]}},
    ]
    checks = judged(tmp_path, shipped_scenarios["client-tool-error"], log)
    assert checks["error-to-model"]["outcome"] == "holds"
    assert checks["error-named"]["outcome"] == ("holds" if flagged else "lacks")
