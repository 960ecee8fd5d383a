"""The watchdog: ends every process of an mcp-compare run that outlived it, however it died.

Run as ``python -I -S compare/_watchdog.py`` (standard library only, nothing of ours imported)
by :mod:`compare._guard`, in a session of its own, with its stdin the read end of a pipe whose
only write end the mcp-compare process holds. The kernel closes that end when the process
dies, even by SIGKILL, so end of file here means "the run is gone". Until then the run tells
the watchdog, one line each, what to end should that happen:

``m ID HEX``  a marker (bytes, hex-encoded) found in a process's environment or command line
``g ID PGID`` a process group
``p ID HEX``  a folder to remove afterwards (a cell's staging and scratch folders)
``r ID``      forget everything registered under ID (the cell ended normally)
``bye``       the run ended normally: exit without ending anything

At end of file without ``bye`` every process in a registered group or carrying a registered
marker gets SIGKILL (nobody is left to read what it would say), again until none is left or
a bound passes, and the folders are removed. Line writes under PIPE_BUF are atomic, so the
run's threads may write without sharing a lock.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time

#: How long the watchdog keeps killing newcomers (a fork racing the first SIGKILL).
BOUND_S = 10.0


def _pgid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    if not fields or fields[0] == b"Z":
        return None
    try:
        return int(fields[2])
    except (IndexError, ValueError):
        return None


def _carries(pid: int, marks: list[bytes]) -> bool:
    for name in ("environ", "cmdline"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if any(mark in data for mark in marks):
            return True
    return False


def _found(groups: set[int], marks: list[bytes]) -> list[int]:
    me = os.getpid()
    hits = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        group = _pgid(pid)
        if group is None:
            continue
        if group in groups or _carries(pid, marks):
            hits.append(pid)
    return hits


def end_all(groups: set[int], marks: list[bytes]) -> int:
    """SIGKILL every matching process until none is left (or ``BOUND_S``); how many were hit."""
    deadline = time.monotonic() + BOUND_S
    hit: set[int] = set()
    while True:
        pids = _found(groups, marks)
        if not pids or time.monotonic() > deadline:
            return len(hit)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
            hit.add(pid)
        time.sleep(0.02)


def main() -> int:
    # Only end of file ends the watchdog: a Ctrl-C or SIGTERM aimed at the run's whole
    # process tree must not stop it before it has cleaned up.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    marks: dict[str, list[bytes]] = {}
    groups: dict[str, set[int]] = {}
    paths: dict[str, list[str]] = {}
    for raw in sys.stdin.buffer:
        parts = raw.split()
        if parts == [b"bye"]:
            return 0
        if len(parts) < 2:
            continue
        kind, ident = parts[0], parts[1].decode("ascii", "replace")
        try:
            if kind == b"m" and len(parts) == 3:
                marks.setdefault(ident, []).append(bytes.fromhex(parts[2].decode()))
            elif kind == b"g" and len(parts) == 3:
                groups.setdefault(ident, set()).add(int(parts[2]))
            elif kind == b"p" and len(parts) == 3:
                paths.setdefault(ident, []).append(bytes.fromhex(parts[2].decode()).decode())
            elif kind == b"r":
                marks.pop(ident, None)
                groups.pop(ident, None)
                paths.pop(ident, None)
        except ValueError:
            continue
    end_all(
        {g for gs in groups.values() for g in gs},
        [m for ms in marks.values() for m in ms if m],
    )
    for folders in paths.values():
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
