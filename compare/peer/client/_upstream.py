"""The upstream peer of a proxy that connects over HTTP: started by the scripted client before
the proxy (which then gets its URL), ended after it.

A proxy that speaks stdio to its upstream starts the peer itself; one that speaks HTTP cannot,
so our client starts it in a process group of its own, waits until it listens on its
127.0.0.1 port, and ends the group when the cell is over, noting each step. The peer writes
its own transcript and done file (named in its plan), exactly as behind a stdio proxy.
"""

from __future__ import annotations

import os
import signal
import subprocess

from ._http import wait_listening

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

    from .._record import Transcript


def start(spec: dict[str, Any], tx: Transcript, stderr_path: str) -> subprocess.Popen[bytes] | str:
    """Start the upstream peer; the process, or why it is not listening."""
    with open(stderr_path, "wb") as err:
        try:
            proc = subprocess.Popen(
                list(spec["argv"]),
                stdin=subprocess.DEVNULL,
                stdout=err,
                stderr=err,
                start_new_session=True,
            )
        except OSError as error:
            tx.note(event="upstream-start-failed", error=str(error))
            return f"the upstream peer did not start: {error}"
    port = int(spec["port"])
    ok = wait_listening(port, float(spec.get("ready_timeout_s", 10)), lambda: proc.poll() is None)
    tx.note(event="upstream-started", pid=proc.pid, port=port, listening=ok,
            transport=spec.get("kind"))  # fmt: skip
    if not ok:
        stop(proc, tx)
        return f"the upstream peer is not listening on 127.0.0.1:{port}"
    return proc


def stop(proc: subprocess.Popen[bytes], tx: Transcript, grace: float = 3.0) -> None:
    """SIGTERM the peer's group (it writes its done file and leaves), then SIGKILL."""
    how = "self" if proc.poll() is not None else "sigterm"
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            break
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            break
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            how = "sigkill"
    try:  # noqa: SIM105 - contextlib would cost start-up time
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    tx.note(event="upstream-exit", code=proc.returncode, ended_by=how)
