"""Installs run side by side: results keep their order, and a failure waits for the others."""

from __future__ import annotations

import threading
import time

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
