"""The elicitation scenarios against real SDK clients, and what each verdict rests on.

Four SDK hosts of three languages play every elicitation scenario at 2025-11-25 (and the
embedded ones at 2026-07-28) through the harness. For every check the judge graded, the test
reads the transcript line the check names as its evidence and asserts that the raw text says
what the outcome claims: a result is a response to the peer's own elicitation/create, a
refusal carries the code, a decline says decline and a cancel cancel, a declared mode is in
the initialize line, a valid result validates again here, and each of twelve rounds echoes
the state it was last given. Beside that, the few facts these SDKs were measured to
do differently (the ts-sdk refuses a URL request it did not declare, go-sdk hands it to the
form handler, py-sdk declares URL mode by itself) are asserted, so a change shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.judge._transcript import Line, read_transcript
from compare.models import validate_as
from compare.play._cells import Cell

from ._area_cells import TARGETS, Played, area_scenarios, outcomes, play

pytestmark = pytest.mark.clients

#: Every shipped elicitation scenario (the area's own: their ids start with its name).
SCENARIOS = area_scenarios("elicitation-")


@pytest.fixture(scope="module")
def played(pinned_spec: Path, tools: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play(pinned_spec, tmp_path_factory.mktemp("elicitation-results"), SCENARIOS)


def _check(verdict: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in verdict["checks"] if c["id"] == check)


def _ask(lines: list[Line]) -> Line:
    """The peer's elicitation/create (plain; the embedded one rides a tools/call answer)."""
    return next(x for x in lines if x.dir == "out" and x.method == "elicitation/create")


def _initialize(lines: list[Line]) -> dict[str, Any]:
    line = next(x for x in lines if x.dir == "in" and x.method == "initialize")
    caps = line.obj["params"]["capabilities"]
    assert isinstance(caps, dict)
    return caps


def test_every_cell_was_judged(played: list[tuple[Cell, dict[str, Any], Path]]) -> None:
    assert played
    assert [c.label for c, v, _ in played if v["verdict"] == "error"] == []
    judged = [c for c, v, _ in played if v["verdict"] != "not-run"]
    # Each target plays six scenarios at 2025-11-25 and the embedded one at 2026-07-28.
    assert {(c.target.id, c.scenario.id) for c in judged} == {
        (t, s) for t in TARGETS for s in SCENARIOS
    }


def test_each_outcome_is_what_its_evidence_line_says(
    played: list[tuple[Cell, dict[str, Any], Path]],
) -> None:
    seen: set[tuple[str, str]] = set()
    for cell, verdict, folder in played:
        if verdict["verdict"] == "not-run":
            continue
        lines = read_transcript(folder / "transcript.jsonl").lines
        by_n = {x.n: x for x in lines}
        for check in verdict["checks"]:
            outcome = check["outcome"]
            evidence = [by_n[n] for n in check.get("evidence") or []]
            where = f"{cell.label} {check['id']}={outcome}"
            if check["id"] in ("answered", "refused") and outcome in ("result", "error", "code"):
                (line,) = evidence[:1]
                assert line.dir == "in", where
                if cell.scenario.id != "elicitation-retry":
                    assert line.obj.get("id") == _ask(lines).obj["id"], where
                if outcome == "code":
                    assert line.obj["error"]["code"] == -32602, where
                elif outcome == "error":
                    assert "error" in line.obj, where
                elif cell.scenario.id == "elicitation-retry":
                    assert "answer" in line.obj["params"]["inputResponses"], where
                else:
                    assert "result" in line.obj, where
                seen.add((check["id"], outcome))
            if check["id"] == "action" and outcome == "equal":
                wanted = cell.scenario.id.removeprefix("elicitation-")  # decline or cancel
                assert evidence[0].obj["result"]["action"] == wanted, where
                seen.add((check["id"], outcome))
            if check["id"] in ("declares", "declares-url"):
                caps = _initialize(lines)
                member = "url" if check["id"] == "declares-url" else "form"
                if outcome == "member-declared":
                    assert member in caps["elicitation"], where
                elif outcome == "declared":
                    assert "elicitation" in caps, where
                    if cell.scenario.id != "elicitation-undeclared":  # that one names no member
                        assert member not in caps["elicitation"], where
                else:
                    assert outcome == "absent" and "elicitation" not in caps, where
                seen.add((check["id"], outcome))
            if check["id"] == "result-valid" and outcome == "valid":
                line = evidence[0]
                result = (
                    line.obj["params"]["inputResponses"]["answer"]
                    if cell.scenario.id == "elicitation-retry"
                    else line.obj["result"]
                )
                assert validate_as(result, "ElicitResult", verdict["negotiated_revision"]).ok, where
                seen.add((check["id"], outcome))
            if check["id"] == "no-reply" and outcome == "no-reply":
                probe = next(x for x in lines if x.method == "notifications/elicitation/complete")
                ids = {x.obj.get("id") for x in lines if x.dir == "out" and x.is_request}
                assert not [
                    x
                    for x in lines
                    if x.dir == "in"
                    and x.n > probe.n
                    and x.is_response
                    and x.obj.get("id") not in ids
                ], where
                seen.add((check["id"], outcome))
    # The run reached every kind of evidence this test reads.
    assert {("answered", "result"), ("refused", "code"), ("action", "equal")} <= seen, seen
    assert {("declares-url", "member-declared"), ("result-valid", "valid")} <= seen, seen


def test_what_these_sdks_do_with_a_url_request_they_did_not_declare(
    played: list[tuple[Cell, dict[str, Any], Path]],
) -> None:
    refused = outcomes(played, "elicitation-url-undeclared", "refused")
    # ts-sdk checks the mode against what it declared; go-sdk and rust-sdk give the request to
    # the form handler, which accepts; py-sdk declares url itself once a callback is set.
    assert refused == {
        "ts-sdk": "code",
        "go-sdk": "result",
        "rust-sdk": "result",
        "py-sdk": "member-declared",
    }
    verdicts = {
        c.target.id: v["verdict"]
        for c, v, _ in played
        if c.scenario.id == "elicitation-url-undeclared" and v["verdict"] != "not-run"
    }
    assert verdicts["go-sdk"] == "fail" and verdicts["ts-sdk"] == "pass"
    go = next(
        v
        for c, v, _ in played
        if c.target.id == "go-sdk" and c.scenario.id == "elicitation-url-undeclared"
        if v["verdict"] == "fail"
    )
    fail = _check(go, "refused")
    # A fail quotes the MUST it breaks, whole, and shows the raw answer it read.
    (ref,) = fail["refs"]
    assert "**MUST** return standard JSON-RPC errors" in ref["quote"] and "-32602" in ref["quote"]
    assert json.loads(fail["observed"])["result"]["action"] == "accept"


def test_each_round_echoes_the_state_it_was_last_given(
    played: list[tuple[Cell, dict[str, Any], Path]],
) -> None:
    """elicitation-rounds at 2026-07-28, read on the raw lines: each retry carries the
    requestState of our InputRequiredResult just before it and an id no earlier call of the
    chain had; the count of retries is what the rounds check reports."""
    followed: dict[str, int] = {}
    for cell, verdict, folder in played:
        if cell.scenario.id != "elicitation-rounds" or verdict["verdict"] == "not-run":
            continue
        lines = read_transcript(folder / "transcript.jsonl").lines
        due, ids, retries = None, [], 0
        for line in lines:
            result = line.obj.get("result") if line.dir == "out" and line.is_response else None
            if isinstance(result, dict) and result.get("resultType") == "input_required":
                due = result["requestState"]
            elif line.dir == "in" and line.method == "tools/call":
                if "requestState" in line.params:
                    assert line.params["requestState"] == due, cell.label
                    retries += 1
                assert line.obj["id"] not in ids, cell.label
                ids.append(line.obj["id"])
        rounds = _check(verdict, "rounds")
        if rounds["outcome"] in ("stopped", "all-rounds"):
            assert _check(verdict, "request-state")["outcome"] == "exact", cell.label
            assert rounds["observed"].startswith(f"{retries} "), (cell.label, rounds["observed"])
            followed[cell.target.id] = retries
        else:
            assert rounds["outcome"] == "legacy" and retries == 0, cell.label
    # Measured: the Python SDK's loop stops after ten rounds (its default limit), the Go and
    # Rust SDKs' after nine; the TypeScript SDK opens with initialize, so nothing is embedded.
    assert followed == {"py-sdk": 10, "go-sdk": 9, "rust-sdk": 9}
