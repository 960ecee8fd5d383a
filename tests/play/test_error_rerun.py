"""A cell that ended in error is played again on the next run, and ``mcp-compare run`` says
so with a non-zero exit (issue 9: an error verdict was reused from the cache forever, and the
run exited 0 with errors in it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare._paths import PROJECT_ROOT
from compare.exchange._scenarios import load_scenarios
from compare.play import _integrity
from compare.play._cells import Cell
from compare.play._run import errors, run

from .fakes import FAKE_CLIENT, fake_target

KNOWN = revisions()
COMMIT = "test"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _stored(cell: Cell, results: Path, verdict: str) -> None:
    """A crafted cached cell: current keys, a plan and a transcript, and the given verdict."""
    folder = cell.folder(results)
    folder.mkdir(parents=True)
    (folder / "plan.json").write_text("{}")
    (folder / "transcript.jsonl").write_text("")
    data: dict[str, Any] = {
        "format": 1,
        "target": cell.target.id,
        "target_version": cell.target.version,
        "variant": None,
        "scenario": cell.scenario.id,
        "revision": cell.revision,
        "key": cell.key(COMMIT),
        "play_key": cell.play_key(),
        "verdict": verdict,
        "reason": f"crafted {verdict}",
        "checks": [],
    }
    # sealed with a record of its files, as the harness stores a cell (unsealed: judged again)
    (folder / "verdict.json").write_text(json.dumps(_integrity.seal(data, folder)))


def test_an_error_verdict_is_played_again_and_a_pass_is_reused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    scenario = next(s for s in load_scenarios() if s.id == "roots-list")
    target = fake_target("good")
    broken = Cell(target, "default", scenario, "2025-11-25")
    fine = Cell(target, "default", scenario, "2025-06-18")
    _stored(broken, results, "error")
    _stored(fine, results, "pass")
    again, kept = run([broken, fine], COMMIT, KNOWN, results=results)
    assert again["verdict"] == "pass" and not again.get("cached"), again["reason"]
    assert json.loads((broken.folder(results) / "verdict.json").read_text())["verdict"] == "pass"
    assert kept["cached"] is True and kept["reason"] == "crafted pass"


def test_errors_names_each_cell_that_ended_in_error() -> None:
    verdicts = [
        {
            "target": "a",
            "variant": "roots",
            "scenario": "s",
            "revision": "r1",
            "verdict": "error",
            "reason": "timed out after 3 s",
        },
        {"target": "b", "variant": None, "scenario": "s", "revision": "r2", "verdict": "pass"},
    ]
    assert errors(verdicts) == ["a~roots s r1: timed out after 3 s"]


def test_run_exits_1_and_names_the_error_cells(tmp_path: Path, pinned_spec: Path) -> None:
    command = f"{sys.executable} {FAKE_CLIENT} --mode exit-early -- {{server_argv}}"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "compare",
            "run",
            "--json",
            "-t",
            "command",
            "--command",
            command,
            "-s",
            "handshake",
            "-s",
            "roots-list",
            "-r",
            "2025-11-25",
            "--results",
            str(tmp_path / "results"),
        ],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MCP_COMPARE_CACHE": str(pinned_spec)},
    )
    summary = json.loads(done.stdout)
    failed = [c for c in summary["cells"] if c["verdict"] == "error"]
    assert failed, summary["cells"]
    assert done.returncode == 1, done.stderr
    assert f"{len(failed)} cell(s) ended in error" in done.stderr
    assert "command roots-list 2025-11-25: " in done.stderr


def test_a_relative_results_folder_plays_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client and the peer run in the cell's workspace: a relative ``--results`` once
    left every played cell without its plan (an error verdict, every time)."""
    monkeypatch.chdir(tmp_path)
    scenario = next(s for s in load_scenarios() if s.id == "handshake")
    cell = Cell(fake_target("good"), "default", scenario, "2025-11-25")
    [verdict] = run([cell], COMMIT, KNOWN, results=Path("results"))
    assert verdict["verdict"] == "pass", verdict["reason"]
    assert (tmp_path / cell.folder(Path("results")) / "verdict.json").is_file()
