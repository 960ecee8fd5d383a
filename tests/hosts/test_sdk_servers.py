"""The SDK server hosts, played once each by the scripted client (issue 38: a real program once
per mechanism). What each server declares and lists is its SDK's doing; this module checks
that the host reached the wire as its file says — the SDK answered initialize, declared the
features the host registered and listed them — so a cell of the matrix stands for the SDK.

It plays server-pages, so the scripted client's walk of a list by the server's own cursors
runs against real servers here: an SDK whose server pages (our hosts set the page size its
documentation offers, where it offers one) is read to the end of each list. Every other
scenario of these columns is judged in the golden cells and the matrix."""

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
#: Each SDK server host registers the same set: the tools of TOOLS, the resource readme, the
#: template notes/{name} and the prompt greet (OWN_TOOLS: beside them); each names itself
#: mcp-compare-<target id>.
SERVERS = (
    "py-sdk-server",
    "ts-sdk-server",
    "fastmcp-server",
    "go-sdk-server",
    "mcp-go-server",
    "rust-sdk-server",
    "java-sdk-server",
    "kotlin-sdk-server",
)
#: The tools every SDK server host registers: echo and add, and count_steps, which reports its
#: steps through the SDK's progress API for server-progress and server-cancel.
TOOLS = ["add", "count_steps", "echo"]
#: Findings the SDK itself shows in every cell, which the smoke test lets through: Kotlin SDK
#: 0.16.0 pulls in kotlin-logging, which prints its start-up line on stdout (LIFE-20).
OWN_FINDINGS = {"kotlin-sdk-server": {"wire-json"}}
#: Tools a host registers beyond the common set: the Python SDK's server is also the roots
#: areas' server, whose show_roots tool asks the client for its roots.
OWN_TOOLS = {"py-sdk-server": ["add_tool_later", "show_roots"]}
LISTS = {
    "tools": "name",
    "resources": "uri",
    "resourceTemplates": "uriTemplate",
    "prompts": "name",
}


@pytest.fixture(scope="module")
def walked(tools: Path, pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each SDK server's server-pages cell, played once together: its verdict, its initialize
    result and every page of every list, by target."""
    results = tmp_path_factory.mktemp("sdk-servers") / "results"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        targets = [t for t in load_targets() if t.id in SERVERS]
        [scenario] = [s for s in load_scenarios() if s.id == "server-pages"]
        cells = [Cell(t, "default", scenario, REVISION) for t in targets]
        settings = RunSettings(results, "test", revisions(), tools=tools)
        verdicts = run_cells(cells, settings, jobs=2)
    out = {}
    for cell, verdict in zip(cells, verdicts, strict=True):
        transcript = read_transcript(cell.folder(results) / "transcript.jsonl")
        answers = [ln.obj.get("result") for ln in transcript.incoming() if ln.is_response]
        out[cell.target.id] = (verdict, [a for a in answers if isinstance(a, dict)])
    return out


def test_every_sdk_server_has_a_host_here(walked: Any) -> None:
    assert sorted(walked) == sorted(SERVERS)


@pytest.mark.parametrize("target", SERVERS)
def test_the_sdk_server_declares_and_lists_what_its_host_registered(
    walked: Any, target: str
) -> None:
    verdict, answers = walked[target]
    failing = {c["id"] for c in verdict["checks"] if c["verdict"] in ("fail", "error")}
    assert failing <= OWN_FINDINGS.get(target, set()), verdict["reason"]
    init = next(a for a in answers if "serverInfo" in a)
    assert init["serverInfo"]["name"] == f"mcp-compare-{target}"
    assert {"tools", "resources", "prompts"} <= set(init["capabilities"])
    items: dict[str, list[Any]] = {member: [] for member in LISTS}
    for answer in answers:
        for member, key in LISTS.items():
            items[member] += [i.get(key) for i in answer.get(member) or []]
    assert sorted(items["tools"]) == sorted([*TOOLS, *OWN_TOOLS.get(target, [])])
    assert items["resources"] == ["mcp-compare://readme"]
    assert items["resourceTemplates"] == ["mcp-compare://notes/{name}"]
    assert items["prompts"] == ["greet"]
    checks = {c["id"]: c["outcome"] for c in verdict["checks"]}
    # a page size set in the host means more than one page, read to its end
    assert checks["tools-pages"] in ("single-page", "paged"), checks
