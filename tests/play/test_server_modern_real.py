"""The scripted client's 2026-07-28 era against real servers, through the real harness.

The Python SDK's own server (``hosts/py_sdk_server.py``, target ``py-sdk-server``) is the one
shipped server that speaks 2026-07-28, so it shows both eras of the same tool: a roots/list
request before the boundary, an InputRequiredResult after it. Each assertion names the lines a
verdict rests on: no initialize at the modern revision, ``_meta`` on every request, the retry
carrying the server's own key and requestState unchanged under a new id, and the tool's
answer holding our root URI. The same server through the generic ``server-command`` target
must reach the same outcomes, and Playwright MCP must reach its roots question without any
browser running.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare import _paths
from compare._cores import default_jobs
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import load_targets
from compare.judge._transcript import read_transcript
from compare.models import first_modern
from compare.peer import is_modern
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells
from compare.play._run import select

from .test_faults import _marked_processes

pytestmark = pytest.mark.clients

BOUNDARY = first_modern(revisions())
assert BOUNDARY is not None, "the pins hold no modern revision"
LEGACY = max(r for r in revisions() if not is_modern(r, BOUNDARY))
REVISIONS = [LEGACY, BOUNDARY]
SCENARIOS = ("server-mrtr", "server-asks-undeclared")
META = "io.modelcontextprotocol/"


@pytest.fixture(scope="module")
def run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tools = _paths.tools_dir()
    if (
        not (tools / "venvs" / "py-sdk-server" / "bin" / "python").exists()
        or not (tools / "node_modules" / ".bin" / "playwright-mcp").exists()
    ):
        from compare.install import install_tools

        install_tools()
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    results = tmp_path_factory.mktemp("modern-run") / "results"
    shipped = {t.id: t for t in load_targets()}
    scenarios = {s.id: s for s in load_scenarios()}
    # The same server through the generic target: the command a user would type.
    command = "{python:py-sdk-server} {hosts}/py_sdk_server.py"
    generic, _commit, _known = select(
        ["server-command"], ["server-mrtr"], [BOUNDARY], None, command
    )
    cells = [
        Cell(shipped[t], "default", scenarios[s], r)
        for t in ("py-sdk-server",)
        for s in SCENARIOS
        for r in REVISIONS
    ]
    cells += [Cell(shipped["playwright-mcp"], "default", scenarios["server-asks"], LEGACY)]
    # the per-request _meta a modern server must refuse exists only from the boundary on
    cells += [Cell(shipped["py-sdk-server"], "default", scenarios["server-modern-meta"], BOUNDARY)]
    settings = RunSettings(results, spec_commit="test", known_revisions=revisions(), tools=tools)
    verdicts = run_cells(cells + generic, settings, jobs=default_jobs())
    mp.undo()
    return {
        "results": results,
        "leftovers": _marked_processes(results),
        "by": {(v["target"], v["scenario"], v["revision"]): v for v in verdicts},
    }


def _tx(run: dict[str, Any], target: str, scenario: str, revision: str) -> Any:
    v = run["by"][(target, scenario, revision)]
    folder = Path(run["results"]) / target / v["target_version"] / scenario / revision
    return read_transcript(folder / "transcript.jsonl")


def _check(v: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in v["checks"] if c["id"] == check)


def test_cells_ended_cleanly(run: dict[str, Any]) -> None:
    for key, v in run["by"].items():
        assert v["verdict"] != "error", (key, v["reason"])
        assert v["peer_done"]["reason"] == "steps complete", key
    assert run["leftovers"] == []


def test_modern_opening_and_meta_on_every_request(run: dict[str, Any]) -> None:
    tx = _tx(run, "py-sdk-server", "server-mrtr", BOUNDARY)
    ours = [x for x in tx.lines if x.dir == "out" and x.is_request]
    assert ours[0].method == "server/discover"
    assert not any(x.method == "initialize" for x in ours)
    for line in ours:
        meta = line.params["_meta"]
        assert meta[META + "protocolVersion"] == BOUNDARY
        assert meta[META + "clientCapabilities"] == {"roots": {}}  # no listChanged any more
        assert meta[META + "clientInfo"]["name"]
    assert not any(
        x.is_response for x in tx.lines if x.dir == "out"
    )  # a modern client answers nothing


def test_retry_answers_the_embedded_roots_list(run: dict[str, Any]) -> None:
    v = run["by"][("py-sdk-server", "server-mrtr", BOUNDARY)]
    asked, used = _check(v, "asked-modern"), _check(v, "used")
    assert asked["outcome"] == "embedded" and used["outcome"] == "used"
    tx = _tx(run, "py-sdk-server", "server-mrtr", BOUNDARY)
    first = tx.by_n(asked["evidence"][0])
    assert first is not None and first.dir == "in"
    result = first.obj["result"]
    (key,) = [k for k, r in result["inputRequests"].items() if r["method"] == "roots/list"]
    retry = next(
        x for x in tx.lines if x.dir == "out" and x.method == "tools/call" and x.n > first.n
    )
    assert retry.obj["id"] != first.obj["id"]
    assert retry.params["requestState"] == result["requestState"]
    root = retry.params["inputResponses"][key]["roots"][0]["uri"]
    assert root.endswith("/web%20%23staging%20%C3%A9/app")
    answer = tx.by_n(used["evidence"][0])
    assert answer is not None and answer.obj["id"] == retry.obj["id"]
    assert root in answer.obj["result"]["content"][0]["text"]


def test_legacy_revision_asks_with_a_request(run: dict[str, Any]) -> None:
    v = run["by"][("py-sdk-server", "server-mrtr", LEGACY)]
    asked, used = _check(v, "asked"), _check(v, "used")
    assert (asked["outcome"], used["outcome"]) == ("request", "used")
    tx = _tx(run, "py-sdk-server", "server-mrtr", LEGACY)
    assert next(x for x in tx.lines if x.dir == "out").method == "initialize"
    request = tx.by_n(asked["evidence"][0])
    assert request is not None and request.method == "roots/list"
    reply = next(x for x in tx.lines if x.dir == "out" and x.n > request.n)
    assert reply.obj["id"] == request.obj["id"] and reply.obj["result"]["roots"]


def test_undeclared_client_gets_the_capability_error_at_the_boundary(run: dict[str, Any]) -> None:
    v = run["by"][("py-sdk-server", "server-asks-undeclared", BOUNDARY)]
    check = _check(v, "asks-undeclared-modern")
    tx = _tx(run, "py-sdk-server", "server-asks-undeclared", BOUNDARY)
    line = tx.by_n(check["evidence"][0]) if check["evidence"] else None
    if check["outcome"] == "capability-error":
        assert line is not None and line.obj["error"]["code"] == -32021
    assert check["outcome"] in ("capability-error", "not-asked"), check["observed"]
    for x in tx.lines:
        if x.dir == "out" and x.is_request:
            assert "roots" not in x.params["_meta"][META + "clientCapabilities"]


def test_generic_server_command_reaches_the_same_outcomes(run: dict[str, Any]) -> None:
    shipped = run["by"][("py-sdk-server", "server-mrtr", BOUNDARY)]
    generic = run["by"][("server-command", "server-mrtr", BOUNDARY)]
    assert generic["target_version"].startswith("cmd-")
    assert [(c["id"], c["outcome"]) for c in generic["checks"]] == [
        (c["id"], c["outcome"]) for c in shipped["checks"]
    ]


def test_playwright_asks_on_its_first_tool_call_without_a_browser(run: dict[str, Any]) -> None:
    v = run["by"][("playwright-mcp", "server-asks", LEGACY)]
    tx = _tx(run, "playwright-mcp", "server-asks", LEGACY)
    asks = _check(v, "asks")
    call = tx.steps["call"]
    assert call.step["tool_call"][-1]["name"] == "browser_tabs"
    called = next(x for x in tx.lines if x.dir == "out" and x.method == "tools/call")
    assert called.params["name"] == "browser_tabs"  # the state-reporting candidate was chosen
    if asks["outcome"] == "on-tool-call":
        first = tx.by_n(asks["evidence"][0])
        assert first is not None and first.n > call.start_n
    # the launch could not happen: the tool's answer says the executable does not exist
    answer = tx.response_to(called.obj["id"])
    assert answer is not None and answer.obj["result"]["isError"] is True
    assert "no-browser" in answer.obj["result"]["content"][0]["text"]


def test_a_modern_server_refuses_a_bad_meta_with_the_code_the_pages_name(
    run: dict[str, Any],
) -> None:
    """server-modern-meta's three requests carry what the step's meta says (an unknown
    version, no version, no capabilities, the rest of _meta as usual), and each outcome is
    the error code on the server's own answer to that request's id; the fourth, a line with no
    params at all, is written as it is and refused with -32602."""
    v = run["by"][("py-sdk-server", "server-modern-meta", BOUNDARY)]
    tx = _tx(run, "py-sdk-server", "server-modern-meta", BOUNDARY)
    listed = [x for x in tx.lines if x.dir == "out" and x.method == "tools/list" and not x.fault]
    listed = listed[:3]  # the fourth, after the line without params, only closes its window
    metas = [x.params["_meta"] for x in listed]
    assert metas[0][META + "protocolVersion"] == "2099-01-01"
    assert META + "protocolVersion" not in metas[1] and META + "clientCapabilities" in metas[1]
    assert META + "clientCapabilities" not in metas[2] and META + "protocolVersion" in metas[2]
    for request, check, code in zip(
        listed,
        ("unknown-version", "no-version", "no-capabilities"),
        (-32022, -32602, -32602),
        strict=True,
    ):
        answer = next(
            x for x in tx.incoming() if x.is_response and x.obj.get("id") == request.obj["id"]
        )
        assert answer.obj["error"]["code"] == code
        assert _check(v, check)["outcome"] == "code"
        assert _check(v, check)["evidence"] == [answer.n]
    # the request without params, written as it is, is refused with -32602 too
    bare = next(x for x in tx.lines if x.dir == "out" and x.fault)
    assert "params" not in bare.obj
    refused = next(x for x in tx.incoming() if x.is_response and x.obj.get("id") == bare.obj["id"])
    assert refused.obj["error"]["code"] == -32602
    assert _check(v, "no-params")["outcome"] == "code"
