"""Regressions for issue 9's judging items, each from a crafted transcript or scenario file.

Named for what was wrong: a request without a protocol version read as 2026-07-28, fails with
no MUST behind them, a close racing a request read as silence, an empty roots list failed, and
a crash before the first byte that hid either a harness problem or an SDK finding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _revisions
import pytest

from compare import peer
from compare._errors import CompareError
from compare.exchange._scenarios import Scenario, load_scenario_file, load_scenarios
from compare.judge import rules as _rules
from compare.judge._transcript import read_transcript
from compare.judge.rules import Context, _context
from compare.play._harness import HOSTS_DIR

from .test_judge import GOOD_URI, Tape
from .test_judge_early import SELF_OK, _judge, _probe


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


# -- 1. one era test --------------------------------------------------------------------------
def test_the_judge_and_the_peer_share_one_era_test() -> None:
    assert _context.is_modern is peer.is_modern


@pytest.mark.parametrize("version", [None, "None", "2025-06-18", 20260728, "zzz", ""])
def test_a_request_meta_without_a_modern_version_is_not_modern(
    tmp_path: Path, version: Any
) -> None:
    """A 2025-06-18 tools/call with _meta.progressToken once counted as 2026-07-28 because
    str(None) == "None" sorts after every date."""
    tape = Tape()
    tape.handshake({"roots": {}}, version="2025-06-18")
    meta: dict[str, Any] = {"progressToken": 7}
    if version is not None:
        meta[peer.META_VERSION] = version
    call = {"name": "probe", "arguments": {}, "_meta": meta}
    tape.add("in", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": call})
    (tmp_path / "transcript.jsonl").write_text(
        "".join(__import__("json").dumps(r) + "\n" for r in tape.records), encoding="utf-8"
    )
    known = _revisions.revisions()  # so the pins do have a modern era the version could claim
    ctx = Context(read_transcript(tmp_path / "transcript.jsonl"), {}, "2026-07-28", known)
    assert ctx.first_modern is not None
    assert ctx.modern_requests() == []
    assert _rules.RULES["mrtr-retried"].fn(ctx).name == "legacy"


# -- 4. fails need a MUST ---------------------------------------------------------------------
def test_an_empty_roots_list_is_informational_not_a_fail(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({"roots": {}})
    tape.request("roots", "roots/list", 1, {"result": {"roots": []}})
    result = tape.judge(tmp_path, scenarios["roots-list"])
    assert result["checks"]["workspace-root"]["outcome"] == "absent"
    assert result["checks"]["workspace-root"]["verdict"] == "informational"
    assert result["verdict"] != "fail"


def test_a_close_racing_the_request_is_closed_not_silence(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """The Gemini health check ends while the peer's roots/list is on its way."""
    tape = Tape()
    tape.handshake({}, version="2025-06-18")
    tape.note(event="step", index=1, step={"request": "roots/list", "label": "roots"})
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "method": "roots/list"})
    tape.note(event="stdin-closed")
    tape.note(event="step-done", index=1, label="roots", outcome="timeout", id=1, evidence=None)
    result = _judge(tape, tmp_path, scenarios["roots-undeclared"], "2025-06-18", SELF_OK)
    answer = result["checks"]["answer"]
    assert (answer["outcome"], answer["verdict"]) == ("closed", "informational")


def test_silence_on_an_open_connection_still_fails_with_its_must(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({}, version="2025-06-18")
    tape.request("roots", "roots/list", 1, None)
    result = _judge(tape, tmp_path, scenarios["roots-undeclared"], "2025-06-18", SELF_OK)
    answer = result["checks"]["answer"]
    assert (answer["outcome"], answer["verdict"]) == ("silence", "fail")
    assert any("**MUST**" in r["quote"] for r in answer["refs"])


def test_a_close_during_the_quiet_window_is_the_clients_own_end(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A CLI that ends after its own job ends in the quiet window, before any provocation."""
    tape = Tape()
    tape.handshake({})
    tape.note(event="step", index=1, step={"observe_s": 1.0, "label": "quiet"})
    tape.note(event="stdin-closed")
    tape.note(event="step-done", index=1, label="quiet", outcome="ok", id=None, evidence=None)
    result = _judge(tape, tmp_path, scenarios["unknown-notification"], "2025-11-25", SELF_OK)
    still = result["checks"]["still-responsive"]
    # nothing was put to the client before it left: not exercised (issue 36), never a fail
    assert (still["outcome"], still["verdict"]) == ("closed-before-probe", "not-exercised")


def test_a_close_after_the_quiet_window_names_the_control(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({})
    tape.note(event="step", index=1, step={"observe_s": 1.0, "label": "quiet"})
    tape.note(event="step-done", index=1, label="quiet", outcome="ok", id=None, evidence=None)
    _probe(tape)
    tape.note(event="stdin-closed")
    result = _judge(tape, tmp_path, scenarios["unknown-notification"], "2025-11-25", SELF_OK)
    still = result["checks"]["still-responsive"]
    assert still["verdict"] == "informational"
    assert "stayed open through the 1.0 s quiet window" in still["observed"]


def test_every_shipped_fail_and_non_strict_rests_on_normative_text(
    scenarios: dict[str, Scenario],
) -> None:
    """Loading already enforces it; this pins that the shipped files were checked at all."""
    from compare.exchange._scenarios import common_checks, in_window
    from compare.judge._grounds import pinned_clause, ungrounded
    from compare.pin import load_pins

    revisions = [r.name for r in load_pins().revisions]
    clause = pinned_clause()  # and each quote holds its whole clause
    graded = 0
    for scenario in scenarios.values():
        for check in [*scenario.checks, *common_checks(scenario.side)]:
            window = scenario.revisions
            plays = lambda r, w=window: in_window(r, w)  # noqa: E731 - one line, read once
            assert ungrounded(check, revisions, plays, clause) == []
            graded += sum(o["verdict"] in ("fail", "non-strict") for o in check.outcomes.values())
    assert graded > 10


SCENARIO = """\
id: demo
title: Demo
description: A scenario for the grounding lint.
revisions: {from: "2025-06-18", until: "2025-11-25"}
steps:
  - {await: notifications/initialized, label: initialized, timeout_s: 5}
  - {request: roots/list, label: roots, timeout_s: 5}
checks:
  - id: answer
    title: answer
    rule: undeclared-answer
    expected: "-32601"
    outcomes:
      method-not-found: {verdict: pass, means: ok}
      invalid-request: {verdict: non-strict, means: "-32600"}
      other-error: {verdict: informational, means: other}
      empty-list: {verdict: informational, means: empty}
      roots-returned: {verdict: informational, means: roots}
      silence: {verdict: fail, means: silence}
      closed: {verdict: informational, means: closed}
      not-asked: {verdict: informational, means: not asked}
      declared: {verdict: informational, means: declared}
      no-initialize: {verdict: error, means: "not run"}
      exited-before-initialize: {verdict: informational, means: exited}
      version-refused: {verdict: informational, means: refused}
    refs:
      - cite: "docs/specification/2025-06-18/client/roots.mdx:142-144"
        quote: "Clients **SHOULD** return standard JSON-RPC errors for common failure cases:
          - Client does not support roots: `-32601` (Method not found)"
        from: "2025-06-18"
        until: "2025-11-25"
        supports: [invalid-request]
      - cite: "docs/specification/2025-06-18/basic/index.mdx:27-28"
        quote: "All messages between MCP clients and servers **MUST** follow the
          JSON-RPC 2.0 specification."
        from: "2025-06-18"
        until: "2025-11-25"
        supports: [silence]
"""


def _load(tmp_path: Path, text: str) -> Scenario:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario_file(path)


def test_a_grounded_scenario_loads(tmp_path: Path) -> None:
    assert _load(tmp_path, SCENARIO).id == "demo"


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        # a fail whose only reference is a SHOULD
        ("supports: [silence]", "supports: [other-error]", "outcome silence is graded fail"),
        # a non-strict resting on a MUST sentence only
        ('quote: "Clients **SHOULD** return', 'quote: "Clients **MUST** return', "SHOULD"),
        # a reference that stops short of a revision the scenario plays
        (
            'until: "2025-11-25"\n        supports: [silence]',
            'until: "2025-06-18"\n        supports: [silence]',
            "for 2025-11-25",
        ),
    ],
)
def test_a_fail_or_non_strict_without_its_keyword_does_not_load(
    tmp_path: Path, old: str, new: str, said: str
) -> None:
    assert old in SCENARIO
    with pytest.raises(CompareError) as err:
        _load(tmp_path, SCENARIO.replace(old, new))
    assert said in err.value.message
    assert "check answer" in err.value.message


# -- whole clauses (issue 21): a quote holds the sentence that makes the behaviour a breach ----
STDIN_CUT = (
    '{cite: "docs/specification/2025-06-18/basic/transports.mdx:32", quote: "The client'
    " **MUST NOT** write anything to the server's `stdin` that is not a valid MCP\"}"
)
STDIN_WHOLE = (
    '{cite: "docs/specification/2025-06-18/basic/transports.mdx:32-33", quote: "The client'
    " **MUST NOT** write anything to the server's `stdin` that is not a valid MCP message.\"}"
)
LEAD_IN = (
    '{cite: "docs/specification/2025-06-18/basic/lifecycle.mdx:175", quote: "Both parties'
    ' **MUST**:"}'
)
LEAD_IN_ITEM = (
    '{cite: "docs/specification/2025-06-18/basic/lifecycle.mdx:175-178", quote: "Both parties'
    " **MUST**: - Respect the negotiated protocol version - Only use capabilities that were"
    ' successfully negotiated"}'
)
ITEM_ONLY = (
    '{cite: "docs/specification/2025-06-18/basic/lifecycle.mdx:178", quote: "Only use'
    ' capabilities that were successfully negotiated"}'
)


def _grounded_by(tmp_path: Path, *refs: str) -> Scenario:
    """The demo scenario with its silence fail resting on ``refs`` alone (every revision)."""
    head, _, _ = SCENARIO.partition("    refs:\n")
    body = "".join(
        f'      - {r[:-1]}, from: "2025-06-18", until: null, supports: [silence]}}\n' for r in refs
    )
    invalid = '      invalid-request: {verdict: non-strict, means: "-32600"}'
    text = head.replace(invalid, invalid.replace("non-strict", "informational")) + "    refs:\n"
    return _load(tmp_path, text + body)


def test_a_cut_quote_is_refused_with_the_whole_sentence_as_its_fix(tmp_path: Path) -> None:
    """The stdin sentence cut where the source wraps it: "that is not a valid MCP" stops
    before "message", the word that makes an invalid line a breach."""
    with pytest.raises(CompareError) as err:
        _grounded_by(tmp_path, STDIN_CUT)
    message = err.value.message
    assert "check answer: outcome silence (fail) rests on" in message
    assert "docs/specification/2025-06-18/basic/transports.mdx:32 “The client" in message
    assert "stops before the end of its sentence" in message
    assert (
        '{cite: "docs/specification/2025-06-18/basic/transports.mdx:32-33", quote: "The client'
        " **MUST NOT** write anything to the server's `stdin` that is not a valid MCP"
        ' message."}' in message
    )


def test_the_whole_stdin_sentence_over_its_two_lines_is_accepted(tmp_path: Path) -> None:
    assert _grounded_by(tmp_path, STDIN_WHOLE).id == "demo"


def test_a_cut_quote_is_refused_even_beside_a_whole_one(tmp_path: Path) -> None:
    with pytest.raises(CompareError) as err:
        _grounded_by(tmp_path, STDIN_WHOLE, STDIN_CUT)
    assert "transports.mdx:32 “" in err.value.message
    assert "transports.mdx:32-33 “" not in err.value.message.split("which is not")[0]


def test_a_lead_in_is_accepted_only_with_its_list_item(tmp_path: Path) -> None:
    with pytest.raises(CompareError) as alone:
        _grounded_by(tmp_path, LEAD_IN)
    assert "a lead-in" in alone.value.message
    assert "lifecycle.mdx:175-178" in alone.value.message  # the fix covers the list
    with pytest.raises(CompareError) as item:  # the item holds no MUST of its own
        _grounded_by(tmp_path, ITEM_ONLY)
    assert "quotes a MUST or MUST NOT" in item.value.message
    with pytest.raises(CompareError):  # side by side they are still a cut lead-in
        _grounded_by(tmp_path, LEAD_IN, ITEM_ONLY)
    assert _grounded_by(tmp_path, LEAD_IN_ITEM).id == "demo"


def test_a_wrapped_sentence_cited_by_its_first_line_only_is_refused(tmp_path: Path) -> None:
    """The quote must lie inside the cited lines: path:32 for a sentence over 32-33 is cut."""
    one_line = STDIN_WHOLE.replace(":32-33", ":32")
    with pytest.raises(CompareError) as err:
        _grounded_by(tmp_path, one_line)
    assert "transports.mdx:32-33" in err.value.message


# -- 2. the documented roots form: a finding only where the target says it is measured ----------
CRASH = {"ended_by": "self", "exit_code": 1, "ends": "self"}


def test_a_start_failure_is_an_error_unless_the_variant_measures_it(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    plain = _judge(Tape(), tmp_path, scenarios["roots-list"], "2025-11-25", CRASH)
    assert plain["verdict"] == "error"
    assert plain["checks"]["answered"]["outcome"] == "no-initialize"
    measured = _judge(
        Tape(),
        tmp_path,
        scenarios["roots-list"],
        "2025-11-25",
        CRASH,
        start_failure_is_finding=True,
    )
    assert measured["checks"]["answered"]["outcome"] == "exited-before-initialize"
    assert measured["verdict"] == "informational"
    assert "exited with 1" in measured["checks"]["answered"]["observed"]
    handshake = _judge(
        Tape(),
        tmp_path,
        scenarios["handshake"],
        "2025-11-25",
        CRASH,
        start_failure_is_finding=True,
    )
    assert handshake["verdict"] == "informational", handshake["reason"]
    assert (
        _judge(Tape(), tmp_path, scenarios["handshake"], "2025-11-25", CRASH)["verdict"] == "fail"
    )


def test_no_sdk_host_glues_file_scheme_to_a_raw_path() -> None:
    for host in HOSTS_DIR.iterdir():
        if host.suffix in (".py", ".mjs"):
            text = host.read_text(encoding="utf-8")
            assert '"file://" +' not in text and "'file://' +" not in text, host.name


def test_fastmcp_variants_pass_the_documented_path_and_the_platform_uri() -> None:
    from compare.exchange._targets import load_targets

    fastmcp = next(t for t in load_targets() if t.id == "fastmcp")
    assert fastmcp.variants["roots-documented"]["options"] == {"roots_form": "documented"}
    assert fastmcp.variants["roots-documented"]["features"] == fastmcp.variants["roots"]["features"]
    assert "roots-documented" in fastmcp.raw["start_failure_findings"]
    assert fastmcp.raw.get("roots_uri")
    assert GOOD_URI.startswith("file:///")
