"""The SDK server hosts, played once each by the scripted client (issue 38: a real program once
per mechanism). What each server declares and lists is its SDK's doing; this module checks
that the host reached the wire as its file says — the SDK answered initialize, declared the
features the host registered and listed them — so a cell of the matrix stands for the SDK.
Every other scenario of these columns is judged in the golden cells and the matrix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import load_targets
from compare.judge._transcript import read_transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

pytestmark = pytest.mark.clients

REVISION = "2025-11-25"
#: Each SDK server host and the name it gives itself; both register the same set (tools echo
#: and add, one resource, one template, the prompt greet).
SERVERS = {
    "ts-sdk-server": "mcp-compare-ts-sdk-server",
    "fastmcp-server": "mcp-compare-fastmcp-server",
}


@pytest.fixture(scope="module")
def lists(tools: Path, pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each SDK server's server-lists cell, played once together: its verdict and the
    answers in its transcript, by target."""
    results = tmp_path_factory.mktemp("sdk-servers") / "results"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        targets = [t for t in load_targets() if t.id in SERVERS]
        [scenario] = [s for s in load_scenarios() if s.id == "server-lists"]
        cells = [Cell(t, "default", scenario, REVISION) for t in targets]
        settings = RunSettings(results, "test", revisions(), tools=tools)
        verdicts = run_cells(cells, settings, jobs=len(cells))
    out = {}
    for cell, verdict in zip(cells, verdicts, strict=True):
        transcript = read_transcript(cell.folder(results) / "transcript.jsonl")
        out[cell.target.id] = (verdict, [ln.obj for ln in transcript.incoming() if ln.is_response])
    return out


@pytest.mark.parametrize("target", sorted(SERVERS))
def test_the_sdk_server_declares_and_lists_what_its_host_registered(
    lists: Any, target: str
) -> None:
    verdict, answers = lists[target]
    assert verdict["verdict"] == "pass", verdict["reason"]
    init = next(a["result"] for a in answers if "serverInfo" in a.get("result", {}))
    assert init["serverInfo"]["name"] == SERVERS[target]
    assert {"tools", "resources", "prompts", "completions"} <= set(init["capabilities"])
    listed = [a["result"] for a in answers if "result" in a]
    tools = next(r["tools"] for r in listed if "tools" in r)
    assert {t["name"] for t in tools} == {"echo", "add"}
    assert next(t for t in tools if t["name"] == "add").get("outputSchema")
    assert [r["uri"] for r in next(r["resources"] for r in listed if "resources" in r)] == [
        "mcp-compare://readme"
    ]
    templates = next(r["resourceTemplates"] for r in listed if "resourceTemplates" in r)
    assert [t["uriTemplate"] for t in templates] == ["mcp-compare://notes/{name}"]
    assert [p["name"] for p in next(r["prompts"] for r in listed if "prompts" in r)] == ["greet"]
