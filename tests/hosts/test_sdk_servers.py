"""The SDK server hosts, played once by the scripted client (issue 38: a real program once
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


@pytest.fixture(scope="module")
def lists(tools: Path, pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The TypeScript SDK server's server-lists cell: its verdict and its transcript's
    answers by the id of our request."""
    results = tmp_path_factory.mktemp("sdk-servers") / "results"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        [target] = [t for t in load_targets() if t.id == "ts-sdk-server"]
        [scenario] = [s for s in load_scenarios() if s.id == "server-lists"]
        cell = Cell(target, "default", scenario, REVISION)
        settings = RunSettings(results, "test", revisions(), tools=tools)
        [verdict] = run_cells([cell], settings)
    transcript = read_transcript(cell.folder(results) / "transcript.jsonl")
    answers = [line.obj for line in transcript.incoming() if line.is_response]
    return verdict, answers


def test_the_typescript_sdk_server_declares_and_lists_what_its_host_registered(
    lists: Any,
) -> None:
    verdict, answers = lists
    assert verdict["verdict"] == "pass", verdict["reason"]
    init = next(a["result"] for a in answers if "serverInfo" in a.get("result", {}))
    assert init["serverInfo"]["name"] == "mcp-compare-ts-sdk-server"
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
