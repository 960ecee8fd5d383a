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
