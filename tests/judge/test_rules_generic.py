"""The generic rules (issue 22 item 4): the method, definition and capability come from the
check's ``with:``, and the loader refuses a parameter its rule does not take.

The rules are judged on crafted transcripts of a feature the shipped scenarios never name
(elicitation), so a pass here shows that nothing in the rules is roots-shaped; the loader
cases each break one parameter of an otherwise valid scenario and name the message a
maintainer reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare._errors import CompareError
from compare.exchange._scenarios import Scenario, load_scenario_file
from compare.judge._transcript import read_transcript
from compare.judge.rules import RULES, Context

from .test_judge import KNOWN, Tape

ASK = {"message": "Your name?", "requestedSchema": {"type": "object", "properties": {}}}
ACCEPTED = {"action": "accept", "content": {"name": "mcp-compare"}}

SCENARIO = """\
id: elicit
title: Elicit
description: A scenario about a feature no shipped scenario names.
revisions: {from: "2025-06-18", until: "2025-11-25"}
steps:
  - {await: notifications/initialized, label: initialized, timeout_s: 5}
  - {request: elicitation/create, label: ask, timeout_s: 5}
checks:
  - id: answered
    title: answered
    rule: request-answered
    with: {method: elicitation/create, capability: elicitation}
    expected: a result
    outcomes:
      result: {verdict: informational, means: answered}
      error: {verdict: informational, means: an error}
      silence: {verdict: informational, means: silence}
      closed: {verdict: informational, means: closed}
      not-asked: {verdict: informational, means: not asked}
      undeclared: {verdict: informational, means: no elicitation capability}
    refs: []
  - id: valid
    title: valid
    rule: result-valid
    with: {method: elicitation/create, definition: ElicitResult, capability: elicitation}
    expected: an ElicitResult
    outcomes:
      valid: {verdict: pass, means: validates}
      invalid: {verdict: fail, means: does not validate}
      no-result: {verdict: informational, means: no result}
      undeclared: {verdict: informational, means: no elicitation capability}
    refs:
      - client-stdin-valid-message
  - id: declares
    title: declares
    rule: capability-declared
    with: {capability: elicitation, member: form}
    expected: recorded
    outcomes:
      member-declared: {verdict: informational, means: with form}
      declared: {verdict: informational, means: without form}
      absent: {verdict: informational, means: none}
    refs: []
  - id: notified
    title: notified
    rule: notification-sent
    with: {method: notifications/roots/list_changed, after: ask}
    expected: recorded
    outcomes:
      sent: {verdict: informational, means: sent}
      missing: {verdict: informational, means: not sent}
    refs: []
"""


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _load(tmp_path: Path, text: str = SCENARIO) -> Scenario:
    path = tmp_path / "elicit.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario_file(path)


def _judged(tmp_path: Path, tape: Tape, revision: str = "2025-11-25") -> dict[str, Any]:
    return tape.judge(tmp_path, _load(tmp_path), revision)["checks"]


def _elicit(caps: dict[str, Any], reply: dict[str, Any] | None, version: str) -> Tape:
    tape = Tape()
    tape.handshake(caps, version)
    tape.note(event="step", index=1, step={"request": "elicitation/create", "label": "ask"})
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": ASK})
    evidence = tape.add("in", {"jsonrpc": "2.0", "id": 1, **reply}) if reply else None
    tape.note(
        event="step-done",
        index=1,
        label="ask",
        outcome="ok" if reply else "timeout",
        id=1,
        evidence=evidence,
    )
    return tape


@pytest.mark.parametrize("revision", ["2025-06-18", "2025-11-25"])
def test_an_elicitation_answered_with_a_valid_result_passes_at_each_revision(
    tmp_path: Path, revision: str
) -> None:
    tape = _elicit({"elicitation": {}}, {"result": ACCEPTED}, revision)
    checks = _judged(tmp_path, tape, revision)
    assert (checks["answered"]["outcome"], checks["answered"]["verdict"]) == (
        "result",
        "informational",
    )
    assert (checks["valid"]["outcome"], checks["valid"]["verdict"]) == ("valid", "pass")
    assert checks["valid"]["observed"] == f"valid ElicitResult at {revision}"
    assert checks["declares"]["outcome"] == "declared"


@pytest.mark.parametrize(
    ("reply", "answered", "valid"),
    [
        ({"result": {"action": "maybe"}}, "result", "invalid"),
        ({"error": {"code": -32601, "message": "no"}}, "error", "no-result"),
        (None, "silence", "no-result"),
    ],
)
def test_each_answer_gets_its_own_outcome(
    tmp_path: Path, reply: dict[str, Any] | None, answered: str, valid: str
) -> None:
    checks = _judged(tmp_path, _elicit({"elicitation": {"form": {}}}, reply, "2025-11-25"))
    assert checks["answered"]["outcome"] == answered
    assert checks["valid"]["outcome"] == valid
    assert checks["declares"]["outcome"] == "member-declared"
    if valid == "invalid":
        assert "action" in checks["valid"]["observed"]  # the model's error names the field


def test_a_client_that_did_not_declare_the_capability_reads_undeclared(tmp_path: Path) -> None:
    checks = _judged(tmp_path, _elicit({"roots": {}}, {"result": ACCEPTED}, "2025-11-25"))
    for check in ("answered", "valid"):
        assert checks[check]["outcome"] == "undeclared", checks[check]
        assert checks[check]["observed"] == "no elicitation capability"
    assert checks["declares"]["outcome"] == "absent"


def test_a_step_never_played_is_not_asked(tmp_path: Path) -> None:
    tape = Tape()
    tape.handshake({"elicitation": {}})
    tape.note(event="stdin-closed")
    checks = _judged(tmp_path, tape)
    assert checks["answered"]["outcome"] == "not-asked"
    assert checks["valid"]["outcome"] == "no-result"


def test_a_notification_counts_only_after_its_step(tmp_path: Path) -> None:
    changed = {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
    early = Tape()
    early.handshake({"elicitation": {}})
    early.add("in", changed)  # before the ask step began: does not count
    assert _judged(tmp_path, early)["notified"]["outcome"] == "missing"
    late = _elicit({"elicitation": {}}, {"result": ACCEPTED}, "2025-11-25")
    n = late.add("in", changed)
    got = _judged(tmp_path, late)["notified"]
    assert (got["outcome"], got["evidence"]) == ("sent", [n])


def _context(tmp_path: Path, tape: Tape) -> Context:
    path = tmp_path / "transcript.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in tape.records), encoding="utf-8")
    plan = {"revision": "2026-07-28", "answer_revision": "2026-07-28"}
    return Context(read_transcript(path), plan, "2026-07-28", KNOWN)


def test_capability_reads_initialize_and_the_2026_07_28_request_meta(tmp_path: Path) -> None:
    """One capability reader for both eras: initialize's capabilities, else the clientCapabilities
    a 2026-07-28 request carries in its _meta (there is no initialize there)."""
    legacy = Tape()
    legacy.handshake({"elicitation": {"form": {}}, "roots": True})
    ctx = _context(tmp_path, legacy)
    assert ctx.capability("elicitation") == {"form": {}}
    assert ctx.capability("roots") is None  # not an object: declares nothing a rule can read
    assert ctx.capability("sampling") is None
    modern = Tape()
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"url": {}}},
    }
    call = {"name": "t", "arguments": {}, "_meta": meta}
    modern.add("in", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    ctx = _context(tmp_path, modern)
    assert ctx.capability("elicitation") == {"url": {}}
    assert ctx.capability("roots") is None
    assert RULES["capability-declared"].fn(
        Context(ctx.tx, ctx.plan, ctx.revision, KNOWN, params={"capability": "elicitation"})
    ).name == ("declared")


# -- the loader -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "with: {method: elicitation/create, capability: elicitation}",
            "with: {method: elicitation/create, colour: red}",
            "checks.0.with.colour: rule request-answered has no parameter 'colour'",
        ),
        (
            "definition: ElicitResult, ",
            "",
            "checks.1.with: rule result-valid needs definition",
        ),
        (
            "definition: ElicitResult",
            "definition: ElicitationResult",
            "checks.1.with.definition: 'ElicitationResult' is not a schema definition at"
            " 2025-06-18, 2025-11-25",
        ),
        (
            'revisions: {from: "2025-06-18"',
            'revisions: {from: "2025-03-26"',
            "checks.0.with.capability: ClientCapabilities has no 'elicitation' at 2025-03-26",
        ),
        (
            "{request: elicitation/create, label: ask, timeout_s: 5}",
            "{request: sampling/createMessage, label: ask, timeout_s: 5}",
            "checks.0.with.method: no step of the scenario sends 'elicitation/create'",
        ),
        (
            "with: {method: notifications/roots/list_changed, after: ask}",
            "with: {method: notifications/roots/list_changed, after: asked}",
            "checks.3.with.after: no step is labelled 'asked'",
        ),
        (
            "with: {capability: elicitation, member: form}",
            "with: {member: form}",
            "checks.2.with: rule capability-declared needs capability",
        ),
        (
            "with: {method: notifications/roots/list_changed, after: ask}",
            "with: {method: notifications/roots/list_changed, member: listChanged}",
            "checks.3.with.member: only beside capability",
        ),
        (
            "      undeclared: {verdict: informational, means: no elicitation capability}\n"
            "    refs: []\n  - id: valid",
            "    refs: []\n  - id: valid",
            "ungraded: undeclared;",
        ),
        (
            "with: {method: elicitation/create, capability: elicitation}",
            "with: {method: elicitation/create}",
            "unknown: undeclared",
        ),
        (
            "with: {method: elicitation/create, capability: elicitation}",
            "with: {method: 7}",
            "checks.0.with.method",
        ),
    ],
)
def test_a_bad_parameter_is_a_load_error_naming_it(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in SCENARIO
    with pytest.raises(CompareError) as err:
        _load(tmp_path, SCENARIO.replace(old, new, 1))
    assert message in err.value.message, err.value.message


def test_with_on_a_rule_that_takes_no_parameters_is_refused(tmp_path: Path) -> None:
    text = SCENARIO.replace(
        "    rule: capability-declared\n    with: {capability: elicitation, member: form}",
        "    rule: speaks-modern\n    with: {capability: elicitation}",
    ).replace(
        "      member-declared: {verdict: informational, means: with form}\n"
        "      declared: {verdict: informational, means: without form}\n"
        "      absent: {verdict: informational, means: none}",
        "      modern: {verdict: informational, means: modern}\n"
        "      legacy: {verdict: informational, means: legacy}",
    )
    with pytest.raises(CompareError, match="rule speaks-modern takes no parameters"):
        _load(tmp_path, text)


def test_the_parameters_reach_the_judge_key(tmp_path: Path) -> None:
    """A changed parameter changes what the cell is judged by, so cached verdicts re-judge."""
    before = _load(tmp_path).file_hash
    after = _load(tmp_path, SCENARIO.replace("member: form", "member: url")).file_hash
    assert before != after


# -- a request embedded in an InputRequiredResult (2026-07-28) ---------------------------------
EMBEDDED = SCENARIO.replace(
    'revisions: {from: "2025-06-18", until: "2025-11-25"}',
    'revisions: {from: "2026-07-28", until: null}',
).replace(
    "  - {await: notifications/initialized, label: initialized, timeout_s: 5}\n"
    "  - {request: elicitation/create, label: ask, timeout_s: 5}\n",
    "  - {request: elicitation/create, label: ask, embed: answer, timeout_s: 5}\n",
)
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def _embedded_tape(retry: dict[str, Any] | None, *, asked: bool = True) -> Tape:
    """The peer's record of an embed step: armed, the client's tools/call answered with an
    InputRequiredResult holding the request under ``answer`` (when ``asked``), then the retry."""
    tape = Tape()
    tape.note(event="step", index=0, step={"request": "elicitation/create", "label": "ask"})
    tape.note(event="embed-armed", index=0, key="answer", request_state="s")
    call = {"name": "probe", "arguments": {}, "_meta": META}
    tape.add("in", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    if asked:
        ask = {"answer": {"method": "elicitation/create", "params": ASK}}
        result = {"resultType": "input_required", "inputRequests": ask, "requestState": "s"}
    else:
        result = {"resultType": "complete", "content": []}
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "result": result})
    evidence = None
    if retry is not None:
        again = {**call, "inputResponses": retry, "requestState": "s"}
        n = tape.add("in", {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": again})
        evidence = n if "answer" in retry else None  # the peer's step ends on its key only
    tape.note(
        event="step-done",
        index=0,
        label="ask",
        outcome="ok" if evidence else "timeout",
        id=None,
        evidence=evidence,
    )
    return tape


def _judge_embedded(tmp_path: Path, tape: Tape) -> dict[str, Any]:
    return tape.judge(tmp_path, _load(tmp_path, EMBEDDED), "2026-07-28")["checks"]


def test_an_embedded_request_is_answered_by_the_retrys_input_responses(tmp_path: Path) -> None:
    tape = _embedded_tape({"answer": ACCEPTED})
    checks = _judge_embedded(tmp_path, tape)
    assert checks["answered"]["outcome"] == "result"
    assert checks["answered"]["evidence"] == [len(tape.records) - 1]  # the retry line
    assert checks["valid"]["outcome"] == "valid"
    assert checks["valid"]["observed"] == "valid ElicitResult at 2026-07-28"
    assert checks["declares"]["outcome"] == "member-declared"  # from the request's _meta


def test_an_embedded_answer_is_validated_as_the_definition(tmp_path: Path) -> None:
    checks = _judge_embedded(tmp_path, _embedded_tape({"answer": {"action": "maybe"}}))
    assert (checks["answered"]["outcome"], checks["valid"]["outcome"]) == ("result", "invalid")


def test_a_retry_without_the_key_is_silence_and_no_input_required_result_is_not_asked(
    tmp_path: Path,
) -> None:
    checks = _judge_embedded(tmp_path, _embedded_tape({"other": ACCEPTED}))
    assert checks["answered"]["outcome"] == "silence"
    assert checks["valid"]["outcome"] == "no-result"
    never = _judge_embedded(tmp_path, _embedded_tape(None, asked=False))
    assert never["answered"]["outcome"] == "not-asked"
    assert "no 2026-07-28 tools/call" in never["answered"]["observed"]
