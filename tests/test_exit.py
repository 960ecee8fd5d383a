"""The console script leaves without the interpreter's teardown (``compare._exit.leave``),
and still does everything a normal exit does that anyone can see: its status, its buffered
output, its ``atexit`` handlers, and the threads it would have waited for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from compare._exit import exit_status
from compare._paths import PROJECT_ROOT


def _leave_after(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text(
        "import atexit, sys, threading, time\nfrom compare._exit import leave\n" + body,
        encoding="utf-8",
    )
    return subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        cwd=PROJECT_ROOT,
        env={"PYTHONPATH": str(PROJECT_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_leave_keeps_the_status_the_output_and_the_atexit_handlers(tmp_path: Path) -> None:
    done = _leave_after(
        "atexit.register(lambda: open(sys.argv[1] + '/handler', 'w').write('ran'))\n"
        "sys.stdout.write('no newline, still in the buffer')\n"
        "sys.stderr.write('to stderr')\n"
        "leave(3)\n"
        "print('never')\n",
        tmp_path,
    )
    assert done.returncode == 3
    assert done.stdout == "no newline, still in the buffer"
    assert done.stderr == "to stderr"
    assert (tmp_path / "handler").read_text(encoding="utf-8") == "ran"


def test_leave_waits_for_a_thread_that_a_normal_exit_waits_for(tmp_path: Path) -> None:
    done = _leave_after(
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    print('the thread finished')\n"
        "threading.Thread(target=late).start()\n"
        "leave(0)\n",
        tmp_path,
    )
    assert done.returncode == 0
    assert done.stdout == "the thread finished\n"


def test_a_message_code_is_printed_and_ends_with_one(tmp_path: Path) -> None:
    done = _leave_after("leave('stopped: a reason')\n", tmp_path)
    assert (done.returncode, done.stderr) == (1, "stopped: a reason\n")


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), (256 + 7, 7)])
def test_exit_status_is_what_sys_exit_would_end_with(code: object, status: int) -> None:
    assert exit_status(code) == status


def test_the_console_script_ends_with_the_command_status() -> None:
    # The installed script is compare.cli:script; an unknown target is a usage error (2).
    done = subprocess.run(
        [sys.executable, "-m", "compare", "run", "-t", "no-such-target", "-s", "handshake"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "unknown target: no-such-target" in done.stderr
