"""Progress a person can follow (issue 11): off a terminal, one line per batch of cells with
the counts and an ETA from the played cells only; a summary of cached, run, failed, errored
and not-run cells."""

from __future__ import annotations

import io
import re
from typing import Any

from compare._progress import CellProgress, Tally, batch_size, clock


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _feed(progress: CellProgress, clock_: _Clock, events: list[dict[str, Any]]) -> None:
    for i, verdict in enumerate(events):
        if not verdict.get("cached") and verdict["verdict"] != "not-run":
            clock_.now += 2.0  # a played cell takes two seconds of wall time
        progress.on_done(f"cell {i}", verdict)


def test_batch_is_five_percent_and_at_most_twenty_cells() -> None:
    assert [batch_size(n) for n in (1, 7, 20, 40, 100, 400, 5000)] == [1, 1, 1, 2, 5, 20, 20]


def test_plain_lines_per_batch_with_counts_and_the_summary() -> None:
    stream, ticks = io.StringIO(), _Clock()
    events: list[dict[str, Any]] = (
        [{"verdict": "pass", "cached": True}] * 10
        + [{"verdict": "not-run"}] * 10
        + [{"verdict": "fail"}] * 5
        + [{"verdict": "error"}] * 3
        + [{"verdict": "pass"}] * 12
    )
    with CellProgress(len(events), stream, terminal=False, clock_fn=ticks) as progress:
        _feed(progress, ticks, events)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 20  # 40 cells, a line every 2 of them
    assert lines[0] == "cells 2/40 (5%): 2 pass; cached 2, run 0; ETA ?"
    assert lines[9] == "cells 20/40 (50%): 10 not-run, 10 pass; cached 10, run 0; ETA ?"
    assert lines[-1] == (
        "cells 40/40 (100%): 3 error, 5 fail, 10 not-run, 22 pass; cached 10, run 20; ETA 0:00"
    )
    assert progress.tally.summary() == (
        "40 cells: 10 cached, 20 run; 5 failed, 3 errored, 10 not run"
    )
    assert progress.tally.as_dict() == {
        "cells": 40,
        "cached": 10,
        "run": 20,
        "failed": 5,
        "errored": 3,
        "not_run": 10,
        "unstable": 0,
        "replayed": 0,
        "replayed_unstable": 0,
    }


def test_the_summary_counts_unstable_and_replayed_cells() -> None:
    tally = Tally(total=3)
    tally.add({"verdict": "unstable", "replayed": 2})
    tally.add({"verdict": "fail", "replayed": 2})
    tally.add({"verdict": "pass"})
    assert tally.summary() == (
        "3 cells: 0 cached, 3 run; 1 failed, 0 errored, 0 not run, 1 unstable; "
        "2 doubtful cell(s) played again, 1 of them unstable"
    )


def test_the_eta_comes_from_played_cells_not_cached_ones() -> None:
    tally = Tally(total=100, started=0.0)
    for _ in range(45):
        tally.add({"verdict": "pass", "cached": True})
    assert tally.eta(now=0.5) is None  # nothing played yet: no guess
    for _ in range(5):
        tally.add({"verdict": "pass"})
    # 5 played cells in 10 s, one done cell in ten was played: 50 left -> 5 more -> 10 s.
    assert tally.eta(now=10.0) == 10.0
    assert "ETA 0:10" in tally.line(now=10.0)
    assert re.search(r"cached 45, run 5", tally.line(now=10.0))


def test_weighted_cells_keep_the_first_long_cells_from_inflating_the_eta() -> None:
    # Ten cells: two long ones (weight 10) played first, then eight short ones (weight 1).
    weights = {f"c{i}": (10.0 if i < 2 else 1.0) for i in range(10)}
    tally = Tally(total=10, started=0.0, weights=weights, total_weight=sum(weights.values()))
    plain = Tally(total=10, started=0.0)
    for label in ("c0", "c1"):
        tally.add({"verdict": "pass"}, label)
        plain.add({"verdict": "pass"})
    # 20 s for 20 units of weight: 8 units left -> 8 s; counting cells says 8 cells x 10 s.
    assert tally.eta(now=20.0) == 8.0
    assert plain.eta(now=20.0) == 80.0
    stream = io.StringIO()
    progress = CellProgress(3, stream, terminal=False, weights={"a": 5.0}, clock_fn=lambda: 0.0)
    assert progress.tally.total_weight == 7.0  # a weighs 5, the two unnamed cells 1 each


def test_a_line_always_follows_the_last_cell_and_a_quiet_reporter_prints_nothing() -> None:
    stream = io.StringIO()
    with CellProgress(41, stream, terminal=False) as progress:  # batch of 3: 41 is no multiple
        for i in range(41):
            progress.on_done(f"c{i}", {"verdict": "pass"})
    assert stream.getvalue().splitlines()[-1].startswith("cells 41/41 (100%)")
    quiet = io.StringIO()
    with CellProgress(3, quiet, enabled=False) as progress:
        for i in range(3):
            progress.on_done(f"c{i}", {"verdict": "error"})
    assert quiet.getvalue() == "" and progress.tally.verdicts["error"] == 3


def test_the_terminal_bar_runs_and_shows_our_estimate() -> None:
    stream, ticks = io.StringIO(), _Clock()
    with CellProgress(4, stream, terminal=True, clock_fn=ticks) as progress:
        _feed(progress, ticks, [{"verdict": "pass", "cached": True}, {"verdict": "pass"}])
        task = progress._bar.tasks[0]  # the bar's own state is what is drawn
        assert task.completed == 2 and task.fields["eta"] == 2.0
        _feed(progress, ticks, [{"verdict": "pass"}, {"verdict": "pass"}])
    assert progress.tally.done == 4


def test_clock_format() -> None:
    assert [clock(None), clock(0), clock(75.2), clock(3725)] == ["?", "0:00", "1:15", "1:02:05"]
