"""``--repeat N`` and ``--settle N`` (issue 21): a cell played several times keeps every
play, and reads ``unstable`` — never pass or fail — when the plays' outcomes differ.

The fake client plays the cells (fast); its ``flaky`` mode is ``good`` and ``bad-roots`` on
alternate runs (a counter file), so a repeated cell's outcome changes on purpose. The failing
plays are ``bad-roots`` (an invalid roots/list result, at once), not ``wrong-ids``, whose
unanswered request costs the step's whole timeout per play; ``tests/play/test_faults.py``
plays that one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare._guard import Interrupted
from compare._paths import PROJECT_ROOT
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import Target
from compare.pipeline import _stages
from compare.play import _harness, _schedule
from compare.play._cells import Cell, scan_cells
from compare.play._harness import RunSettings
from compare.play._integrity import inspect, seal_of
from compare.play._merge import merge
from compare.play._plays import SETTLE, combine, differed
from compare.play._run import run
from compare.play._shard import shard_cells

from .fakes import FAKE_CLIENT, fake_target

KNOWN = revisions()
COMMIT = "test"
REVISION = "2025-06-18"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _flaky(tmp_path: Path) -> Target:
    return fake_target("flaky", extra=["--counter", str(tmp_path / "counter")])


def _cell(target: Target, scenario: str = "roots-list") -> Cell:
    found = next(s for s in load_scenarios() if s.id == scenario)
    return Cell(target, "default", found, REVISION)


def _stored(cell: Cell, results: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((cell.folder(results) / "verdict.json").read_text("utf-8"))
    return value


def test_a_flaky_client_repeated_reads_unstable_with_both_plays(tmp_path: Path) -> None:
    results = tmp_path / "results"
    cell = _cell(_flaky(tmp_path))
    [verdict] = run([cell], COMMIT, KNOWN, results=results, repeat=2)
    assert verdict["verdict"] == "unstable", verdict["reason"]
    stored = _stored(cell, results)
    assert stored["verdict"] == "unstable" and stored["seal"] == seal_of(stored)
    plays = stored["plays"]
    assert [p["play"] for p in plays] == [1, 2]
    assert [p["verdict"] for p in plays] == ["pass", "fail"]
    assert [p["transcript"] for p in plays] == ["transcript.jsonl", "plays/2/transcript.jsonl"]
    folder = cell.folder(results)
    for play in plays:
        assert (folder / play["transcript"]).stat().st_size > 0
    assert stored["differed"], stored
    for check in stored["checks"]:
        if check["id"] in stored["differed"]:
            assert check["verdict"] == "unstable" and len(check["outcomes"]) == 2
    assert "plays/2/transcript.jsonl" in stored["written"]  # every play is sealed
    assert not inspect(folder).damage


def test_a_stable_client_repeated_keeps_its_verdict_with_every_play(tmp_path: Path) -> None:
    results = tmp_path / "results"
    cell = _cell(fake_target("good"))
    [verdict] = run([cell], COMMIT, KNOWN, results=results, repeat=3)
    assert verdict["verdict"] == "pass", verdict["reason"]
    stored = _stored(cell, results)
    assert [p["verdict"] for p in stored["plays"]] == ["pass"] * 3
    assert "differed" not in stored and "the same in all 3 plays" in stored["reason"]
    [again] = run([cell], COMMIT, KNOWN, results=results, repeat=3)
    assert again["cached"] is True  # the plays are there: nothing is played
    [fewer] = run([cell], COMMIT, KNOWN, results=results)
    assert fewer["cached"] is True and len(fewer["plays"]) == 3


def test_a_cached_cell_with_fewer_plays_is_given_the_rest(tmp_path: Path) -> None:
    results = tmp_path / "results"
    cell = _cell(_flaky(tmp_path))
    [once] = run([cell], COMMIT, KNOWN, results=results)
    assert once["verdict"] == "pass" and "plays" not in once  # one play reads as before
    first = (cell.folder(results) / "transcript.jsonl").read_bytes()
    [more] = run([cell], COMMIT, KNOWN, results=results, repeat=2)
    assert not more.get("cached") and more["verdict"] == "unstable"
    assert (cell.folder(results) / "transcript.jsonl").read_bytes() == first  # play 1 kept
    assert (tmp_path / "counter").read_text() == "2"  # one more client run, not two


def test_settle_plays_a_new_fail_until_it_has_three_plays(tmp_path: Path) -> None:
    results = tmp_path / "results"
    failing, passing = _cell(fake_target("bad-roots")), _cell(fake_target("good"))
    verdicts = run([failing, passing], COMMIT, KNOWN, results=results, settle=SETTLE)
    bad, good = verdicts
    assert bad["verdict"] == "fail" and len(bad["plays"]) == SETTLE
    assert bad["replayed"] == SETTLE - 1 and "replayed" not in _stored(failing, results)
    assert good["verdict"] == "pass" and "plays" not in good and "replayed" not in good
    [cached] = run([failing], COMMIT, KNOWN, results=results, settle=SETTLE)
    assert cached["cached"] is True and not cached.get("replayed")


def test_settle_plays_a_flaky_cell_to_three_and_it_reads_unstable(tmp_path: Path) -> None:
    results = tmp_path / "results"
    (tmp_path / "counter").write_text("1")  # the first play is the failing one
    cell = _cell(_flaky(tmp_path))
    [verdict] = run([cell], COMMIT, KNOWN, results=results, settle=SETTLE)
    assert verdict["verdict"] == "unstable"
    assert [p["verdict"] for p in verdict["plays"]] == ["fail", "pass", "fail"]


def test_compare_plays_doubtful_cells_to_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pipeline's run stage calls the ``run`` stage function with ``settle=3``."""
    from compare.exchange import cli

    seen: list[dict[str, object]] = []

    def fake_run(*args: object, **kwargs: object) -> int:
        seen.append(kwargs)
        return 0

    monkeypatch.setattr(cli, "run", fake_run)
    [run_stage] = [s for s in _stages.stages(1) if s.name == "run"]
    assert run_stage.call() == 0
    assert [kw["settle"] for kw in seen] == [SETTLE] and SETTLE == 3


def test_shards_with_plays_merge_to_the_serial_tree(tmp_path: Path) -> None:
    cells = [_cell(fake_target(mode)) for mode in ("good", "bad-roots")]
    run(cells, COMMIT, KNOWN, results=tmp_path / "serial", repeat=2)
    shards = [tmp_path / "shard-1", tmp_path / "shard-2"]
    for i, folder in enumerate(shards, start=1):
        run(shard_cells(cells, i, 2), COMMIT, KNOWN, results=folder, repeat=2)
    done = merge(shards, tmp_path / "merged")
    assert len(done.copied) == 2
    merged = {
        c.folder.relative_to(tmp_path / "merged"): c.verdict
        for c in scan_cells(tmp_path / "merged").cells
    }
    serial = {
        c.folder.relative_to(tmp_path / "serial"): c.verdict
        for c in scan_cells(tmp_path / "serial").cells
    }
    assert {k: v["verdict"] for k, v in merged.items()} == {
        k: v["verdict"] for k, v in serial.items()
    }
    for rel, verdict in merged.items():
        assert len(verdict["plays"]) == 2
        assert (tmp_path / "merged" / rel / "plays/2/transcript.jsonl").is_file()
        assert not inspect(tmp_path / "merged" / rel).damage


@pytest.mark.parametrize("name", ["transcript.jsonl", "process.json", "client.stderr"])
def test_a_damaged_play_file_is_named_and_the_cell_played_again_with_its_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    results = tmp_path / "results"
    cell = _cell(fake_target("good"))
    run([cell], COMMIT, KNOWN, results=results, repeat=2)
    damaged = cell.folder(results) / "plays" / "2" / name
    damaged.write_bytes(damaged.read_bytes() + b"x")
    capsys.readouterr()
    [scan] = [u.why for u in scan_cells(results).unreadable]
    assert "changed after it was written" in scan
    [again] = run([cell], COMMIT, KNOWN, results=results)  # no --repeat: keeps its 2 plays
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(f"{damaged} "), said
    assert said[0].endswith("; playing the cell again"), said
    assert not again.get("cached") and len(again["plays"]) == 2
    assert not inspect(cell.folder(results)).damage


def test_a_deleted_play_folder_is_named_and_played_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"
    cell = _cell(fake_target("good"))
    run([cell], COMMIT, KNOWN, results=results, repeat=2)
    shutil.rmtree(cell.folder(results) / "plays")
    capsys.readouterr()
    [again] = run([cell], COMMIT, KNOWN, results=results)
    said = capsys.readouterr().err
    assert "plays/2/" in said and "is missing" in said
    assert len(again["plays"]) == 2 and again["verdict"] == "pass"


def test_rejudge_judges_every_play_again(tmp_path: Path) -> None:
    results = tmp_path / "results"
    cell = _cell(_flaky(tmp_path))
    run([cell], COMMIT, KNOWN, results=results, repeat=2)
    [again] = run([cell], COMMIT, KNOWN, results=results, rejudge=True)
    assert again["verdict"] == "unstable" and "rejudged_at" in again
    assert [p["verdict"] for p in again["plays"]] == ["pass", "fail"]
    assert (tmp_path / "counter").read_text() == "2"  # no client ran
    assert not inspect(cell.folder(results)).damage


def _play(verdict: str, **outcomes: str) -> dict[str, Any]:
    checks = [{"id": k, "outcome": o, "verdict": verdict} for k, o in outcomes.items()]
    return {"verdict": verdict, "reason": verdict, "checks": checks, "duration_s": 1.0}


def test_combine_names_the_checks_that_differed_and_an_error_play_is_an_error() -> None:
    same = combine([_play("pass", a="ok", b="ok"), _play("pass", a="ok", b="ok")])
    assert same["verdict"] == "pass" and same["duration_s"] == 2.0
    mixed = [_play("pass", a="ok", b="ok"), _play("pass", a="ok", b="other")]
    assert differed(mixed) == ["b"]
    out = combine(mixed)
    assert out["verdict"] == "unstable" and out["differed"] == ["b"]
    assert "b: ok in play 1, other in play 2" in out["reason"]
    error = combine([_play("pass", a="ok"), {"verdict": "error", "reason": "timed out"}])
    assert error["verdict"] == "error" and "play 2 of 2 ended in error" in error["reason"]


def test_an_informational_check_that_varies_reads_unstable_but_keeps_the_cell_verdict() -> None:
    """A race measured on purpose (an informational check in every play) cannot move a verdict
    every play agreed on; the check itself reads unstable, so a row built on it says so."""
    plays = [
        {**_play("pass", a="ok"), "checks": [
            {"id": "a", "outcome": "ok", "verdict": "pass"},
            {"id": "race", "outcome": "relayed", "verdict": "informational"},
        ]},
        {**_play("pass", a="ok"), "checks": [
            {"id": "a", "outcome": "ok", "verdict": "pass"},
            {"id": "race", "outcome": "unanswered", "verdict": "informational"},
        ]},
    ]  # fmt: skip
    out = combine(plays)
    assert out["verdict"] == "pass" and out["differed"] == ["race"]
    assert "race: relayed in play 1, unanswered in play 2" in out["reason"]
    race = next(c for c in out["checks"] if c["id"] == "race")
    assert race["verdict"] == "unstable" and race["outcomes"] == ["relayed", "unanswered"]
    graded = [plays[0], {**plays[1], "checks": [*plays[1]["checks"][:1], {
        "id": "race", "outcome": "unanswered", "verdict": "fail"}]}]  # fmt: skip
    assert combine(graded)["verdict"] == "unstable"
    # issue 36: not exercised grades nothing either; exercised in one play and not in the
    # other is a difference in what was graded, so the cell is unstable
    unexercised = [plays[0], {**plays[1], "checks": [*plays[1]["checks"][:1], {
        "id": "race", "outcome": "not-sent", "verdict": "not-exercised"}]}]  # fmt: skip
    assert combine(unexercised)["verdict"] == "pass"
    half = [
        {**_play("pass", a="ok"), "checks": [{"id": "a", "outcome": "ok", "verdict": "pass"}]},
        {**_play("not-exercised", a="not-sent"), "checks": [
            {"id": "a", "outcome": "not-sent", "verdict": "not-exercised"}]},
    ]  # fmt: skip
    assert combine(half)["verdict"] == "unstable"


def _cli(tmp_path: Path, pinned_spec: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = (
        f"{sys.executable} {FAKE_CLIENT} --mode flaky --counter {tmp_path / 'counter'} "
        "-- {server_argv}"
    )
    select = ["-t", "command", "--command", command, "-s", "roots-list", "-r", REVISION]
    into = ["--results", str(tmp_path / "results")]
    return subprocess.run(
        [sys.executable, "-m", "compare", "run", "--json", *select, *into, *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MCP_COMPARE_CACHE": str(pinned_spec)},
    )


def test_the_command_line_counts_replayed_and_unstable_cells(
    tmp_path: Path, pinned_spec: Path
) -> None:
    (tmp_path / "counter").write_text("1")  # the first play fails, so --settle plays again
    done = _cli(tmp_path, pinned_spec, "--settle", "3")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["tally"]["unstable"] == 1 and summary["tally"]["replayed"] == 1
    assert summary["tally"]["replayed_unstable"] == 1
    [cell] = summary["cells"]
    assert (cell["verdict"], cell["plays"], cell["replayed"]) == ("unstable", 3, 2)
    assert "1 doubtful cell(s) played again, 1 of them unstable" in done.stderr


@pytest.mark.parametrize("option", ["--repeat", "--settle"])
def test_a_repeat_below_one_is_a_clear_error(
    tmp_path: Path, pinned_spec: Path, option: str
) -> None:
    done = _cli(tmp_path, pinned_spec, option, "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{option} must be at least 1" in done.stderr
    assert not (tmp_path / "counter").exists()  # nothing was played


def test_an_interrupted_repeat_leaves_the_stored_cell_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results"
    cell = _cell(fake_target("good"))
    run([cell], COMMIT, KNOWN, results=results)
    stored = (cell.folder(results) / "verdict.json").read_bytes()
    real = _harness._run_client
    calls: list[Path] = []

    def stop_on_the_third_play(
        c: Cell, folder: Path, settings: RunSettings, slot: _schedule.StartSlot
    ) -> dict[str, Any]:
        calls.append(folder)
        if len(calls) == 2:  # plays 2 and 3 are added; the signal comes during play 3
            raise Interrupted(signal.SIGTERM)
        return real(c, folder, settings, slot)

    monkeypatch.setattr(_harness, "_run_client", stop_on_the_third_play)
    with pytest.raises(Interrupted):
        run([cell], COMMIT, KNOWN, results=results, repeat=3)
    assert [p.parts[-2:] for p in calls] == [("plays", "2"), ("plays", "3")]
    assert (cell.folder(results) / "verdict.json").read_bytes() == stored  # one play, as before
    assert not (cell.folder(results) / "plays").exists()
    assert not list(results.rglob("*.stage-*"))  # the half-played copy is gone
