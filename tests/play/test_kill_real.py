"""A SIGKILLed harness takes the real processes of proxy and server cells with it: the proxy
(``mcp-remote``, and the upstream peer our scripted client started for it to reach over
HTTP), and a real server under our scripted client. Before the watchdog they ran on until
their own time bounds."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
from _kills import Tally, carriers, env_for, kill_and_check, start

pytestmark = pytest.mark.clients


def _argv(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def _runs(pid: int, program: bytes) -> bool:
    """Whether ``pid`` is a Python process running ``program`` (a path's ending), not a
    gateway that merely names that command in one of its arguments."""
    argv = _argv(pid)
    return bool(argv) and b"python" in argv[0] and any(a.endswith(program) for a in argv[1:])


@pytest.mark.parametrize(
    ("target", "scenario", "needle"),
    [
        ("mcp-remote", "relay-roots", b"/compare/peer"),  # the upstream peer is up
        ("py-sdk-server", "server-asks", b"/py_sdk_server.py"),  # the real server is up
    ],
)
def test_a_killed_harness_takes_the_whole_cell_with_it(
    tmp_path: Path, pinned_spec: Path, target: str, scenario: str, needle: bytes
) -> None:
    env = env_for(tmp_path, pinned_spec)
    args = ["run", "--target", target, "--scenario", scenario, "--revision", "2025-11-25"]
    proc = start(args, env, tmp_path / "run.log")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        ours = carriers(str(tmp_path / "results"))
        if any(_runs(pid, needle) for pid in ours):
            break
        time.sleep(0.02)
    else:
        pytest.fail(f"the cell never got that far: {(tmp_path / 'run.log').read_text()}")
    alive = len(carriers(str(tmp_path / "results")))
    tally = Tally()
    kill_and_check(proc, signal.SIGKILL, tmp_path, tally, target)
    print(f"\n{target}: {alive} processes of the cell ended {tally.slowest_s:.2f} s after SIGKILL")
    assert not tally.problems, tally.problems
