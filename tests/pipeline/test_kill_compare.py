"""``mcp-compare compare`` killed at random points of the whole pipeline (pin, models, diff,
a real ts-sdk cell, rows, cite, render, export, the mkdocs build): nothing of it left running,
no stamp, verdict, rows, diff or matrix file half-written, and the next uninterrupted run
exits 0, reusing every finished cell, with the verdicts of a clean serial run.

Seeded and stratified like ``tests/play/test_kill.py`` (``MCP_COMPARE_KILL_SEED``; the number
of kills here: ``MCP_COMPARE_COMPARE_KILLS``): one kill per slice of the delay range, the
signals taking the slices in turn, so a few kills reach every part of the run, from start-up
to the site build; the figures are printed (``-s`` shows them).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _kills import (
    SIGNALS,
    Tally,
    broken_files,
    carriers,
    env_for,
    finished_cells,
    kill_and_check,
    start,
)

from compare._paths import PROJECT_ROOT

pytestmark = pytest.mark.clients

SEED = int(os.environ.get("MCP_COMPARE_KILL_SEED", "15"))
KILLS = int(os.environ.get("MCP_COMPARE_COMPARE_KILLS", "5"))
#: The range the kill delays are spread over (seconds after compare started).
EARLIEST_S, LATEST_S = 0.5, 10.0
CHOSEN = ["--target", "ts-sdk", "--scenario", "handshake", "--revision", "2025-11-25"]


def _env(root: Path, cache: Path, spec: Path) -> dict[str, str]:
    return env_for(
        root,
        root / "cache",
        MCP_COMPARE_SCHEMAS=str(root / "schemas"),
        MCP_COMPARE_AREAS=str(root / "areas"),
        MCP_COMPARE_SPEC=str(spec),
    )


def _checkout(root: Path, cache: Path) -> None:
    shutil.copytree(cache, root / "cache")
    shutil.copytree(PROJECT_ROOT / "schemas", root / "schemas")
    # One area: every stage still runs and writes (rows, cite, render, the site), and the
    # cost of each forced run no longer grows with each area added (issue 37's budget).
    (root / "areas").mkdir()
    shutil.copy2(PROJECT_ROOT / "compare" / "rows" / "areas" / "roots.yaml", root / "areas")


def _mc(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _argv(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _verdicts(results: Path) -> dict[str, str]:
    return {
        str(p.parent.relative_to(results)): json.loads(p.read_text("utf-8"))["verdict"]
        for p in results.glob("*/*/*/*/verdict.json")
    }


def test_compare_killed_anywhere_leaves_nothing_behind(
    tmp_path: Path, pinned_spec: Path, shared_spec: Path
) -> None:
    rng = random.Random(SEED)
    root = tmp_path / "killed"
    _checkout(root, pinned_spec)
    env = _env(root, pinned_spec, shared_spec)
    tally = Tally()
    tried = []
    slices = list(range(KILLS))
    rng.shuffle(slices)  # the moments in a seeded order, each slice once
    for index, part in enumerate(slices):
        sig = SIGNALS[part % len(SIGNALS)]  # each signal spread over the range
        delay = EARLIEST_S + (LATEST_S - EARLIEST_S) * (part + rng.random()) / KILLS
        # A warm run skips every stage in about a second: most runs are forced, so that the
        # kills land in running stages.
        force = rng.random() < 0.75
        proc = start(["compare", *CHOSEN, *(["--force"] if force else [])], env, tmp_path / "log")
        time.sleep(delay)
        label = f"kill {index + 1}: {sig.name} at {delay:.1f} s{' (--force)' if force else ''}"
        tried.append(label)
        kill_and_check(proc, sig, root, tally, label)
    # One aimed kill besides: mid-site-build (mkdocs is running, it carries our folders).
    # mkdocs runs only when the summary pages' skeleton changed, and an earlier run may have
    # built it whole: its record is dropped, so this run builds it again.
    (root / "site" / ".work" / "summary.json").unlink(missing_ok=True)
    proc = start(["compare", *CHOSEN, "--force"], env, tmp_path / "log")
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if any(b"mkdocs" in _argv(pid) for pid in carriers(str(root))):
            break
        time.sleep(0.05)
    assert proc.poll() is None, "compare ended before mkdocs was seen"
    tried.append("SIGKILL during mkdocs build")
    kill_and_check(proc, signal.SIGKILL, root, tally, "SIGKILL during mkdocs build")
    print(f"\nseed {SEED}: " + "; ".join(tried))
    print("compare: " + tally.line())
    assert not tally.problems, "\n".join(tally.problems)
    assert tally.survived == tally.tried
    assert "Traceback" not in (tmp_path / "log").read_text("utf-8")
    assert tally.landed >= tally.tried // 3  # kills after compare ended prove little

    finished = finished_cells(root / "results")
    done = _mc(env, "compare", *CHOSEN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not broken_files(root)
    out = done.stdout + done.stderr
    print(f"finished cells before the last run: {len(finished)}")
    if "run: skipped" not in out:  # skipped: its stamp held, every cell reused as it is
        assert f"{len(finished)} cached" in out, out
    assert (root / "site" / "build" / "index.html").is_file()

    clean = tmp_path / "clean"
    _checkout(clean, pinned_spec)
    serial = _mc(_env(clean, pinned_spec, shared_spec), "run", *CHOSEN, "--jobs", "1")
    assert serial.returncode == 0, serial.stdout + serial.stderr
    assert _verdicts(root / "results") == _verdicts(clean / "results")
