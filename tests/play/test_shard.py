"""``--jobs``, ``--shard I/N`` and ``merge`` (issue 11): however the cells are split — over
threads or over machines — the merged results are the serial run's.

The runs here use the fake client (fast, no tools folder needed); ``test_shard_real.py`` does
the same with a real SDK client.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from _revisions import revisions

from compare._cores import usable_cores
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.exchange._scenarios import load_scenarios
from compare.play._cells import Cell, plan_cells
from compare.play._merge import merge
from compare.play._run import run
from compare.play._shard import declared_waits, parse_shard, shard_cells

from ._same import tree_facts
from .fakes import FAKE_CLIENT, fake_target

KNOWN = revisions()
COMMIT = "test"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _cells() -> list[Cell]:
    """Two fake clients × handshake (played) and mrtr (not run before 2026-07-28) × two
    revisions: 8 cells, 4 of them played."""
    scenarios = [s for s in load_scenarios() if s.id in ("handshake", "mrtr")]
    targets = [fake_target("good"), fake_target("wrong-ids")]
    return plan_cells(targets, scenarios, ["2025-06-18", "2025-11-25"])


def _run(cells: list[Cell], results: Path, jobs: int = 1) -> None:
    run(cells, COMMIT, KNOWN, results=results, jobs=jobs)


def test_parse_shard_accepts_i_of_n_and_refuses_the_rest() -> None:
    assert parse_shard("1/1") == (1, 1)
    assert parse_shard(" 3 / 4 ") == (3, 4)
    for bad in ("0/2", "3/2", "1/0", "2", "a/b", "-1/2", "1/2/3", ""):
        with pytest.raises(CompareError):
            parse_shard(bad)


def test_shards_partition_the_cells_whatever_their_order() -> None:
    cells = _cells()
    for count in (1, 2, 3, 5, 9):
        parts = [shard_cells(cells, i, count) for i in range(1, count + 1)]
        labels = [c.label for part in parts for c in part]
        assert sorted(labels) == sorted(c.label for c in cells)  # each cell exactly once
        shuffled = cells[:]
        random.Random(count).shuffle(shuffled)
        again = [shard_cells(shuffled, i, count) for i in range(1, count + 1)]
        assert [{c.label for c in p} for p in again] == [{c.label for c in p} for p in parts]
        assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_each_targets_played_cells_are_spread_over_the_shards() -> None:
    cells = _cells()
    for i in (1, 2):
        mine = shard_cells(cells, i, 2)
        played = [c for c in mine if c.not_run_reason() is None]
        assert {c.target.id for c in played} == {"fake-good", "fake-wrong-ids"}, i
        assert len(played) == 2


def test_usable_cores_follow_the_affinity_not_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    assert usable_cores() >= 1
    monkeypatch.setattr(os, "process_cpu_count", lambda: 3, raising=False)
    assert usable_cores() == 3
    monkeypatch.delattr(os, "process_cpu_count")
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 5}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert usable_cores() == 2


def test_two_jobs_give_the_serial_verdicts(tmp_path: Path) -> None:
    cells = _cells()
    _run(cells, tmp_path / "serial", jobs=1)
    _run(cells, tmp_path / "parallel", jobs=2)
    serial = tree_facts(tmp_path / "serial")
    assert len(serial) == len(cells)
    assert {f["verdict"] for f in serial.values()} >= {"not-run"}
    assert tree_facts(tmp_path / "parallel") == serial


def test_shards_merged_equal_a_serial_run(tmp_path: Path) -> None:
    cells = _cells()
    _run(cells, tmp_path / "serial")
    shards = [tmp_path / f"shard-{i}" for i in (1, 2, 3)]
    for i, folder in enumerate(shards, start=1):
        _run(shard_cells(cells, i, 3), folder)
    done = merge(shards, tmp_path / "merged")
    assert len(done.copied) == len(cells) and not done.duplicates
    assert tree_facts(tmp_path / "merged") == tree_facts(tmp_path / "serial")
    # A shard named twice is only identical duplicates; the merged tree stays the same.
    again = merge([*shards, shards[0]], tmp_path / "merged")
    assert len(again.duplicates) == len(list(shards[0].glob("*/*/*/*/verdict.json")))
    assert tree_facts(tmp_path / "merged") == tree_facts(tmp_path / "serial")
    # The destination may be one of the shards: its own cells stay, the others come in.
    into = merge(shards, shards[0])
    assert tree_facts(shards[0]) == tree_facts(tmp_path / "serial")
    assert len(into.copied) == len(cells) - len(into.duplicates)


def _crafted(results: Path, rel: str, verdict: str, key: str = "k1") -> Path:
    folder = results / rel
    folder.mkdir(parents=True)
    scenario, revision = rel.split("/")[-2:]
    data = {"format": 1, "target": "t", "target_version": "1", "scenario": scenario,
            "revision": revision, "key": key, "verdict": verdict}  # fmt: skip
    (folder / "verdict.json").write_text(json.dumps(data))
    (folder / "transcript.jsonl").write_text(verdict)
    return folder


def test_conflicting_cells_are_refused_and_nothing_is_merged(tmp_path: Path) -> None:
    _crafted(tmp_path / "a", "t/1/handshake/2025-06-18", "pass")
    _crafted(tmp_path / "a", "t/1/handshake/2025-11-25", "pass")
    _crafted(tmp_path / "b", "t/1/handshake/2025-06-18", "fail")
    with pytest.raises(CompareError) as err:
        merge([tmp_path / "a", tmp_path / "b"], tmp_path / "merged")
    message = str(err.value)
    assert str(tmp_path / "a" / "t/1/handshake/2025-06-18") in message
    assert str(tmp_path / "b" / "t/1/handshake/2025-06-18") in message
    assert not (tmp_path / "merged").exists()  # the conflict was found before any copy


def test_same_verdict_under_another_key_is_a_conflict_too(tmp_path: Path) -> None:
    _crafted(tmp_path / "a", "t/1/s/r", "pass", key="k1")
    _crafted(tmp_path / "b", "t/1/s/r", "pass", key="k2")
    with pytest.raises(CompareError, match="conflicting cell t/1/s/r"):
        merge([tmp_path / "a", tmp_path / "b"], tmp_path / "merged")


def test_identical_duplicates_merge_and_an_older_destination_cell_is_replaced(
    tmp_path: Path,
) -> None:
    _crafted(tmp_path / "a", "t/1/s/r", "pass")
    _crafted(tmp_path / "b", "t/1/s/r", "pass")
    _crafted(tmp_path / "merged", "t/1/s/r", "error", key="old")
    done = merge([tmp_path / "a", tmp_path / "b"], tmp_path / "merged")
    assert len(done.copied) == 1 and len(done.duplicates) == 1
    stored = json.loads((tmp_path / "merged/t/1/s/r/verdict.json").read_text())
    assert stored["verdict"] == "pass"
    assert [p.name for p in (tmp_path / "merged/t/1/s").iterdir()] == ["r"]  # no staging left


def test_merge_refuses_a_missing_folder_and_an_unreadable_verdict(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="is not a folder"):
        merge([tmp_path / "nowhere"], tmp_path / "merged")
    folder = _crafted(tmp_path / "a", "t/1/s/r", "pass")
    (folder / "verdict.json").write_text("{not json")
    with pytest.raises(CompareError, match=r"verdict\.json is damaged"):
        merge([tmp_path / "a"], tmp_path / "merged")
    with pytest.raises(CompareError, match="nothing to merge"):
        merge([], tmp_path / "merged")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("shard", ["0/3", "4/3", "x", "1/0"])
def test_run_with_a_bad_shard_is_a_clear_error(shard: str, tmp_path: Path) -> None:
    done = _cli("run", "--shard", shard, "--results", str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "--shard" in done.stderr
    assert not any(tmp_path.iterdir())


def test_merge_command_names_both_conflicting_folders(tmp_path: Path) -> None:
    _crafted(tmp_path / "a", "t/1/s/r", "pass")
    _crafted(tmp_path / "b", "t/1/s/r", "fail")
    into = tmp_path / "merged"
    done = _cli("merge", str(tmp_path / "a"), str(tmp_path / "b"), "--into", str(into))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert str(tmp_path / "a") in done.stderr and str(tmp_path / "b") in done.stderr
    assert not into.exists()
    ok = _cli("merge", str(tmp_path / "a"), "--into", str(into))
    assert ok.returncode == 0, ok.stderr
    assert "1 cell(s) copied" in ok.stdout


def test_the_commands_end_to_end_shards_merge_and_report_progress(tmp_path: Path) -> None:
    """``run --shard`` twice and ``merge`` through the CLI equal one ``run``; off a terminal
    each run reports plain progress lines and the summary on stderr."""
    command = f"{sys.executable} {FAKE_CLIENT} --mode good -- {{server_argv}}"
    select = ["-t", "command", "--command", command, "-s", "handshake", "-s", "mrtr"]
    select += ["-r", "2025-06-18", "-r", "2025-11-25", "--json"]
    serial = _cli("run", *select, "--jobs", "1", "--results", str(tmp_path / "serial"))
    assert serial.returncode == 0, serial.stderr
    assert "cells 4/4 (100%): 2 not-run, 2 pass; cached 0, run 2; ETA 0:00" in serial.stderr
    assert "4 cells: 0 cached, 2 run; 0 failed, 0 errored, 2 not run" in serial.stderr
    assert json.loads(serial.stdout)["tally"] == {
        "cells": 4,
        "cached": 0,
        "run": 2,
        "failed": 0,
        "errored": 0,
        "not_run": 2,
        "unstable": 0,
        "replayed": 0,
        "replayed_unstable": 0,
    }
    shards = []
    for i in (1, 2):
        shards.append(tmp_path / f"shard-{i}")
        done = _cli("run", *select, "--shard", f"{i}/2", "--results", str(shards[-1]))
        assert done.returncode == 0, done.stderr
        assert f"shard {i}/2: 2 of 4 cells" in done.stderr
        assert json.loads(done.stdout)["shard"] == {"index": i, "count": 2}
    merged = _cli("merge", *map(str, shards), "--into", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr
    assert tree_facts(tmp_path / "merged") == tree_facts(tmp_path / "serial")
    again = _cli("run", *select, "--results", str(tmp_path / "merged"))
    assert "4 cells: 4 cached, 0 run" in again.stderr  # the merged tree is a warm cache


def test_parallel_runs_start_the_longest_declared_waits_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import compare.play._run as run_module

    started: list[list[str]] = []

    def record(cells: list[Cell], *_: object, **__: object) -> list[dict[str, str]]:
        started.append([c.label for c in cells])
        return [{"verdict": "pass", "label": c.label} for c in cells]

    monkeypatch.setattr(run_module, "run_cells", record)
    scenarios = {s.id: s for s in load_scenarios()}
    target = fake_target("good")
    cells = [Cell(target, "default", scenarios[s], "2025-11-25") for s in scenarios]
    cells = [c for c in cells if c.scenario.side == "client"]
    back = run(cells, COMMIT, KNOWN, results=tmp_path, jobs=2, force=True)
    assert [v["label"] for v in back] == [c.label for c in cells]  # the caller's order
    waits = {c.label: declared_waits(c) for c in cells}
    assert [waits[label] for label in started[0]] == sorted(waits.values(), reverse=True)
    run(cells, COMMIT, KNOWN, results=tmp_path, jobs=1, force=True)
    assert started[1] == [c.label for c in cells]  # serial keeps the given order
