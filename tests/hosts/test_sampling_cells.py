"""The sampling scenarios against real SDK clients, and what each verdict rests on.

Four SDK hosts of three languages play every sampling client scenario (sampling-ask,
sampling-undeclared, sampling-tools-undeclared at 2025-11-25, the embedded sampling-retry at
2026-07-28) through the harness, with the handler their SDK documents. For every check the
judge graded, the test reads the line the check names as its evidence and asserts that the raw
text says what the outcome claims: an answer is the response to the peer's own request (or the
retry's inputResponses entry), a valid result validates again here, the model is the one the
handler gave, a refusal is an error, and the tool-enabled request really carried tools.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.judge._transcript import Line, read_transcript
from compare.models import validate_as
from compare.play._cells import Cell

from ._area_cells import TARGETS, Played, area_scenarios, outcomes, play
from .test_elicitation_cells import _initialize

pytestmark = pytest.mark.clients

SCENARIOS = area_scenarios("sampling-")


@pytest.fixture(scope="module")
def played(pinned_spec: Path, tools: Path, tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play(pinned_spec, tmp_path_factory.mktemp("sampling-results"), SCENARIOS)


def _asked(lines: list[Line]) -> Line:
    """The peer's plain sampling/createMessage."""
    return next(x for x in lines if x.dir == "out" and x.method == "sampling/createMessage")


def test_every_cell_was_judged(played: list[tuple[Cell, dict[str, Any], Path]]) -> None:
    assert [c.label for c, v, _ in played if v["verdict"] == "error"] == []
    judged = {(c.target.id, c.scenario.id) for c, v, _ in played if v["verdict"] != "not-run"}
    assert judged == {(t, s) for t in TARGETS for s in SCENARIOS}


def test_each_outcome_is_what_its_evidence_line_says(
    played: list[tuple[Cell, dict[str, Any], Path]],
) -> None:
    seen: set[tuple[str, str, str]] = set()
    for cell, verdict, folder in played:
        if verdict["verdict"] == "not-run":
            continue
        lines = read_transcript(folder / "transcript.jsonl").lines
        by_n = {x.n: x for x in lines}
        embedded = cell.scenario.id == "sampling-retry"
        for check in verdict["checks"]:
            outcome = check["outcome"]
            evidence = [by_n[n] for n in check.get("evidence") or []]
            where = f"{cell.label} {check['id']}={outcome}"
            if check["id"] == "answered" and outcome in ("result", "error"):
                line = evidence[0]
                assert line.dir == "in", where
                if embedded:
                    assert "answer" in line.obj["params"]["inputResponses"], where
                else:
                    assert line.obj.get("id") == _asked(lines).obj["id"], where
                    assert outcome in line.obj, where  # "result" or "error", as named
            elif check["id"] == "result-valid" and outcome == "valid":
                line = evidence[0]
                result = (
                    line.obj["params"]["inputResponses"]["answer"]
                    if embedded
                    else line.obj["result"]
                )
                revision = verdict["negotiated_revision"]
                assert validate_as(result, "CreateMessageResult", revision).ok, where
            elif check["id"] == "model" and outcome == "equal":
                assert evidence[0].obj["result"]["model"] == "mcp-compare-canned", where
            elif check["id"] in ("declares", "declares-tools"):
                caps = _initialize(lines)
                if outcome == "member-declared":
                    assert "tools" in caps["sampling"], where
                elif outcome == "declared":
                    assert "sampling" in caps and "tools" not in caps["sampling"], where
                else:
                    assert outcome == "absent" and "sampling" not in caps, where
            else:
                continue
            seen.add((cell.scenario.id, check["id"], outcome))
        if cell.scenario.id == "sampling-tools-undeclared":
            # the request the client was not meant to get really offered the model a tool
            assert '"tools":[' in (_asked(lines).raw or "").replace(" ", ""), cell.label
    # What these SDKs were measured to do: each answers the plain request with a valid result
    # naming the handler's model, refuses it when nothing is registered, hands the tool-enabled
    # request to the plain handler, and (py-sdk, go-sdk, rust-sdk) answers the embedded one.
    assert {
        ("sampling-ask", "answered", "result"),
        ("sampling-ask", "result-valid", "valid"),
        ("sampling-ask", "model", "equal"),
        ("sampling-undeclared", "answered", "error"),
        ("sampling-tools-undeclared", "answered", "result"),
        ("sampling-tools-undeclared", "declares-tools", "declared"),
        ("sampling-retry", "answered", "result"),
        ("sampling-retry", "result-valid", "valid"),
    } <= seen, seen


def test_the_embedded_answer_comes_from_the_sdks_that_speak_2026_07_28(
    played: list[tuple[Cell, dict[str, Any], Path]],
) -> None:
    assert outcomes(played, "sampling-retry", "speaks-modern") == {
        "ts-sdk": "legacy",
        "py-sdk": "modern",
        "go-sdk": "modern",
        "rust-sdk": "modern",
    }
