"""Ending a harness-ended client whose command is a launcher: the whole group gets the grace.

Qwen Code's npm bin is such a launcher: it runs the real CLI as a child and dies at once on
SIGTERM while the child takes a second or two to shut down. Counting that child as a leftover
would be the harness's doing, not the client's; a child that ignores SIGTERM still ends.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from compare.play._proc import Ended, cell_processes, run_process

#: A child that sets its SIGTERM handler, says so in a file, and then lingers (``delay`` s) on
#: SIGTERM before exiting, or ignores SIGTERM altogether (``delay`` < 0).
CHILD = """
import signal, sys, time
from pathlib import Path
delay = float(sys.argv[2])
def term(*_):
    if delay >= 0:
        time.sleep(delay)
        sys.exit(0)
signal.signal(signal.SIGTERM, term)
Path(sys.argv[1]).write_text("ready")
while True:
    time.sleep(0.05)
"""


def _launch(tmp_path: Path, delay: float, grace_s: float) -> tuple[Ended, float]:
    ready = tmp_path / "ready"
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    # sh dies at once on SIGTERM; its child is what lingers, as in an npm launcher.
    argv = ["sh", "-c", f'"{sys.executable}" "{script}" "{ready}" {delay} & wait']
    started = time.monotonic()
    ended = run_process(
        argv,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin"},
        stdout=tmp_path / "out",
        stderr=tmp_path / "err",
        timeout_s=20,
        markers=[],
        should_end=ready.exists,
        ends_self=False,
        grace_s=grace_s,
    )
    return ended, time.monotonic() - started


def test_a_child_that_shuts_down_within_the_grace_is_no_leftover(tmp_path: Path) -> None:
    ended, _took = _launch(tmp_path, delay=1.8, grace_s=3.0)
    assert ended.ended_by == "harness"
    assert ended.leftover_killed == 0
    assert ended.sigkill is False


def test_a_child_that_ignores_sigterm_is_killed_at_the_grace(tmp_path: Path) -> None:
    ended, took = _launch(tmp_path, delay=-1, grace_s=0.5)
    assert ended.ended_by == "harness"
    assert ended.sigkill is True
    assert took < 10
    assert cell_processes(-1, [str(tmp_path)]) == []
