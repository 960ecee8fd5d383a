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

Some clients stay busy after they have spoken (a Python agent framework importing the rest
of itself, a JVM compiling), and other work may share the machine. So a free slot is not
enough: a cell also starts only while the machine has at least ``IDLE_CORES`` of a core
idle (``/proc/stat``, over the last quarter second), unless no other cell of the run is
playing: a busy machine slows a run down, never stops it. Measured on the 2-core machine,
a replay with slots alone overloaded it with Python agent hosts (30 s timeouts, a proxy
that never answered initialize); every cell of that run was played again.

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
import threading
import time
from collections.abc import Callable
from pathlib import Path

from compare import _guard
from compare.play._cells import Cell
from compare.play._proxy import HOST_TRANSCRIPT
from compare.play._shard import declared_waits

#: A client that has not spoken after this long is waiting on something (or stuck): it gives
#: its start slot up so that it cannot hold back the cells queued behind it.
START_LIMIT_S = 10.0
#: How often a held slot looks for a free one, and a starting cell at its recording.
POLL_S = 0.02
#: Idle CPU (in cores) the machine must have for one more cell to start.
IDLE_CORES = 0.5
#: The window the idle CPU is measured over.
IDLE_WINDOW_S = 0.25


class _Meter:
    """Idle cores of the machine over the last ``IDLE_WINDOW_S``, from ``/proc/stat`` (shared
    by the threads of a run; None where the file cannot be read: no gate then)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: tuple[float, int, int] | None = None
        self._idle: float | None = None
        self._cores = os.cpu_count() or 1

    @staticmethod
    def _read() -> tuple[int, int] | None:
        try:
            with open("/proc/stat", encoding="ascii") as handle:
                fields = handle.readline().split()
        except (OSError, UnicodeDecodeError):
            return None
        if len(fields) < 6 or fields[0] != "cpu":
            return None
        ticks = [int(f) for f in fields[1:9] if f.isdigit()]
        return sum(ticks), ticks[3] + ticks[4]  # all, idle + iowait

    def idle_cores(self) -> float | None:
        with self._lock:
            now = time.monotonic()
            if self._last is not None and now - self._last[0] < IDLE_WINDOW_S:
                return self._idle
            reading = self._read()
            if reading is None:
                return None
            if self._last is not None and reading[0] > self._last[1]:
                spent, idle = reading[0] - self._last[1], reading[1] - self._last[2]
                self._idle = self._cores * idle / spent
            self._last = (now, *reading)
            return self._idle


_METER = _Meter()
#: Cells of this process between a taken slot and the end of their play.
_playing = 0
_playing_lock = threading.Lock()


def _room() -> bool:
    """Whether one more cell may start now: the machine has idle CPU, or it cannot be
    measured, or no other cell of this process is playing."""
    with _playing_lock:
        alone = _playing == 0
    idle = _METER.idle_cores()
    return alone or idle is None or idle >= IDLE_CORES


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

    def __init__(
        self, spoke: Callable[[], bool], *, whole: bool, limit_s: float = START_LIMIT_S
    ) -> None:
        self._spoke = spoke
        self._whole = whole
        self._limit_s = limit_s
        self._fd: int | None = None
        self._taken_at = 0.0
        self._looked_at = 0.0
        self._playing = False

    def take(self, count: int) -> None:
        """Wait until one of ``count`` slots is free and the machine has room for a start
        (``_room``), and hold the slot; the cell counts as playing until ``finish``."""
        global _playing
        folder = slots_dir()
        folder.mkdir(parents=True, exist_ok=True)
        paths = [folder / f"slot-{n}.lock" for n in range(count)]
        while True:
            if _room():
                for path in paths:
                    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:
                        os.close(fd)
                        continue
                    self._fd, self._taken_at = fd, time.monotonic()
                    with _playing_lock:
                        _playing += 1
                    self._playing = True
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
        """Give the slot back (the cell goes on playing)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor drops the flock

    def finish(self) -> None:
        """The play has ended: give the slot back if still held, and stop counting it."""
        global _playing
        self.release()
        if self._playing:
            self._playing = False
            with _playing_lock:
                _playing -= 1


def cell_slot(cell: Cell, folder: Path) -> StartSlot:
    """The start slot of one play of ``cell`` into ``folder``: given back once the cell's
    recording (a proxy's host leg) holds its first exchange; a command-line client keeps it
    for the whole cell."""
    name = HOST_TRANSCRIPT if cell.target.side == "proxy" else "transcript.jsonl"
    return StartSlot(recording_spoke(folder / name), whole=cell.target.kind == "cli")


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
