"""Fixed waits are data (issue 11): a scenario window is declared with its justification, a
scenario that declares none gets none, and a cell whose client answered promptly ends on the
event that decided it, not at the end of a window.

Nothing here measures time: each test reads which way a cell ended (the peer's notes in the
transcript, in order, and how the client process ended).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare._errors import CompareError
from compare._yaml import load_yaml
from compare.exchange._scenarios import (
    SCENARIOS_DIR,
    load_scenario_file,
    load_scenarios,
    parse_scenario,
)
from compare.play._cells import Cell
from compare.play._harness import RunSettings, _plan, run_cells

from .fakes import fake_target

KNOWN = revisions()


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _handshake_data(**extra: Any) -> dict[str, Any]:
    data = load_yaml(SCENARIOS_DIR / "handshake.yaml")
    assert isinstance(data, dict)
    data.update(extra)
    return data


def _notes(folder: Path) -> list[dict[str, Any]]:
    notes = []
    for text in (folder / "transcript.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        if record["dir"] == "note":
            notes.append(json.loads(record["raw"]))
    return notes


def test_an_observe_window_without_its_why_does_not_load(tmp_path: Path) -> None:
    steps = [
        {"await": "notifications/initialized", "label": "initialized", "timeout_s": 10},
        {"observe_s": 0.5},
    ]
    with pytest.raises(CompareError, match="why"):
        parse_scenario(_handshake_data(steps=steps), tmp_path / "handshake.yaml")
    steps[1]["why"] = "the client may close after the handshake; we watch whether it does"
    parse_scenario(_handshake_data(steps=steps), tmp_path / "handshake.yaml")


def test_a_why_belongs_only_beside_a_window(tmp_path: Path) -> None:
    steps = [{"await": "notifications/initialized", "why": "waiting for the notification"}]
    with pytest.raises(CompareError, match="observe_s"):
        parse_scenario(_handshake_data(steps=steps), tmp_path / "handshake.yaml")


def test_a_linger_window_needs_its_justification(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="linger_why"):
        parse_scenario(_handshake_data(linger_s=0.3), tmp_path / "handshake.yaml")
    ok = parse_scenario(
        _handshake_data(linger_s=0.3, linger_why="a late reply to the last notification shows"),
        tmp_path / "handshake.yaml",
    )
    assert ok.raw["linger_s"] == 0.3


def test_every_shipped_window_says_why() -> None:
    for scenario in load_scenarios():
        for key in ("steps", "upstream_steps"):
            for step in scenario.raw.get(key, []):
                if "observe_s" in step:
                    assert len(step["why"]) >= 10, (scenario.id, step)
        assert ("linger_s" in scenario.raw) == ("linger_why" in scenario.raw), scenario.id


def test_a_scenario_without_a_window_gets_none(tmp_path: Path) -> None:
    handshake = next(s for s in load_scenarios() if s.id == "handshake")
    assert not any("observe_s" in step for step in handshake.steps)
    cell = Cell(fake_target("good"), "default", handshake, "2025-11-25")
    plan = _plan(cell, tmp_path / "ws", tmp_path / "control", KNOWN)
    assert plan["linger_s"] == 0
    assert not any("observe_s" in step for step in plan["steps"])


def _run(tmp_path: Path, scenario_path: Path, ends: str) -> tuple[dict[str, Any], Path]:
    scenario = load_scenario_file(scenario_path)
    cell = Cell(fake_target("good", ends=ends), "default", scenario, "2025-11-25")
    settings = RunSettings(tmp_path / "results", "test-commit", KNOWN)
    [verdict] = run_cells([cell], settings)
    return verdict, cell.folder(settings.results)


def _copy(tmp_path: Path, extra: str = "") -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir(exist_ok=True)
    path = folder / "handshake.yaml"
    path.write_text(
        (SCENARIOS_DIR / "handshake.yaml").read_text(encoding="utf-8") + extra, encoding="utf-8"
    )
    return path


def test_a_prompt_client_ends_the_cell_on_the_decisive_message(tmp_path: Path) -> None:
    """The peer closes right after notifications/initialized (the handshake's last event):
    no step between it and done, no window after it, and the client (which waits for its
    server to go) leaves by itself because the peer left, not because the harness ended it."""
    verdict, folder = _run(tmp_path, _copy(tmp_path), ends="self")
    assert verdict["verdict"] == "pass"
    events = [n["event"] for n in _notes(folder)]
    decided = events.index("step-done")
    assert events[decided + 1] == "done" and events.count("step-done") == 1
    after = next(n for n in _notes(folder) if n["event"] == "after-steps")
    assert after["linger_s"] == 0 and after["ended"] in ("drained", "closed")
    assert events.index("after-steps") > events.index("done")
    assert verdict["process"]["ended_by"] == "self"
    assert verdict["peer_done"]["reason"] == "steps complete"


def test_a_declared_window_is_sat_out_and_says_so(tmp_path: Path) -> None:
    """The counterpart: with ``linger_s`` declared the peer keeps serving, and its note says
    the window (not the client) ended it; the code path differs, not just the clock."""
    extra = 'linger_s: 0.2\nlinger_why: "a control: the same client kept for a window"\n'
    verdict, folder = _run(tmp_path, _copy(tmp_path, extra), ends="self")
    assert verdict["verdict"] == "pass"
    after = next(n for n in _notes(folder) if n["event"] == "after-steps")
    assert after["linger_s"] == 0.2 and after["ended"] == "window"


def test_a_target_that_needs_its_own_requests_through_is_served_until_they_arrive(
    tmp_path: Path,
) -> None:
    """``serve_until`` is an event, not a window: the peer closes once the named method has
    arrived (the fake host lists and calls the peer's tool after its handshake)."""
    from compare.exchange._targets import parse_target

    base = fake_target("good", ends="self")
    raw = {
        **base.raw,
        "serve_until": {"await": "tools/call", "timeout_s": 5, "why": "a test of the event"},
    }
    target = parse_target(raw, tmp_path / "fake-good.yaml")
    scenario = load_scenario_file(_copy(tmp_path))
    cell = Cell(target, "default", scenario, "2025-11-25")
    settings = RunSettings(tmp_path / "results", "test-commit", KNOWN)
    [verdict] = run_cells([cell], settings)
    folder = cell.folder(settings.results)
    assert verdict["verdict"] == "pass" and verdict["process"]["ended_by"] == "self"
    records = [json.loads(x) for x in (folder / "transcript.jsonl").read_text("utf-8").splitlines()]
    after = next(r["n"] for r in records if r["dir"] == "note" and '"after-steps"' in r["raw"])
    note = json.loads(next(r["raw"] for r in records if r["n"] == after))
    assert note["serve_until"] == "tools/call" and note["ended"] == "awaited"
    called = [r["n"] for r in records if r["dir"] == "in" and '"tools/call"' in r["raw"]]
    assert called and called[0] < after


def _slow_exit_cell(tmp_path: Path, more: dict[str, Any]) -> dict[str, Any]:
    from compare.exchange._targets import parse_target

    tmp_path.mkdir()
    base = fake_target("slow-exit", ends="self")
    target = parse_target({**base.raw, **more}, tmp_path / "fake-slow-exit.yaml")
    cell = Cell(target, "default", load_scenario_file(_copy(tmp_path)), "2025-11-25")
    settings = RunSettings(tmp_path / "results", "test-commit", KNOWN)
    [verdict] = run_cells([cell], settings)
    return verdict


def test_exit_s_is_the_time_a_self_ending_client_has_to_leave(tmp_path: Path) -> None:
    """The fake takes 1.5 s to exit after its server went: within a target's ``exit_s`` it
    ends by itself; past it the harness ends it and the wire check says 'lingered'."""
    why = {"exit_why": "a test: this fake sleeps 1.5 s before it exits"}
    patient = _slow_exit_cell(tmp_path / "a", {"exit_s": 6, **why})
    assert patient["process"]["ended_by"] == "self" and patient["process"]["exit_code"] == 0
    hasty = _slow_exit_cell(tmp_path / "b", {"exit_s": 0.3, **why})
    assert hasty["process"]["ended_by"] == "harness"
    exits = [c for c in hasty["checks"] if c["id"] == "client-exit"]
    assert exits and exits[0]["outcome"] == "lingered"


def test_exit_s_needs_its_why(tmp_path: Path) -> None:
    from compare.exchange._targets import parse_target

    raw = {**fake_target("good", ends="self").raw, "exit_s": 10}
    with pytest.raises(CompareError, match="exit_why"):
        parse_target(raw, tmp_path / "fake-good.yaml")


def test_every_shipped_exit_bound_says_why() -> None:
    from compare.exchange._targets import DEFAULT_EXIT_S, load_targets

    longer = {t.id: t for t in load_targets() if t.exit_s != DEFAULT_EXIT_S}
    assert "java-sdk" in longer  # measured: its JVM took over 3 s to leave on a loaded machine
    for target in longer.values():
        assert len(str(target.raw["exit_why"])) >= 10
