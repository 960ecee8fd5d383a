"""When a cell may start: cells overlap their waits, never their start-ups.

Most of a cell's wall time is waiting: an observe window, a timeout the scenario provokes,
a client idling until the peer closes. The CPU-heavy part is the start: a Node.js, Python
or JVM client loading itself until it speaks its first message. One cell per core left a
2-core machine half idle (load near 1 during a whole replay), while running every cell at
once would let start-ups crowd each other and push a slow client past its own timers.

So a run keeps many cells in flight (``--jobs``) but lets only as many *start* at once as
the machine has cores. A cell holds a start slot from its launch until its client has
spoken (the cell's recording holds the first exchange: two lines), until the client
ends, or until ``START_LIMIT_S`` passes, whichever comes first; then it waits on its own
and the next cell starts. A command-line client (target kind ``cli``) holds its slot for
the whole cell: those run a model turn and timers of their own (a bridge start, a
request timeout) that a loaded machine overran, so they keep a core each as before.

The slots are lock files shared by every mcp-compare process of this user on the machine
(``flock``, released by the kernel when a process dies): two runs at once (shards, a test
suite's workers, a maintainer's second terminal) share the cores instead of each assuming
it has them all.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from compare import _guard
from compare.play._cells import Cell
from compare.play._shard import declared_waits

#: A client that has not spoken after this long is waiting on something (or stuck): it gives
#: its start slot up so that it cannot hold back the cells queued behind it.
START_LIMIT_S = 10.0
#: How often a held slot looks for a free one, and a starting cell at its recording.
POLL_S = 0.02


def slots_dir() -> Path:
    """The folder of the machine's start slots (one lock file per slot), per user: in
    ``/tmp`` whatever ``TMPDIR`` says, so that runs given scratch folders of their own (a
    test suite's) still share them; ``MCP_COMPARE_SLOTS`` names another."""
    override = os.environ.get("MCP_COMPARE_SLOTS")
    if override:
        return Path(override)
    base = Path("/tmp")
    if not (base.is_dir() and os.access(base, os.W_OK)):
        base = Path(tempfile.gettempdir())
    return base / f"mcp-compare-start-slots-{os.getuid()}"


class StartSlot:
    """One cell's start slot: taken before the cell's first process starts, given back
    once the client has spoken (``spoke()``), or its time is up, or the cell ends."""

    def __init__(self, spoke: Callable[[], bool], *, whole: bool, limit_s: float) -> None:
        self._spoke = spoke
        self._whole = whole
        self._limit_s = limit_s
        self._fd: int | None = None
        self._taken_at = 0.0
        self._looked_at = 0.0

    def take(self, count: int) -> None:
        """Wait until one of ``count`` slots is free and hold it."""
        folder = slots_dir()
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / f"slot-{n}.lock" for n in range(count)]
        while True:
            for path in paths:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                self._fd, self._taken_at = fd, time.monotonic()
                return
            _guard.check()  # a stopped run does not sit in the queue
            time.sleep(POLL_S)

    def poll(self) -> None:
        """Give the slot back when the client has spoken or its start time is up (called
        from the cell's wait loop; looks at the recording at most every 0.1 s)."""
        if self._fd is None or self._whole:
            return
        now = time.monotonic()
        if now - self._taken_at >= self._limit_s:
            self.release()
        elif now - self._looked_at >= 0.1:
            self._looked_at = now
            if self._spoke():
                self.release()

    def watching(self, should_end: Callable[[], bool]) -> Callable[[], bool]:
        """``should_end`` for the cell's wait loop, polling the slot on the way."""

        def check() -> bool:
            self.poll()
            return should_end()

        return check

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor drops the flock


def recording_spoke(path: Path) -> Callable[[], bool]:
    """Whether the recording at ``path`` holds the first exchange (two lines): the
    client's first message and its answer, or our first request and the server's answer."""

    def spoke() -> bool:
        try:
            with path.open("rb") as handle:
                return handle.read(1 << 16).count(b"\n") >= 2
        except OSError:
            return False

    return spoke


def expected_s(cell: Cell, results: Path) -> float:
    """What a cell is expected to take, for the order cells are handed out (longest first,
    so that no long cell starts last while the rest of the run has ended): its stored play's
    wall time when there is one, else a second plus its scenario's declared waits."""
    try:
        stored = json.loads((cell.folder(results) / "verdict.json").read_bytes())
        return float(stored["duration_s"])
    except (OSError, ValueError, KeyError, TypeError):
        return 1.0 + declared_waits(cell)
