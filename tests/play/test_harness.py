"""The harness around the cells: caching, re-judging, not-run cells, crash isolation, the
``command`` target from the command line, reading results back, and the public surface.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _revisions import initialize_era, revisions

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.exchange._targets import parse_target
from compare.play import _cells, _harness, _integrity, _schedule
from compare.play._cells import Cell, load_cells, plan_cells
from compare.play._harness import RunSettings, run_cells

from .fakes import FAKE_CLIENT, fake_target

KNOWN = revisions()


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _settings(tmp_path: Path, **kw: bool) -> RunSettings:
    return RunSettings(tmp_path / "results", "test-commit", KNOWN, **kw)


def _scenario(sid: str) -> Scenario:
    return next(s for s in load_scenarios() if s.id == sid)


def test_each_name_is_imported_from_the_module_that_defines_it() -> None:
    """No package re-exports another's names (issue 22 item 6): the loaders are the data
    package's modules, playing is compare.play's, and compare.exchange itself is empty."""
    import compare.exchange
    from compare.exchange import _scenarios, _targets

    for module, name in (
        (_targets, "load_targets"),
        (_scenarios, "load_scenarios"),
        (_cells, "load_cells"),
        (_harness, "run_cells"),
    ):
        assert callable(getattr(module, name))
    with pytest.raises(AttributeError):
        compare.exchange.load_targets  # noqa: B018


def test_cached_cells_are_not_rerun_unless_forced(tmp_path: Path) -> None:
    cell = Cell(fake_target("good"), "default", _scenario("handshake"), "2025-11-25")
    [first] = run_cells([cell], _settings(tmp_path))
    assert first["verdict"] == "pass" and not first.get("cached")
    [again] = run_cells([cell], _settings(tmp_path))
    assert again["cached"] is True and again["key"] == first["key"]
    [forced] = run_cells([cell], _settings(tmp_path, force=True))
    assert not forced.get("cached") and forced["started_at"] >= first["started_at"]


def test_rejudge_reads_the_stored_transcript(tmp_path: Path) -> None:
    cell = Cell(fake_target("good"), "default", _scenario("roots-list"), "2025-06-18")
    [first] = run_cells([cell], _settings(tmp_path))
    folder = cell.folder(tmp_path / "results")
    # tamper with the evidence: the judge must see the new bytes, and no client must run
    lines = (folder / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    tampered = [ln.replace("%23", "#") if '"dir": "in"' in ln else ln for ln in lines]
    (folder / "transcript.jsonl").write_text("\n".join(tampered) + "\n", encoding="utf-8")
    # ... and record it as written, or the damage check refuses it (test_damaged_cells.py)
    stored = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    (folder / "verdict.json").write_text(json.dumps(_integrity.seal(stored, folder)))
    [again] = run_cells([cell], _settings(tmp_path, rejudge=True))
    checks = {c["id"]: c["outcome"] for c in again["checks"]}
    assert first["verdict"] == "pass"
    assert checks["root-uri-encoding"] == "hash-unencoded"
    assert again["process"] == first["process"] and "rejudged_at" in again


def test_cells_a_target_cannot_play_are_not_run_with_a_reason(tmp_path: Path) -> None:
    target = fake_target("good", can_change_roots=False)
    cells = [
        Cell(target, "default", _scenario("list-changed"), "2025-11-25"),
        Cell(target, "default", _scenario("roots-list"), "2026-07-28"),
        Cell(target, "default", _scenario("mrtr"), "2025-11-25"),
    ]
    verdicts = run_cells(cells, _settings(tmp_path))
    assert [v["verdict"] for v in verdicts] == ["not-run"] * 3
    assert all(v["reason"].startswith("not run, because") for v in verdicts)
    assert "cannot add a root" in verdicts[0]["reason"]
    assert "2024-11-05 … 2025-11-25" in verdicts[1]["reason"]


def test_a_cell_a_target_may_no_longer_play_keeps_none_of_its_earlier_play(tmp_path: Path) -> None:
    """A `not_run` entry added after a cell was played replaces the stored play whole: the
    folder keeps only the not-run verdict, so no later re-judging brings the old transcript
    back as a published verdict."""
    played = fake_target("good")
    cell = Cell(played, "default", _scenario("handshake"), "2025-11-25")
    [first] = run_cells([cell], _settings(tmp_path))
    assert first["verdict"] == "pass"
    raw = {**played.raw, "not_run": {"handshake": "the target's data says so"}}
    target = parse_target(raw, Path("fake-good.yaml"))
    barred = Cell(target, "default", _scenario("handshake"), "2025-11-25")
    folder = barred.folder(tmp_path / "results")
    assert folder == cell.folder(tmp_path / "results")
    for settings in (_settings(tmp_path), _settings(tmp_path, rejudge=True), _settings(tmp_path)):
        [verdict] = run_cells([barred], settings)
        assert verdict["verdict"] == "not-run"
        assert verdict["reason"] == "not run, because the target's data says so"
        assert sorted(p.name for p in folder.iterdir()) == ["verdict.json"]
    assert verdict["cached"] is True
    assert not list((tmp_path / "results").rglob("*.stage-*"))
    assert not list((tmp_path / "results").rglob("*.old-*"))


def test_variants_pick_their_scenarios() -> None:
    target = fake_target("good", variants=["roots", "no-roots"])
    cells = plan_cells([target], load_scenarios(), ["2025-11-25"])
    pairs = {(c.variant, c.scenario.id) for c in cells}
    assert ("no-roots", "roots-undeclared") in pairs and ("roots", "roots-list") in pairs
    assert ("roots", "roots-undeclared") not in pairs and ("no-roots", "roots-list") not in pairs
    assert cells[0].folder(Path("/r")).name.endswith("~" + cells[0].variant)


def test_a_crash_in_one_cell_loses_no_other_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = Cell(fake_target("good"), "default", _scenario("handshake"), "2025-11-25")
    [kept] = run_cells([good], _settings(tmp_path))
    stored = (good.folder(tmp_path / "results") / "verdict.json").read_bytes()
    real = _harness._run_client

    def explode(
        cell: Cell, stage: Path, settings: RunSettings, slot: _schedule.StartSlot
    ) -> dict[str, object]:
        if cell.scenario.id == "unknown-notification":
            raise RuntimeError("injected fault")
        return real(cell, stage, settings, slot)

    monkeypatch.setattr(_harness, "_run_client", explode)
    other = Cell(fake_target("good"), "default", _scenario("unknown-notification"), "2025-11-25")
    rerun = Cell(fake_target("good"), "default", _scenario("roots-list"), "2025-11-25")
    broken, fine = run_cells([other, rerun], _settings(tmp_path))
    assert broken["verdict"] == "error" and "injected fault" in broken["reason"]
    assert fine["verdict"] == "pass"
    assert (good.folder(tmp_path / "results") / "verdict.json").read_bytes() == stored
    assert kept["verdict"] == "pass"
    assert not list((tmp_path / "results").rglob("*.stage-*"))


def test_load_cells_marks_the_newest_version_current(tmp_path: Path) -> None:
    results = tmp_path / "results"
    for version in ("1.9.0", "1.10.0"):
        folder = results / "t" / version / "handshake" / "2025-11-25"
        folder.mkdir(parents=True)
        verdict = {"format": 1, "target": "t", "target_version": version, "verdict": "pass"}
        verdict |= {"scenario": "handshake", "revision": "2025-11-25"}  # placeable, so read
        (folder / "verdict.json").write_text(json.dumps(verdict))
    stage = results / "t" / "2.0.0" / "handshake" / ".2025-11-25.stage-abc"
    stage.mkdir(parents=True)
    (stage / "verdict.json").write_text(json.dumps({**verdict, "target_version": "2.0.0"}))
    (results / "t" / "1.10.0" / "junk" / "x").mkdir(parents=True)
    (results / "t" / "1.10.0" / "junk" / "x" / "verdict.json").write_text("{not json")
    cells = load_cells(results)
    assert {(c.version, c.current) for c in cells} == {("1.9.0", False), ("1.10.0", True)}


def test_command_target_from_the_command_line(tmp_path: Path) -> None:
    command = f"{sys.executable} {FAKE_CLIENT} --mode good --control {{control}} -- {{server_argv}}"
    env = {**os.environ, "MCP_COMPARE_RESULTS": str(tmp_path / "results")}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "compare",
            "run",
            "--target",
            "command",
            "--command",
            command,
            "--scenario",
            "roots-list",
            "--revision",
            "2024-11-05",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["counts"] == {"pass": 1}
    [cell] = summary["cells"]
    assert cell["target_version"].startswith("cmd-")


def test_command_target_needs_a_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compare", "run", "--target", "command"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "MCP_COMPARE_RESULTS": str(tmp_path / "results")},
    )
    assert done.returncode == 2
    assert "needs --command" in done.stderr and "Traceback" not in done.stderr


def test_peer_command_reports_a_missing_plan(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "compare", "peer", "--plan", str(tmp_path / "none.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "cannot read plan" in done.stderr


def test_shipped_targets_plan_cleanly() -> None:
    from compare.exchange._targets import load_targets

    targets = load_targets()
    cells = plan_cells(targets, load_scenarios(), KNOWN)
    assert {c.target.id for c in cells} >= {"ts-sdk", "py-sdk", "fastmcp"}
    assert "command" not in {c.target.id for c in cells}  # it needs --command
    for cell in cells:
        reason = cell.not_run_reason()
        assert reason is None or reason.startswith("not run, because"), (cell.label, reason)
    sdk_list_changed = [
        c for c in cells if c.target.id == "ts-sdk" and c.scenario.id == "list-changed"
    ]
    assert sdk_list_changed and all(
        c.not_run_reason() is None for c in sdk_list_changed if c.revision in initialize_era()
    )


def _scenario_copy(tmp_path: Path, sid: str, old: str = "", new: str = "") -> Scenario:
    """A shipped scenario file copied (and optionally edited) into a folder of its own."""
    from compare.exchange._scenarios import SCENARIOS_DIR, load_scenario_file

    folder = tmp_path / "scenarios"
    folder.mkdir(exist_ok=True)
    text = (SCENARIOS_DIR / f"{sid}.yaml").read_text(encoding="utf-8")
    assert old in text
    path = folder / f"{sid}.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return load_scenario_file(path)


def test_a_judge_change_rejudges_cached_cells_without_rerunning_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compare.play import _cells

    cell = Cell(fake_target("good"), "default", _scenario("handshake"), "2025-11-25")
    [first] = run_cells([cell], _settings(tmp_path))
    folder = cell.folder(tmp_path / "results")
    transcript = (folder / "transcript.jsonl").read_bytes()
    monkeypatch.setattr(_cells, "judge_version", lambda: "edited rules")
    [again] = run_cells([cell], _settings(tmp_path))
    assert again["key"] != first["key"]
    assert not again.get("cached") and again.get("rejudged_at")
    assert again["play_key"] == first["play_key"]
    assert again["started_at"] == first["started_at"]  # the client did not run again
    assert again["process"] == first["process"]
    assert (folder / "transcript.jsonl").read_bytes() == transcript
    [third] = run_cells([cell], _settings(tmp_path))
    assert third["cached"] is True and third["key"] == again["key"]


def test_a_grading_edit_in_the_scenario_rejudges_but_a_step_edit_reruns(tmp_path: Path) -> None:
    target = fake_target("good")
    base = _scenario_copy(tmp_path, "handshake")
    cell = Cell(target, "default", base, "2025-11-25")
    [first] = run_cells([cell], _settings(tmp_path))
    assert first["verdict"] == "pass"
    graded = _scenario_copy(
        tmp_path,
        "handshake",
        'present: {verdict: pass, means: "name and version given"}',
        'present: {verdict: pass, means: "clientInfo names it (regraded)"}',
    )
    [rejudged] = run_cells([Cell(target, "default", graded, "2025-11-25")], _settings(tmp_path))
    assert rejudged.get("rejudged_at") and rejudged["started_at"] == first["started_at"]
    info = next(c for c in rejudged["checks"] if c["id"] == "client-info")
    assert info["reason"].startswith("clientInfo names it (regraded)")
    stepped = _scenario_copy(
        tmp_path,
        "handshake",
        "label: initialized, timeout_s: 10",
        "label: initialized, timeout_s: 9",
    )
    [rerun] = run_cells([Cell(target, "default", stepped, "2025-11-25")], _settings(tmp_path))
    assert not rerun.get("rejudged_at") and not rerun.get("cached")
    assert rerun["play_key"] != first["play_key"]
    plan = json.loads((cell.folder(tmp_path / "results") / "plan.json").read_text())
    assert plan["steps"][0]["timeout_s"] == 9


def _command_target_file(folder: Path, tag: str) -> Path:
    """A target file for the fake client; ``tag`` changes its launch line, hence its version."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, str(FAKE_CLIENT), "--mode", "good", "--tag", tag]
    argv += ["--control", "{control}", "--", "{server_argv}"]
    text = (
        "id: fake-history\nname: fake client (history)\nkind: command\n"
        f"launch:\n  argv: {json.dumps(argv)}\nends: harness\ntimeout_s: 20\n"
    )
    path = folder / "fake-history.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_new_pinned_version_keeps_the_old_cells_as_history(tmp_path: Path) -> None:
    from compare.exchange._targets import load_targets

    settings = _settings(tmp_path)
    _command_target_file(tmp_path / "targets-old", "v1")
    _command_target_file(tmp_path / "targets-new", "v2")
    [old_target] = load_targets(tmp_path / "targets-old")
    [new_target] = load_targets(tmp_path / "targets-new")
    assert old_target.version != new_target.version
    scenario = _scenario("handshake")
    [old] = run_cells([Cell(old_target, "default", scenario, "2025-11-25")], settings)
    old_file = Cell(old_target, "default", scenario, "2025-11-25").folder(settings.results)
    kept = (old_file / "verdict.json").read_bytes()
    [new] = run_cells([Cell(new_target, "default", scenario, "2025-11-25")], settings)
    assert not new.get("cached") and old["verdict"] == new["verdict"] == "pass"
    base = settings.results / "fake-history"
    assert sorted(p.name for p in base.iterdir()) == sorted(
        [old_target.version, new_target.version]
    )
    assert (old_file / "verdict.json").read_bytes() == kept  # history untouched
    cells = load_cells(settings.results, pinned={new_target.id: new_target.version})
    assert {(c.version, c.current) for c in cells} == {
        (old_target.version, False),
        (new_target.version, True),
    }
    # Pinned back to the old version: only it is current, whatever sorts newest.
    back = load_cells(settings.results, pinned={old_target.id: old_target.version})
    assert {(c.version, c.current) for c in back} == {
        (old_target.version, True),
        (new_target.version, False),
    }


def test_a_bumped_package_version_plans_into_a_new_folder(tmp_path: Path) -> None:
    """A shipped target file copied with a bumped version: its cells go to a new folder."""
    from compare.exchange._targets import TARGETS_DIR, load_targets

    text = (TARGETS_DIR / "ts-sdk.yaml").read_text(encoding="utf-8")
    [shipped] = [t for t in load_targets() if t.id == "ts-sdk"]
    assert shipped.package is not None
    pinned = shipped.package["version"]
    folder = tmp_path / "targets"
    folder.mkdir()
    bumped = text.replace(f'version: "{pinned}"', 'version: "99.0.0"', 1)
    assert bumped != text
    (folder / "ts-sdk.yaml").write_text(bumped, encoding="utf-8")
    [target] = load_targets(folder)
    cell = Cell(target, "roots", _scenario("roots-list"), "2025-11-25")
    assert (
        cell.folder(tmp_path) == tmp_path / "ts-sdk" / "99.0.0" / "roots-list" / "2025-11-25~roots"
    )
    old = Cell(shipped, "roots", _scenario("roots-list"), "2025-11-25").folder(tmp_path)
    assert old.parent.parent.name == pinned


def test_a_client_that_stops_its_server_is_ended_at_once_not_at_the_bound(
    tmp_path: Path,
) -> None:
    """Gemini prompt mode refusing 2025-11-25: it SIGTERMs the peer and keeps running. The
    peer's done.json (written on SIGTERM) lets the harness end it instead of timing out."""
    target = fake_target("refuse", ends="harness", timeout_s=60)
    cells = [
        Cell(target, "default", _scenario(sid), "2025-11-25")
        for sid in ("handshake", "unknown-notification")
    ]
    verdicts = run_cells(cells, _settings(tmp_path))
    for verdict in verdicts:
        where = f"{verdict['scenario']}: {verdict['reason']}"
        assert verdict["process"]["ended_by"] == "harness", where
        # handshake: the initialize itself is graded (valid), the refusal is informational
        want = "pass" if verdict["scenario"] == "handshake" else "informational"
        assert verdict["verdict"] == want, where
        refused = [c for c in verdict["checks"] if c["outcome"] == "version-refused"]
        assert refused and "client does not accept 2025-11-25" in refused[0]["reason"], where
        assert "SIGTERM" in verdict["peer_done"]["reason"], where
        assert all(c["verdict"] != "fail" for c in verdict["checks"]), where
    # where the server answers the version it asked for, the same client goes on
    [same] = run_cells(
        [Cell(target, "default", _scenario("handshake"), "2025-06-18")], _settings(tmp_path)
    )
    assert same["verdict"] == "pass", same["reason"]


def test_a_client_that_exits_before_initialize_gets_errors_not_informational(
    tmp_path: Path,
) -> None:
    target = fake_target("exit-early", ends="self")
    cells = [
        Cell(target, "default", _scenario(sid), "2025-11-25")
        for sid in ("roots-list", "roots-undeclared", "unknown-notification")
    ]
    for verdict in run_cells(cells, _settings(tmp_path)):
        where = f"{verdict['scenario']}: {verdict['reason']}"
        assert verdict["verdict"] == "error", where
        assert "the client ended before initialize (it exited with 1)" in verdict["reason"], where
        own = [c for c in verdict["checks"] if not c["id"].startswith(("wire", "client"))]
        assert all(c["verdict"] in ("error", "fail") for c in own), where


def test_the_plan_carries_the_era_boundary_of_the_pins(tmp_path: Path) -> None:
    """The peer learns where the handshake era ends from the plan, computed from the pins: a
    pin list without any revision past it (as before 2026-07-28 was pinned) plays every cell,
    the first modern one included, as a handshake cell."""
    from _revisions import first_after_initialize

    first = first_after_initialize()
    cell = Cell(fake_target("good"), "default", _scenario("mrtr"), first)
    plan = _harness._plan(cell, tmp_path, tmp_path, KNOWN)
    assert plan["first_modern"] == first
    assert plan["answer_revision"] == _scenario("mrtr").raw["answer_revision"]
    old_pins = _harness._plan(cell, tmp_path, tmp_path, initialize_era())
    assert old_pins["first_modern"] is None
    assert old_pins["answer_revision"] == first


def test_a_peer_its_client_killed_is_seen_gone_after_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PeerWatch: the newest start's process is read from the record; gone (or a zombie)
    for the grace, the cell may end; a new start in between keeps it going."""
    import subprocess
    import sys

    from compare.play import _harness

    monkeypatch.setattr(_harness.PeerWatch, "GRACE_S", 0.0)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        record = tmp_path / "transcript.jsonl"

        def start(pid: int) -> str:
            note = json.dumps({"event": "start", "pid": pid})
            return json.dumps({"n": 1, "t": 0.0, "dir": "note", "raw": note}) + "\n"

        watch = _harness.PeerWatch(tmp_path)
        assert watch() is False  # no record yet
        record.write_text(start(dead.pid), encoding="utf-8")
        watch.checked = 0.0
        assert watch() is True
        with open(record, "a", encoding="utf-8") as fh:  # the client started its server again
            fh.write(start(alive.pid))
        watch.checked = 0.0
        assert watch() is False
    finally:
        alive.kill()
        alive.wait()
