"""The scripted client against a tiny fake server, end to end through the real harness.

Each fake server misbehaves in one way (or not at all); each cell gets the verdict its fault
earns, with the check that names it, and no process of any cell survives the run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import Target, parse_target
from compare.judge._transcript import read_records
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

from .test_faults import _marked_processes

FAKE_SERVER = Path(__file__).resolve().parent / "fakes" / "fake_server.py"
KNOWN = revisions()
REVISION = "2025-06-18"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def server_target(mode: str) -> Target:
    data = {
        "id": f"fake-server-{mode}",
        "name": f"fake server ({mode})",
        "kind": "server",
        "launch": {"argv": [sys.executable, str(FAKE_SERVER), "--mode", mode]},
        "ends": "self",
        "timeout_s": 30,
    }
    return parse_target(data, Path(f"fake-server-{mode}.yaml"))


def _run(tmp_path: Path, mode: str, scenario: str) -> dict[str, Any]:
    chosen = next(s for s in load_scenarios() if s.id == scenario)
    settings = RunSettings(tmp_path / "results", spec_commit="test", known_revisions=KNOWN)
    [verdict] = run_cells([Cell(server_target(mode), "default", chosen, REVISION)], settings)
    assert _marked_processes(tmp_path / "results") == []
    return verdict


def _check(verdict: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in verdict["checks"] if c["id"] == check)


# (mode, scenario) -> (cell verdict, check, outcome)
CASES = {
    ("good", "server-asks"): ("informational", "asks", "after-initialized"),
    ("good", "server-notification-reply"): ("pass", "reply", "no-reply"),
    ("reply", "server-notification-reply"): ("fail", "reply", "replied"),
    ("undeclared", "server-asks-undeclared"): ("fail", "asks-undeclared-must", "asked"),
    ("silent", "server-asks"): ("error", "asks", "no-initialize"),
    ("crash", "server-notification-reply"): ("error", "reply", "no-initialize"),
    ("flood", "server-notification-reply"): ("pass", "wire-volume", "flood"),
}


@pytest.mark.parametrize(("mode", "scenario"), list(CASES))
def test_fake_server(tmp_path: Path, mode: str, scenario: str) -> None:
    verdict = _run(tmp_path, mode, scenario)
    cell_verdict, check, outcome = CASES[(mode, scenario)]
    got = _check(verdict, check)
    assert (verdict["verdict"], got["outcome"]) == (cell_verdict, outcome), verdict["reason"]
    assert verdict["process"]["ended_by"] == "self"
    assert verdict["peer_done"] is not None  # the scripted client always says why it stopped


def test_refusal_evidence_points_at_the_reply(tmp_path: Path) -> None:
    """A fail rests on the server's own line: the evidence is the response after the notice."""
    verdict = _run(tmp_path, "reply", "server-notification-reply")
    reply = _check(verdict, "reply")
    cell = tmp_path / "results" / "fake-server-reply" / "unversioned"
    records = read_records(cell / "server-notification-reply" / REVISION / "transcript.jsonl")
    by_n = {r.data["n"]: r.data for r in records.records if r.data}
    [n] = reply["evidence"]
    assert by_n[n]["dir"] == "in" and json.loads(by_n[n]["raw"]) == {
        "jsonrpc": "2.0",
        "id": None,
        "result": {},
    }
    assert any("MUST NOT" in r["quote"] for r in reply["refs"])


def test_silent_server_is_bounded(tmp_path: Path) -> None:
    """A server that never answers initialize costs the init bound, not the cell's timeout."""
    verdict = _run(tmp_path, "silent", "server-asks")
    assert verdict["process"]["client_s"] < 20
    assert "never answered" in _check(verdict, "asks")["observed"]


def _browser_run(tmp_path: Path, first_call_s: float | None) -> tuple[dict[str, Any], Path]:
    """The browser-like fake in server-enforcement, with or without a first-call bound."""
    data: dict[str, Any] = {
        "id": "fake-server-browser",
        "name": "fake server (browser)",
        "kind": "server",
        "launch": {"argv": [sys.executable, str(FAKE_SERVER), "--mode", "browser"]},
        "ends": "self",
        "timeout_s": 60,
    }
    if first_call_s is not None:
        data |= {"first_call_s": first_call_s, "first_call_why": "starts a browser, 6.5 s"}
    target = parse_target(data, Path("fake-server-browser.yaml"))
    chosen = next(s for s in load_scenarios() if s.id == "server-enforcement")
    settings = RunSettings(tmp_path / "results", spec_commit="test", known_revisions=KNOWN)
    [verdict] = run_cells([Cell(target, "default", chosen, REVISION)], settings)
    assert _marked_processes(tmp_path / "results") == []
    cell = tmp_path / "results" / "fake-server-browser" / "unversioned" / "server-enforcement"
    return verdict, cell / REVISION


def _probe(verdict: dict[str, Any], operation: str, place: str) -> dict[str, Any]:
    return next(p for p in verdict["probes"] if (p["operation"], p["place"]) == (operation, place))


def test_a_slow_first_tool_call_gets_the_targets_bound_and_only_that_one(tmp_path: Path) -> None:
    """With first_call_s the browser's 6.5 s first call is answered inside its bound (the
    probe's own 5 s would miss it); without it the same call is recorded unanswered (its
    file still lands, so the hashes call the write allowed)."""
    bounded, _ = _browser_run(tmp_path / "with", 20)
    first = _probe(bounded, "output-path", "in-root")
    assert first["result"] == "allowed" and first["reply"] == "ok"
    plain, _ = _browser_run(tmp_path / "without", None)
    late = _probe(plain, "output-path", "in-root")
    assert (late["reply"], late["effect"]) == ("no-answer", ["app/new-probes-output-path.png"])


def test_probe_setup_calls_come_once_before_the_first_upload(tmp_path: Path) -> None:
    """The upload's setup (new_page, take_snapshot) is called once per cell, before the
    operation's first probe; the uploads inside the roots then work, and a screenshot saved
    as .png for the .txt asked for is still read as the probe's own write."""
    verdict, cell = _browser_run(tmp_path, 20)
    records = read_records(cell / "transcript.jsonl")
    notes = [
        json.loads(r.data["raw"]) for r in records.records if r.data and r.data["dir"] == "note"
    ]
    setups = [n for n in notes if n.get("event") == "probe-setup"]
    assert [n["tool"] for n in setups] == ["new_page", "take_snapshot"]
    assert all(n["outcome"] == "ok" for n in setups)
    uploads = [n for n in notes if n.get("event") == "step" and n["step"].get("probe") == "upload"]
    assert uploads and all(n["index"] >= 0 for n in uploads)
    assert _probe(verdict, "upload", "in-root")["result"] == "allowed"
    assert _probe(verdict, "output-path", "in-root")["effect"] == ["app/new-probes-output-path.png"]


def test_no_setup_calls_where_the_operation_has_no_tool(tmp_path: Path) -> None:
    """A server without the upload tool sees none of its setup calls."""
    _run(tmp_path, "good", "server-enforcement")
    cell = tmp_path / "results" / "fake-server-good" / "unversioned" / "server-enforcement"
    records = read_records(cell / REVISION / "transcript.jsonl")
    raws = [r.data["raw"] for r in records.records if r.data]
    assert not any("new_page" in raw or "probe-setup" in raw for raw in raws)
