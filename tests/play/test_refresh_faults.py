"""Every outcome of the refresh-failure and several-roots probes, reached end to end.

A fake file server (``fakes/fake_refresh_server.py``) does one thing with a failed refresh (or
with a second root) per mode; each cell runs through the real harness and scripted client,
so each grade the scenario files give is shown to be reachable, with the lines it rests on.
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
from compare.judge._transcript import Line, Transcript, read_transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

from .test_faults import _marked_processes

FAKE = Path(__file__).resolve().parent / "fakes" / "fake_refresh_server.py"
REVISION = "2025-06-18"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _target(mode: str) -> Target:
    data = {
        "id": f"fake-file-server-{mode}",
        "name": f"fake file server ({mode})",
        "kind": "server",
        "launch": {"argv": [sys.executable, str(FAKE), "--mode", mode, "{workspace}"]},
        "ends": "self",
        "timeout_s": 40,
    }
    return parse_target(data, Path(f"fake-file-server-{mode}.yaml"))


def _run(tmp_path: Path, mode: str, scenario: str) -> tuple[dict[str, Any], Path]:
    chosen = next(s for s in load_scenarios() if s.id == scenario)
    settings = RunSettings(tmp_path / "results", spec_commit="test", known_revisions=revisions())
    [verdict] = run_cells([Cell(_target(mode), "default", chosen, REVISION)], settings)
    assert _marked_processes(tmp_path / "results") == []
    cell = tmp_path / "results" / f"fake-file-server-{mode}" / "unversioned" / scenario / REVISION
    return verdict, cell


def _answers(tx: Transcript, ask: Line) -> list[Line]:
    """Our responses to the server's request ``ask`` (its id, going out, as a response)."""
    rid = ask.obj["id"]
    return [x for x in tx.lines if x.dir == "out" and x.is_response and x.obj.get("id") == rid]


def _check(verdict: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in verdict["checks"] if c["id"] == check)


# (mode, scenario) -> (cell verdict, after-failure outcome, its grade)
REFRESH = {
    ("kept", "server-refresh-error"): ("pass", "kept", "pass"),
    ("widened", "server-refresh-error"): ("non-strict", "widened", "non-strict"),
    ("refused-all", "server-refresh-error"): ("pass", "refused-all", "pass"),
    ("not-refreshed", "server-refresh-error"): ("not-exercised", "not-refreshed", "not-exercised"),
    # never narrows: it asked for roots and adopted none (the root beside its start-up folder
    # refused), so the refusals presupposing roots read not tested
    ("ignores", "server-refresh-error"): ("not-exercised", "already-wide", "informational"),
    ("widened", "server-refresh-malformed"): ("non-strict", "widened", "non-strict"),
    ("refused-all", "server-refresh-malformed"): ("pass", "refused-all", "pass"),
    ("kept", "server-refresh-silent"): ("pass", "kept", "pass"),
    ("widened", "server-refresh-no-uri"): ("non-strict", "widened", "non-strict"),
}


@pytest.mark.parametrize(("mode", "scenario"), list(REFRESH))
def test_refresh_failure_outcomes(tmp_path: Path, mode: str, scenario: str) -> None:
    verdict, cell = _run(tmp_path, mode, scenario)
    cell_verdict, outcome, grade = REFRESH[(mode, scenario)]
    got = _check(verdict, "after-failure")
    assert (got["outcome"], got["verdict"]) == (outcome, grade), got["observed"]
    assert verdict["verdict"] == cell_verdict, verdict["reason"]
    assert verdict["process"]["ended_by"] == "self"
    tx = read_transcript(cell / "transcript.jsonl")
    changed = tx.steps["changed"].start_n
    asks = [x for x in tx.incoming() if x.method == "roots/list" and x.n > changed]
    if outcome == "not-refreshed":
        assert asks == []
        return
    # the bad answer really went out: to the server's own request, after our change
    ours = _answers(tx, asks[0])
    if scenario == "server-refresh-silent":
        assert ours == []
        assert any(n.get("event") == "left-unanswered" for _n, n in tx.notes)
    else:
        [answer] = ours
        assert ("error" in answer.obj) == (scenario == "server-refresh-error")
        if scenario == "server-refresh-malformed":
            assert answer.obj["result"] == {"roots": "nope"}
    after = [p for p in verdict["probes"] if p["step"] == "after"]
    assert after and all(min(p["evidence"]) > asks[0].n for p in after)
    if outcome == "widened":
        before = [p for p in verdict["probes"] if p["step"] == "before" and p["place"] == "outside"]
        assert before and all(p["result"] == "refused" for p in before)
        assert _check(verdict, "after-failure")["refs"][0]["quote"].count("SHOULD") == 1
    if outcome == "refused-all":
        inside = [p for p in after if p["place"] == "in-root"]
        assert inside and all(p["result"] == "refused" for p in inside)


def test_a_malformed_root_list_never_reaches_the_fixture(tmp_path: Path) -> None:
    """The widened fake writes outside after the failure: the hashes see that write, and the
    fixture check still counts it as the probe's own target (it was asked for)."""
    verdict, _cell = _run(tmp_path, "widened", "server-refresh-malformed")
    wrote = [p for p in verdict["probes"] if p["step"] == "after" and p["place"] == "outside"
             and p["operation"] == "write"]  # fmt: skip
    assert wrote and wrote[0]["result"] == "allowed" and wrote[0]["effect"]
    assert _check(verdict, "fixture")["outcome"] == "intact"


# mode -> outcomes of (first-root, second-root, outside, cross-root, cross-out, cross-in)
SEVERAL = {
    "kept": ("allowed", "allowed", "refused", "allowed", "refused", "refused"),
    "first-only": ("allowed", "refused", "refused", "failed", "unpaired", "unpaired"),
    # adopted none of the roots: the places outside them are not tested against roots
    "ignores": ("allowed", "allowed", "not-adopted", "allowed", "not-adopted", "not-adopted"),
}


@pytest.mark.parametrize("mode", list(SEVERAL))
def test_several_roots_outcomes(tmp_path: Path, mode: str) -> None:
    verdict, cell = _run(tmp_path, mode, "server-several-roots")
    ids = ("first-root", "second-root", "outside", "cross-root", "cross-out", "cross-in")
    got = tuple(_check(verdict, i)["outcome"] for i in ids)
    assert got == SEVERAL[mode], verdict["reason"]
    assert _check(verdict, "fixture")["outcome"] == "intact"
    plan = json.loads((cell / "plan.json").read_text(encoding="utf-8"))
    tx = read_transcript(cell / "transcript.jsonl")
    # the second root went out as a root of its own, not beside the first
    ask = next(x for x in tx.incoming() if x.method == "roots/list")
    answer = _answers(tx, ask)[0]
    uris = [r["uri"] for r in answer.obj["result"]["roots"]]
    folders = plan["folders"]
    assert uris == [folders[n]["uri"] for n in ("app", "deep/other", "{beside}")]
    # first-only kept to the first root: refused beside, and refused outside too, so the
    # places outside the roots are still measured against roots
    adopted = {"kept": "adopted", "first-only": "partial", "ignores": "not-adopted"}[mode]
    assert _check(verdict, "adopted")["outcome"] == adopted
    cross = {p["place"]: p for p in verdict["probes"] if p["step"] == "cross"}
    if mode == "kept":  # moved on disk from one root into the other, each its own source
        changes = verdict["fixture_changes"]
        assert "deep/other/moved-cross-move-first-to-second.txt" in changes["created"]
        assert "app/movable-first-to-second.txt" in changes["removed"]
        assert cross["first-to-outside"]["result"] == "refused"
    if mode == "ignores":
        moved = "outside/moved-cross-move-first-to-outside.txt"
        assert moved in cross["first-to-outside"]["effect"]
        assert _check(verdict, "cross-out")["verdict"] == "not-exercised"
