"""Installs run side by side: results keep their order, and a failure waits for the others."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.install._tools import _in_parallel


def test_results_keep_the_jobs_order_and_jobs_overlap() -> None:
    running = threading.Barrier(2, timeout=5)  # both must be in flight at once to pass it

    def job(name: str, delay: float) -> str:
        running.wait()
        time.sleep(delay)
        return name

    took: list[float] = []
    jobs = [lambda: job("slow", 0.2), lambda: job("fast", 0.0)]
    assert _in_parallel(jobs, took) == ["slow", "fast"]
    # Each job's own time, in the jobs' order: the slow one slept, the fast one did not.
    assert len(took) == 2 and took[0] >= 0.2 > took[1]


def test_a_failure_is_raised_after_the_other_installs_ended() -> None:
    ended: list[str] = []

    def fails() -> str:
        raise CompareError("npm install failed", "see its output")

    def slow() -> str:
        time.sleep(0.2)
        ended.append("slow")
        return "slow"

    with pytest.raises(CompareError, match="npm install failed"):
        _in_parallel([fails, slow])
    assert ended == ["slow"]  # no install is left running behind the error


def test_jobs_start_in_the_order_given_and_report_in_the_lists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The compiles start first on a cold machine; the report still reads in the list's order."""
    from compare.install import _tools

    monkeypatch.setattr(_tools, "PARALLEL_INSTALLS", 1)  # one at a time: the start order shows
    started: list[str] = []

    def job(name: str) -> str:
        started.append(name)
        return name

    jobs = [lambda n=n: job(n) for n in ("npm", "pip", "cargo")]
    assert _in_parallel(jobs, None, [2, 0, 1]) == ["npm", "pip", "cargo"]
    assert started == ["cargo", "npm", "pip"]


def test_the_install_starts_the_compiles_first(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from compare.install import _tools
    from compare.install._pins import Pin

    pins = [
        Pin("a-npm", "npm", "a", "1"),
        Pin("b-py", "pypi", "b", "1"),
        Pin("c-host", "go", "c", "1"),
        Pin("d-crate", "crates", "d", "1"),
    ]
    order: list[list[int]] = []
    monkeypatch.setattr(_tools, "load_pins", lambda _dir=None: pins)
    monkeypatch.setattr(_tools._cargo, "is_binary", lambda p: p.registry == "crates")
    monkeypatch.setattr(
        _tools, "_in_parallel", lambda jobs, took, given: order.append(given) or ["x"] * len(jobs)
    )
    _tools.install_tools(tools=tmp_path)
    # jobs: npm, (no own npm), pypi b, host c, the crate program; started: crate, host, rest
    assert order == [[3, 2, 0, 1]]
