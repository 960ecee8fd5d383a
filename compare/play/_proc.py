"""Running one client process so that nothing outlives its cell.

The client starts in a new session (its own process group). Ending it means signalling the
whole group; and because a client may start its server in yet another session, processes are
also found by a marker: the cell's unique token in their environment or command line.

The group and the markers are registered with the run's watchdog (``compare._guard``) before
the client starts, so they are ended even when the harness itself is killed outright; and a
SIGINT or SIGTERM of the harness (``_guard.STOP``) ends the cell's processes within one poll.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from compare import _guard
from compare.exchange._targets import DEFAULT_EXIT_S
from compare.peer import CELL_ENV

#: In every client's environment, naming the cell (the peer notes whether it reached it).
MARKER_ENV = CELL_ENV
#: How long one wait on the client lasts before done.json is looked at again.
POLL_S = 0.02
#: At most this long for the cell's other processes to go by themselves after the client.
SETTLE_S = 1.5
#: At most this long for a self-ending client to exit once the peer is done (a target's
#: ``exit_s`` overrides it); the default is target data's, said once there.
DRAIN_S = DEFAULT_EXIT_S


def _stat_pgid(pid: int) -> int | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    # The command name may hold spaces or ')'; fields resume after the last ')'.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        if fields[0] == b"Z":
            return None  # a zombie has already exited; only its parent can reap it
        return int(fields[2])
    except (IndexError, ValueError):
        return None


def _has_marker(pid: int, marks: list[bytes]) -> bool:
    for name in ("environ", "cmdline"):
        try:
            data = Path(f"/proc/{pid}/{name}").read_bytes()
        except OSError:
            continue
        if any(mark in data for mark in marks):
            return True
    return False


def cell_processes(pgid: int, markers: list[str]) -> list[int]:
    """Live processes of the group ``pgid`` or carrying one of ``markers``, never this one."""
    me = os.getpid()
    mark = [m.encode() for m in markers if m]
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        if pid == me:
            continue
        pg = _stat_pgid(pid)
        if pg is None:
            continue
        if pg == pgid or _has_marker(pid, mark):
            found.append(pid)
    return found


def _kill(pids: list[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


@dataclass
class Ended:
    exit_code: int | None
    ended_by: str  # self | harness | timeout
    sigkill: bool
    leftover_killed: int
    duration_s: float


def run_process(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    stdout: Path,
    stderr: Path,
    timeout_s: float,
    markers: list[str],
    should_end: Callable[[], bool],
    ends_self: bool,
    grace_s: float = 2.0,
    drain_s: float = DRAIN_S,
    on_start: Callable[[], None] | None = None,
) -> Ended:
    """Run ``argv`` until it exits, ``should_end()`` says so, or ``timeout_s`` passes.

    Nothing here sits out a fixed time: every wait ends on an event. ``should_end`` (the
    peer's done.json) is checked between short waits on the process itself, so its exit is
    seen at once. A self-ending client gets up to ``drain_s`` to exit on its own once the peer
    is done (the peer has closed by then, so it normally goes at once); a harness-ended one
    is sent SIGTERM at once (its stdin is /dev/null from the start, so there is no stdin of
    ours to close first), then SIGKILL only if it is still there after ``grace_s``. Whatever
    remains of the group afterwards gets up to ``SETTLE_S`` to go by itself, then is killed
    and counted. ``on_start`` is called once the process has started, for work of ours that
    can overlap its run.
    """
    start = time.monotonic()
    watch = _guard.Watch(markers)
    try:
        return _supervised(
            argv,
            cwd,
            env,
            stdout,
            stderr,
            timeout_s,
            markers,
            should_end,
            ends_self,
            grace_s,
            drain_s,
            start,
            watch,
            on_start,
        )
    finally:
        watch.release()


def _supervised(
    argv: list[str],
    cwd: Path,
    env: dict[str, str],
    stdout: Path,
    stderr: Path,
    timeout_s: float,
    markers: list[str],
    should_end: Callable[[], bool],
    ends_self: bool,
    grace_s: float,
    drain_s: float,
    start: float,
    watch: _guard.Watch,
    on_start: Callable[[], None] | None,
) -> Ended:
    _guard.check()
    with stdout.open("wb") as out, stderr.open("wb") as err:
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        except OSError as error:
            err.write(f"mcp-compare: cannot start {argv[0]!r}: {error}\n".encode())
            return Ended(None, "self", False, 0, time.monotonic() - start)
    pgid = proc.pid
    watch.group(pgid)
    try:
        if on_start is not None:
            on_start()
        return _drive(
            proc, pgid, timeout_s, markers, should_end, ends_self, grace_s, drain_s, start
        )
    except BaseException:
        # Interrupted (or our own crash): nothing of this cell may outlive the harness.
        _killpg(pgid, signal.SIGKILL)
        end_leftovers(pgid, markers)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=1)
        raise


def _drive(
    proc: subprocess.Popen[bytes],
    pgid: int,
    timeout_s: float,
    markers: list[str],
    should_end: Callable[[], bool],
    ends_self: bool,
    grace_s: float,
    drain_s: float,
    start: float,
) -> Ended:
    deadline = start + timeout_s
    ended_by = "self"
    done_at: float | None = None
    sigkill = False
    while proc.poll() is None:
        _guard.check()
        now = time.monotonic()
        if now >= deadline:
            ended_by = "timeout"
            _killpg(pgid, signal.SIGKILL)
            sigkill = True
            break
        if done_at is None and should_end():
            done_at = now
        if done_at is not None and (not ends_self or now - done_at > drain_s):
            ended_by = "harness"
            sigkill = _terminate(proc, pgid, grace_s)
            break
        # Waits on the process, not a plain sleep: an exit ends the wait at once.
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=POLL_S)
    try:
        exit_code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be refused
        exit_code = None
    # Let the rest of the group (the peer, answering its last lines) finish by itself first;
    # a bound, not a wait: the loop ends as soon as no process of the cell is left.
    settle = time.monotonic() + SETTLE_S
    while cell_processes(pgid, markers) and time.monotonic() < settle:
        _guard.check()
        time.sleep(POLL_S / 2)
    leftovers = end_leftovers(pgid, markers)
    return Ended(exit_code, ended_by, sigkill, leftovers, time.monotonic() - start)


def end_leftovers(pgid: int, markers: list[str]) -> int:
    """SIGKILL whatever of the cell is still there (waiting up to 2 s for it to go); how many."""
    leftovers = cell_processes(pgid, markers)
    if leftovers:
        _kill(leftovers, signal.SIGKILL)
        for _ in range(100):
            if not cell_processes(pgid, markers):
                break
            time.sleep(0.02)
    return len(leftovers)


def _killpg(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _terminate(proc: subprocess.Popen[bytes], pgid: int, grace_s: float) -> bool:
    """SIGTERM the group, SIGKILL it after ``grace_s``; True when SIGKILL was needed."""
    _killpg(pgid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
        return False
    except subprocess.TimeoutExpired:
        _killpg(pgid, signal.SIGKILL)
        return True
