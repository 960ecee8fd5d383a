"""The refresh-failure and several-roots probes against the reference filesystem server.

Each assertion names what a verdict rests on: our bad answer to the server's own roots/list
after the change (or the server never asking), the probes' replies before and after it, the
URIs of both roots in our answer, and the fixture's hashes behind a move between places.
These scenarios run here, not in ``test_real_servers``' run, so no cell is played twice.

The mechanism is played once, on the reference server (issue 37: real programs once per
mechanism). What the other servers with file tools do in these scenarios (rust-mcp-filesystem
never narrowing to our roots, the Angular CLI reading outside them before any change,
chrome-devtools-mcp keeping its old roots) is kept by the golden cells, which judge their
recordings again, and by the matrix.
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
from compare.judge._transcript import Line, Transcript, read_transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

from .test_faults import _marked_processes

pytestmark = pytest.mark.clients

#: The scenarios this module plays (``test_real_servers`` leaves them out of its run).
REFRESH = [
    "server-refresh-error",
    "server-refresh-malformed",
    "server-refresh-no-uri",
    "server-refresh-silent",
]
SCENARIOS = [*REFRESH, "server-several-roots"]
#: The server played and its program, relative to the tools folder.
SERVERS = {"server-filesystem": "node_modules/.bin/mcp-server-filesystem"}
#: One handshake-era revision (issue 37: the others are kept by the golden cells).
REVISIONS = ["2025-11-25"]


@pytest.fixture(scope="module")
def refresh_run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tools = _paths.tools_dir()
    if not all((tools / program).exists() for program in SERVERS.values()):
        from compare.install import install_tools

        install_tools()
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    results = tmp_path_factory.mktemp("refresh-run") / "results"
    targets = [t for t in load_targets() if t.id in SERVERS]
    scenarios = [s for s in load_scenarios() if s.id in SCENARIOS]
    cells = [Cell(t, "default", s, r) for t in targets for s in scenarios for r in REVISIONS]
    settings = RunSettings(results, spec_commit="test", known_revisions=revisions(), tools=tools)
    verdicts = run_cells(cells, settings, jobs=default_jobs())
    mp.undo()
    return {
        "results": results,
        "leftovers": _marked_processes(results),
        "by": {(v["target"], v["scenario"], v["revision"]): v for v in verdicts},
    }


def _cell(run: dict[str, Any], target: str, scenario: str, revision: str) -> Path:
    v = run["by"][(target, scenario, revision)]
    return Path(run["results"]) / target / v["target_version"] / scenario / revision


def _tx(run: dict[str, Any], target: str, scenario: str, revision: str) -> Transcript:
    return read_transcript(_cell(run, target, scenario, revision) / "transcript.jsonl")


def _answers(tx: Transcript, ask: Line) -> list[Line]:
    """Our responses to the server's request ``ask`` (its id, going out, as a response)."""
    rid = ask.obj["id"]
    return [x for x in tx.lines if x.dir == "out" and x.is_response and x.obj.get("id") == rid]


def _check(v: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in v["checks"] if c["id"] == check)


def test_every_cell_ended_cleanly(refresh_run: dict[str, Any]) -> None:
    assert len(refresh_run["by"]) == len(SERVERS) * len(SCENARIOS) * len(REVISIONS)
    for key, v in refresh_run["by"].items():
        # not exercised: a precondition that never held (issue 36), never a finding
        assert v["verdict"] in {"pass", "informational", "not-exercised"}, (key, v["reason"])
        assert v["process"]["ended_by"] == "self", key
        assert v["peer_done"]["reason"] == "steps complete", key
    assert refresh_run["leftovers"] == []


@pytest.mark.parametrize("scenario", REFRESH)
@pytest.mark.parametrize("revision", REVISIONS)
def test_filesystem_keeps_its_old_roots_when_a_refresh_fails(
    refresh_run: dict[str, Any], scenario: str, revision: str
) -> None:
    """server-filesystem asks again after list_changed, gets our error, our malformed result
    or no answer, and keeps the root it had: app still works, outside still refused, each
    probe after our bad answer (or after its unanswered request)."""
    target = "server-filesystem"
    v = refresh_run["by"][(target, scenario, revision)]
    tx = _tx(refresh_run, target, scenario, revision)
    after = _check(v, "after-failure")
    assert (after["outcome"], after["verdict"]) == ("kept", "pass")
    changed = tx.steps["changed"].start_n
    [ask] = [x for x in tx.incoming() if x.method == "roots/list" and x.n > changed]
    ours = _answers(tx, ask)
    exits = [n for _n, n in tx.notes if n.get("event") == "server-exit"]
    if scenario == "server-refresh-silent":
        assert ours == []
        assert any(n.get("event") == "left-unanswered" for _n, n in tx.notes)
        # recorded, not graded: with its roots/list pending it outlives its closed stdin
        assert [n["ended_by"] for n in exits] == ["sigterm"]
    else:
        assert [n["ended_by"] for n in exits] == ["self"]
        [answer] = ours  # exactly the answer the scenario's change step names
        step = tx.steps["changed"].step
        assert {k: v for k, v in answer.obj.items() if k not in ("jsonrpc", "id")} == step["answer"]
    probes = [p for p in v["probes"] if p["step"] == "after"]
    assert all(min(p["evidence"]) > ask.n for p in probes)
    results: dict[str, set[str]] = {}
    for p in probes:
        results.setdefault(p["place"], set()).add(p["result"])
    assert results == {"in-root": {"allowed"}, "outside": {"refused"}}


@pytest.mark.parametrize("revision", REVISIONS)
def test_filesystem_honours_both_roots_and_keeps_moves_between_them(
    refresh_run: dict[str, Any], revision: str
) -> None:
    """Both roots go out as roots of their own; server-filesystem works in both, refuses the
    second root's parent and outside, and moves a file from one root into the other (seen on
    disk) while refusing a move out to outside and one in from outside."""
    target, scenario = "server-filesystem", "server-several-roots"
    v = refresh_run["by"][(target, scenario, revision)]
    tx = _tx(refresh_run, target, scenario, revision)
    ask = next(x for x in tx.incoming() if x.method == "roots/list")
    answer = _answers(tx, ask)[0]
    uris = [r["uri"] for r in answer.obj["result"]["roots"]]
    assert [u.rsplit("/web%20%23staging%20%C3%A9", 1)[1] for u in uris] == [
        "/app",
        "/deep/other",
        "-beside",
    ]
    outcomes = {c["id"]: c["outcome"] for c in v["checks"]}
    assert outcomes["first-root"] == outcomes["second-root"] == outcomes["cross-root"] == "allowed"
    assert outcomes["outside"] == outcomes["second-parent"] == "refused"
    assert outcomes["cross-out"] == outcomes["cross-in"] == "refused"
    changes = v["fixture_changes"]
    assert "deep/other/moved-cross-move-first-to-second.txt" in changes["created"]
    assert "app/moved-cross-move-second-to-first.txt" in changes["created"]
    assert not any(p.startswith(("outside/", "deep/probe", "deep/new")) for p in changes["created"])
    assert "outside/movable-outside-to-first.txt" not in changes["removed"]
    assert _check(v, "fixture")["outcome"] == "intact"
