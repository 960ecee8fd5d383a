"""The scripted client's features (issue 22 item 2) against a real server, not only roots.

The reference "everything" server registers its elicitation and sampling tools only for a
client that declared those capabilities, and then asks for them inside the tool call: so one
cell shows both that ``features`` reached the handshake and that each request was answered
with the plan's ``answer``, read back from the cell's own transcript.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions
from play.test_faults import _marked_processes

from compare import _paths
from compare.exchange._scenarios import load_scenario_file
from compare.exchange._targets import load_targets
from compare.judge._transcript import read_transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

pytestmark = pytest.mark.clients

ELICITED = {"action": "accept", "content": {"name": "mcp-compare", "check": True}}
SAMPLED = {
    "role": "assistant",
    "content": {"type": "text", "text": "canned"},
    "model": "mcp-compare-canned",
    "stopReason": "endTurn",
}
SCENARIO = f"""\
id: features-demo
title: Elicitation and sampling declared and answered by the scripted client
description: A test fixture, not a shipped scenario.
side: server
revisions: {{from: "2025-11-25", until: "2025-11-25"}}
client_features:
  elicitation: {{form: true, answer: {json.dumps(ELICITED)}}}
  sampling: {{answer: {json.dumps(SAMPLED)}}}
steps:
  - {{observe_s: 1, label: settle, why: "the server registers its tools once initialized"}}
  - {{request: tools/list, label: tools, timeout_s: 20}}
  - {{tool_call: [{{name: trigger-elicitation-request}}], label: elicit, timeout_s: 20}}
  - {{tool_call: [{{name: trigger-sampling-request, arguments: {{prompt: hi}}}}], label: sample,
     timeout_s: 20}}
checks:
  - id: speaks-modern
    title: Which era
    rule: speaks-modern
    expected: recorded
    outcomes:
      modern: {{verdict: informational, means: "modern"}}
      legacy: {{verdict: informational, means: "legacy"}}
    refs: []
"""


@pytest.fixture(scope="module")
def cell(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tools = _paths.tools_dir()
    if not (tools / "node_modules" / ".bin" / "mcp-server-everything").exists():
        pytest.fail(f"server-everything is not installed in {tools} (mcp-compare tools install)")
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    base = tmp_path_factory.mktemp("features")
    path = base / "features-demo.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    scenario = load_scenario_file(path)
    target = next(t for t in load_targets() if t.id == "server-everything")
    settings = RunSettings(base / "results", "test", revisions(), tools=tools)
    (verdict,) = run_cells([Cell(target, "default", scenario, "2025-11-25")], settings, jobs=1)
    mp.undo()
    folder = base / "results" / target.id / verdict["target_version"] / scenario.id / "2025-11-25"
    return {
        "verdict": verdict,
        "lines": read_transcript(folder / "transcript.jsonl").lines,
        "leftovers": _marked_processes(base / "results"),
    }


def _answer_to(lines: list[Any], method: str) -> Any:
    """Our ``out`` answer to the server's first ``in`` request of ``method``."""
    asked = next(x for x in lines if x.dir == "in" and x.method == method)
    rid = asked.obj["id"]
    return next(
        x
        for x in lines
        if x.dir == "out" and isinstance(x.obj, dict) and x.obj.get("id") == rid and x.n > asked.n
    )


def test_the_declared_features_reach_the_server(cell: dict[str, Any]) -> None:
    lines = cell["lines"]
    init = next(x for x in lines if x.dir == "out" and x.method == "initialize")
    assert init.obj["params"]["capabilities"] == {"elicitation": {"form": {}}, "sampling": {}}
    listed = next(
        x
        for x in lines
        if x.dir == "in" and isinstance(x.obj, dict) and "tools" in (x.obj.get("result") or {})
    )
    names = {t["name"] for t in listed.obj["result"]["tools"]}
    # registered by the server only for a client that declared each capability
    assert {"trigger-elicitation-request", "trigger-sampling-request"} <= names


@pytest.mark.parametrize(
    ("method", "answer"),
    [("elicitation/create", ELICITED), ("sampling/createMessage", SAMPLED)],
)
def test_each_request_is_answered_with_the_plans_answer(
    cell: dict[str, Any], method: str, answer: dict[str, Any]
) -> None:
    got = _answer_to(cell["lines"], method)
    assert got.obj["result"] == answer
    assert cell["verdict"]["peer_done"]["reason"] == "steps complete"
    assert cell["leftovers"] == []
