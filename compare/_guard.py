"""Nothing of ours outlives an mcp-compare run, whether it ends, is interrupted or is killed.

Two halves. **The watchdog** (``compare/_watchdog.py``) is started once per process, in a
session of its own, reading a pipe whose only write end this process holds (``os.pipe`` ends
are close-on-exec, so no child inherits it). The kernel closes that end however this process
dies — SIGKILL included — and the watchdog then SIGKILLs every process registered with it:
each cell's process group, and every process carrying one of its markers in its environment
or command line (a client may start its server in a session of its own, and a proxy may scrub
the environment but names the peer's plan on its command line). A run-wide marker,
``MCP_COMPARE_RUN`` in this process's environment, rides along into everything started here
(installers, mkdocs) and is registered too.

A parent-death signal (``PR_SET_PDEATHSIG``) was not enough: it fires when the *thread* that
started the child ends, and the harness starts clients from worker threads; setting it needs
``preexec_fn``, which is unsafe in a threaded process. A per-cell supervisor between harness
and client would hide the client's own exit status and timing, which verdicts record.

**Signals.** :func:`handle_signals` makes SIGINT and SIGTERM set :data:`STOP` and raise
:class:`Interrupted` in the main thread; every running cell sees :data:`STOP` within one poll,
kills its process group and drops its staging folder, so finished cells stay and nothing
half-done is swapped in. A second signal exits at once and leaves the rest to the watchdog.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType

RUN_ENV = "MCP_COMPARE_RUN"
WATCHDOG = Path(__file__).resolve().parent / "_watchdog.py"

#: Set by SIGINT or SIGTERM (see :func:`handle_signals`): running cells stop at once.
STOP = threading.Event()


class Interrupted(BaseException):
    """The run was told to stop by a signal (not an ``Exception``: nothing may swallow it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum


_lock = threading.Lock()
_state: dict[str, object] = {}
_ids = itertools.count(1)


def _send(line: str) -> None:
    fd = _state.get("fd")
    if not isinstance(fd, int):
        return
    with contextlib.suppress(OSError):
        os.write(fd, line.encode("ascii") + b"\n")


def start() -> str:
    """Start this process's watchdog (once) and return the run's marker."""
    with _lock:
        token = _state.get("token")
        if isinstance(token, str) and _state.get("pid") == os.getpid():
            return token
        token = "mcpr-" + secrets.token_hex(8)
        read, write = os.pipe()
        try:
            subprocess.Popen(
                [sys.executable, "-I", "-S", str(WATCHDOG)],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
                start_new_session=True,
            )
        except OSError:
            os.close(write)
            return token  # no watchdog: the harness's own teardown still runs
        finally:
            os.close(read)
        _state.update(token=token, fd=write, pid=os.getpid())
        # Inherited by everything this process starts from now on; a nested run adds its own.
        outer = os.environ.get(RUN_ENV)
        os.environ[RUN_ENV] = f"{outer}:{token}" if outer else token
        _send(f"m 0 {token.encode().hex()}")
        atexit.register(_bye)
        return token


def run_marker() -> str:
    """What children of this process carry in ``MCP_COMPARE_RUN`` (starts the watchdog)."""
    start()
    return os.environ[RUN_ENV]


def _bye() -> None:
    # A normal exit: everything was ended by its owner. After a signal, say nothing, so
    # the watchdog double-checks.
    if not STOP.is_set() and _state.get("pid") == os.getpid():
        _send("bye")


class Watch:
    """What the watchdog ends should this process die before :meth:`release`."""

    def __init__(self, markers: Iterable[str] = (), paths: Iterable[Path] = ()) -> None:
        start()
        self.ident = str(next(_ids))
        for marker in markers:
            if marker:
                _send(f"m {self.ident} {marker.encode().hex()}")
        for path in paths:
            _send(f"p {self.ident} {str(path).encode().hex()}")

    def group(self, pgid: int) -> None:
        _send(f"g {self.ident} {pgid}")

    def release(self) -> None:
        _send(f"r {self.ident}")


def check() -> None:
    """Raise :class:`Interrupted` when a signal asked the run to stop."""
    if STOP.is_set():
        raise Interrupted(int(_state.get("signum", signal.SIGINT)))  # type: ignore[call-overload]


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    if STOP.is_set():
        os._exit(128 + signum)  # a second signal: go now; the watchdog ends the rest
    _state["signum"] = signum
    STOP.set()
    raise Interrupted(signum)


def handle_signals() -> None:
    """SIGINT and SIGTERM stop the run promptly (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread():
        return
    start()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _on_signal)


def exit_interrupted(err: Interrupted) -> None:
    """Say what an interruption kept and left, then exit 128 + signal at once (threads still
    winding down are not waited for: the watchdog ends their processes)."""
    name = signal.Signals(err.signum).name
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        sys.stderr.write(
            f"mcp-compare: stopped by {name}; finished cells and stages are kept, the next "
            "run reuses them and plays the rest\n"
        )
        sys.stderr.flush()
    os._exit(128 + err.signum)
