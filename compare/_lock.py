"""One writer at a time per results, build or tools folder: ``flock`` on the folder itself.

Two ``mcp-compare compare`` (or ``run``, or ``tools install``) in one checkout would swap
cells, stamps and node_modules under each other. Each takes an exclusive ``flock`` on the
folder it writes (the directory's own file descriptor, so no lock file enters the trees the
stage stamps hash). The kernel drops the lock when the holder dies, however it dies, so a
killed run never leaves a stale lock. A second process says on stderr whom it waits for
(the holder's pid and start time, read from ``/proc/locks``) and then proceeds; with
``wait=False`` it fails at once with a CompareError instead.

Within one process the lock is re-entrant (``compare`` holds the results folder while its
``run`` stage takes it again), counted, and released when the outermost holder is done.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from compare._errors import CompareError

_held: dict[str, tuple[int, int]] = {}  # real path -> (fd, depth)
_guard = threading.Lock()


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def holder(fd: int) -> tuple[int, str] | None:
    """The pid holding a flock on the file behind ``fd``, and since when (its start), if the
    kernel tells (``/proc/locks``)."""
    info = os.fstat(fd)
    want = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue
        if fields[5] == want and fields[4].isdigit() and int(fields[4]) != os.getpid():
            pid = int(fields[4])
            return pid, _started(pid)
    return None


def _started(pid: int) -> str:
    """When process ``pid`` started, as UTC clock time (``?`` when unreadable)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
        ticks = int(stat[stat.rfind(b")") + 2 :].split()[19])
        boot = next(
            int(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime ")
        )
        at = boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return "?"
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M:%S UTC")


def _open(folder: Path) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


@contextlib.contextmanager
def holding(
    folder: Path, what: str, *, wait: bool = True, say: Callable[[str], None] = _say
) -> Iterator[None]:
    """Hold ``folder`` (``what`` names it in messages) for the body; wait for another holder
    (saying so) or, with ``wait=False``, raise a CompareError naming it."""
    key = str(folder.resolve())
    with _guard:
        if key in _held:
            fd, depth = _held[key]
            _held[key] = (fd, depth + 1)
            fd = -1
        else:
            fd = _open(folder)
    if fd >= 0:
        try:
            _acquire(fd, folder, what, wait, say)
        except BaseException:
            os.close(fd)
            raise
        with _guard:
            _held[key] = (fd, 1)
    try:
        yield
    finally:
        with _guard:
            fd, depth = _held[key]
            if depth > 1:
                _held[key] = (fd, depth - 1)
            else:
                del _held[key]
                os.close(fd)  # closing the last descriptor drops the flock


def _acquire(fd: int, folder: Path, what: str, wait: bool, say: Callable[[str], None]) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    except OSError as err:
        if err.errno in (errno.ENOLCK, errno.EINVAL, errno.EBADF, errno.ENOTSUP):
            say(f"mcp-compare: cannot lock the {what} {folder} ({err.strerror}); running unlocked")
            return
        raise
    found = holder(fd)
    who = f"pid {found[0]} since {found[1]}" if found else "another process"
    if not wait:
        raise CompareError(
            f"the {what} {folder} is in use: held by {who}",
            "wait for it to finish, or run again without --no-wait to wait for it",
        )
    say(f"mcp-compare: waiting for the {what} {folder}: held by {who}")
    started = time.monotonic()
    fcntl.flock(fd, fcntl.LOCK_EX)
    say(f"mcp-compare: the {what} {folder} is free after {time.monotonic() - started:.1f} s")


def is_held_elsewhere(folder: Path) -> bool:
    """True when another process holds ``folder`` right now (a probe; nothing is kept)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # also drops the probe's own lock
    return False
