"""Killed at any moment, run twice at once: nothing left running, nothing half-written, and
the next run finishes the job reusing every finished cell.

The randomised test sends a seeded sequence of SIGKILL, SIGTERM and SIGINT at random delays
into ``mcp-compare run`` (the ``command`` target driving the fake client, so each kill costs
about two seconds), most runs with ``--force`` so kills also land while finished cells are
being replaced. The delays are stratified: the range is cut into one slice per kill, each
kill lands at a seeded point of its own slice (the slices in a seeded order) and the signals
take the slices in turn, so each signal reaches every part of the run, from start-up (Python
still importing) to its end, with few kills. After each kill: (a) no process of the run is
alive after a short bound, (b) every verdict and stamp parses. At the end one uninterrupted
run exits 0, reuses every finished cell and gives the verdicts of a clean serial run. The
seed is fixed (``MCP_COMPARE_KILL_SEED`` overrides it, ``MCP_COMPARE_KILLS`` the number of
kills); the figures are printed (``-s`` shows them).
"""

from __future__ import annotations

import fcntl
import json
import os
import random
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

from .fakes import FAKE_CLIENT

SEED = int(os.environ.get("MCP_COMPARE_KILL_SEED", "15"))
KILLS = int(os.environ.get("MCP_COMPARE_KILLS", "12"))
#: The range the kill delays are spread over (seconds after the run started): from Python
#: still importing (about 0.4 s) to just past the end of a forced run (about 3.6 s unloaded;
#: a run that reuses its cells ends in about 0.6 s, so those kills mostly land early).
EARLIEST_S, LATEST_S = 0.2, 4.0
SCENARIOS = ("handshake", "roots-list", "unknown-notification", "list-changed")
REVISIONS = ("2025-06-18", "2025-11-25")


def _command(mode: str = "good") -> str:
    return f"{sys.executable} {FAKE_CLIENT} --mode {mode} --control {{control}} -- {{server_argv}}"


def _run_args(*extra: str, mode: str = "good") -> list[str]:
    args = ["run", "--target", "command", "--command", _command(mode), "--jobs", "2"]
    for scenario in SCENARIOS:
        args += ["--scenario", scenario]
    for revision in REVISIONS:
        args += ["--revision", revision]
    return [*args, *extra]


def _run_json(env: dict[str, str], *extra: str) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, "-m", "compare", *_run_args("--json", *extra)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    data = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, data, done.stderr


def _verdicts(data: dict[str, object]) -> dict[tuple[str, str], str]:
    cells = data.get("cells")
    assert isinstance(cells, list)
    return {(c["scenario"], c["revision"]): c["verdict"] for c in cells}


def test_randomised_kills_leave_nothing_behind_and_the_next_run_finishes(
    tmp_path: Path, pinned_spec: Path
) -> None:
    rng = random.Random(SEED)
    root = tmp_path / "killed"
    env = env_for(root, pinned_spec)
    log = tmp_path / "kills.log"
    tally = Tally()
    tried: list[str] = []
    slices = list(range(KILLS))
    rng.shuffle(slices)  # the moments in a seeded order, each slice once
    for index, part in enumerate(slices):
        sig = SIGNALS[part % len(SIGNALS)]  # each signal spread over the range
        delay = EARLIEST_S + (LATEST_S - EARLIEST_S) * (part + rng.random()) / KILLS
        force = rng.random() < 0.75
        proc = start(_run_args(*(["--force"] if force else [])), env, log)
        time.sleep(delay)
        label = f"kill {index + 1}: {sig.name} at {delay:.2f} s{' (--force)' if force else ''}"
        tried.append(label)
        kill_and_check(proc, sig, root, tally, label)
    print(f"\nseed {SEED}: " + "; ".join(tried))
    print(tally.line())
    assert not tally.problems, "\n".join(tally.problems)
    assert tally.survived == tally.tried == KILLS
    assert "Traceback" not in log.read_text("utf-8")  # a kill during start-up included
    assert tally.landed >= KILLS // 3  # kills after the run ended prove little

    finished = finished_cells(root / "results")
    code, data, stderr = _run_json(env)
    assert code == 0, stderr
    tally_data = data["tally"]
    assert isinstance(tally_data, dict)
    print(f"finished before the last run: {len(finished)}; it reused {tally_data['cached']}")
    assert tally_data["cached"] == len(finished) > 0
    assert not broken_files(root)
    assert not list((root / "results").rglob("*.stage-*"))

    code, clean, stderr = _run_json(env_for(tmp_path / "clean", pinned_spec), "--jobs", "1")
    assert code == 0, stderr
    assert _verdicts(data) == _verdicts(clean)


def test_two_runs_at_once_both_finish_and_leave_a_valid_tree(
    tmp_path: Path, pinned_spec: Path
) -> None:
    env = env_for(tmp_path, pinned_spec)
    runs = [start(_run_args("--force"), env, tmp_path / f"run-{i}.log") for i in range(2)]
    codes = [proc.wait(timeout=300) for proc in runs]
    logs = [(tmp_path / f"run-{i}.log").read_text("utf-8") for i in range(2)]
    assert codes == [0, 0], logs
    cells = finished_cells(tmp_path / "results")
    assert len(cells) == len(SCENARIOS) * len(REVISIONS)
    assert not broken_files(tmp_path)
    assert not [p for p in (tmp_path / "results").rglob("*") if ".stage-" in p.name]


def test_a_second_run_says_whom_it_waits_for_then_proceeds(
    tmp_path: Path, pinned_spec: Path
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    env = env_for(tmp_path, pinned_spec)
    fd = os.open(results, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # this test plays the first run
    try:
        refused = subprocess.run(
            [sys.executable, "-m", "compare", *_run_args("--no-wait")],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert f"held by pid {os.getpid()} since" in refused.stderr
        waiting = start(_run_args(), env, tmp_path / "second.log")
        deadline = time.monotonic() + 60
        text = ""
        while "waiting for" not in text and time.monotonic() < deadline:
            time.sleep(0.1)
            text = (tmp_path / "second.log").read_text("utf-8")
        assert f"waiting for the results folder {results}: held by pid {os.getpid()}" in text
        assert waiting.poll() is None  # still waiting while the lock is held
    finally:
        os.close(fd)
    assert waiting.wait(timeout=120) == 0
    text = (tmp_path / "second.log").read_text("utf-8")
    assert "is free after" in text
    assert len(finished_cells(results)) == len(SCENARIOS) * len(REVISIONS)


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_hung_client_goes_with_the_harness(
    tmp_path: Path, pinned_spec: Path, sig: object
) -> None:
    """The fake ``hang`` client ignores SIGTERM and leaves a grandchild in a session of its
    own: before the watchdog, both outlived a killed harness until the cell's time bound."""
    env = env_for(tmp_path, pinned_spec)
    proc = start(_run_args(mode="hang"), env, tmp_path / "hang.log")
    deadline = time.monotonic() + 60
    while len(carriers(str(tmp_path / "results"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert carriers(str(tmp_path / "results")), "no cell started"
    tally = Tally()
    signalled = time.time()
    kill_and_check(proc, sig, tmp_path, tally, f"hang {sig}")  # type: ignore[arg-type]
    assert not tally.problems, tally.problems
    # nothing half-played was swapped in: a cell in place had ended before the signal (on a
    # loaded machine a short cell may end before the carriers above are seen)
    results = tmp_path / "results"
    late = {
        cell: verdict
        for cell, verdict in finished_cells(results).items()
        if (results / cell / "verdict.json").stat().st_mtime > signalled
    }
    assert not late


def test_a_server_under_our_scripted_client_goes_with_the_harness(
    tmp_path: Path, pinned_spec: Path
) -> None:
    """A server cell: the scripted client starts the server in a session of its own. A
    silent server keeps the cell waiting on its step timeouts, so the kill lands mid-cell."""
    server = Path(FAKE_CLIENT).with_name("fake_server.py")
    args = ["run", "--target", "server-command", "--command", f"{sys.executable} {server}"]
    args += ["--scenario", "server-asks", "--revision", "2025-11-25"]
    args[4] += " --mode silent"
    env = env_for(tmp_path, pinned_spec)
    proc = start(args, env, tmp_path / "server.log")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ours = carriers(str(tmp_path / "results"))
        # the server itself: an argument that is its path (mcp-compare's own command line
        # holds it inside the one --command argument, which matched at once before)
        if any(_argv_holds(pid, str(server)) for pid in ours):
            break
        time.sleep(0.05)
    else:
        pytest.fail("the server never started: " + (tmp_path / "server.log").read_text())
    tally = Tally()
    kill_and_check(proc, signal.SIGKILL, tmp_path, tally, "server cell")
    assert not tally.problems, tally.problems


def _argv_holds(pid: int, argument: str) -> bool:
    """Whether one argument of process ``pid``'s command line is exactly ``argument``."""
    try:
        return argument.encode() in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
