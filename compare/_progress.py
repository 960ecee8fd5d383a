"""Progress of a run of cells that a person can follow, on a terminal and in a CI log.

A run used to print nothing for minutes when its output went to a log. ``CellProgress`` takes
one event per finished cell (``on_done(cell, verdict)``, the callback ``run_cells`` calls, from
any worker thread) and shows:

- on a terminal, a Rich bar with the time remaining;
- elsewhere, one plain line per batch of cells (every 5 % of the run, at most every 20
  cells, and always the last), each with done/total, the counts by verdict, cached and run
  cells so far, and the time remaining.

The time remaining is estimated from the cells actually played: a cached cell (or a not-run
one) takes no time, so counting it would make the rest of the run look nearly free. The rate
is wall time per played cell so far, and the remaining cells are expected to be played in the
proportion seen so far. Cells are not all alike: a run with several jobs starts the cells with
the longest declared waits first, so counting cells alone would make the first minutes
promise an hour. Each cell may therefore carry a weight (``run`` gives one second plus its
scenario's declared ``observe_s`` windows), and the estimate is made in weight, not in cells.
``Tally.summary()`` is the closing line: cached, run, failed, errored
and not-run. Any command that runs cells (``run``, and the single-process pipeline) can use it.
"""

from __future__ import annotations

import math
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TextIO

#: Off a terminal, a line at least every this many cells (and every 5 % of smaller runs).
MAX_BATCH = 20


@dataclass
class Tally:
    """What has finished so far: verdict counts, how many came from the cache, and how many
    were played (a client run or a transcript re-judged now; a fresh not-run cell is
    neither). ``not run`` in the counts is every not-run verdict, cached or new."""

    total: int
    verdicts: Counter[str] = field(default_factory=Counter)
    cached: int = 0
    played: int = 0
    started: float = field(default_factory=time.monotonic)
    #: Expected cost of each cell by label; a label not here weighs 1.
    weights: Mapping[str, float] = field(default_factory=dict)
    #: Sum of every cell's weight (``total`` when no weights are given).
    total_weight: float | None = None
    done_weight: float = 0.0
    #: Cells played again (``--settle``) because their first plays were doubtful, and how
    #: many of those came out ``unstable``.
    replayed: int = 0
    replayed_unstable: int = 0

    @property
    def done(self) -> int:
        return sum(self.verdicts.values())

    def add(self, verdict: Mapping[str, Any], label: str | None = None) -> None:
        word = str(verdict.get("verdict"))
        self.verdicts[word] += 1
        self.done_weight += self.weights.get(label, 1.0) if label is not None else 1.0
        if verdict.get("cached"):
            self.cached += 1
        elif word != "not-run":
            self.played += 1
        if verdict.get("replayed"):
            self.replayed += 1
            self.replayed_unstable += word == "unstable"

    def eta(self, now: float | None = None) -> float | None:
        """Seconds left, from the wall time per played cell; None before the first one.

        The remaining weight is played at the rate seen so far: elapsed time per unit of
        weight done (cached and not-run cells included, since the rest of the run will have
        them in the same proportion)."""
        if not self.played:
            return None if self.done < self.total else 0.0
        elapsed = (now if now is not None else time.monotonic()) - self.started
        total = self.total_weight if self.total_weight is not None else float(self.total)
        left = max(0.0, total - self.done_weight)
        return left * elapsed / self.done_weight if self.done_weight else None

    def line(self, now: float | None = None) -> str:
        """One log line: done/total, counts by verdict, cached/run, time remaining."""
        percent = 100 * self.done // self.total if self.total else 100
        counts = ", ".join(f"{n} {word}" for word, n in sorted(self.verdicts.items()))
        return (
            f"cells {self.done}/{self.total} ({percent}%): {counts or 'none yet'}; "
            f"cached {self.cached}, run {self.played}; ETA {clock(self.eta(now))}"
        )

    def as_dict(self) -> dict[str, int]:
        """The summary's counts, for ``--json``."""
        v = self.verdicts
        return {
            "cells": self.done,
            "cached": self.cached,
            "run": self.played,
            "failed": v["fail"],
            "errored": v["error"],
            "not_run": v["not-run"],
            "unstable": v["unstable"],
            "replayed": self.replayed,
            "replayed_unstable": self.replayed_unstable,
        }

    def summary(self) -> str:
        """The closing sentence of a run."""
        v = self.verdicts
        unstable = f", {v['unstable']} unstable" if v["unstable"] else ""
        replayed = (
            f"; {self.replayed} doubtful cell(s) played again, {self.replayed_unstable} of "
            "them unstable"
            if self.replayed
            else ""
        )
        return (
            f"{self.done} cells: {self.cached} cached, {self.played} run; "
            f"{v['fail']} failed, {v['error']} errored, {v['not-run']} not run{unstable}"
            f"{replayed}"
        )


def clock(seconds: float | None) -> str:
    """``75.2`` -> ``1:15``; ``None`` (not known yet) -> ``?``."""
    if seconds is None:
        return "?"
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def batch_size(total: int) -> int:
    """Cells per plain line: 5 % of the run, at least 1 and at most ``MAX_BATCH``."""
    return max(1, min(MAX_BATCH, math.ceil(total / 20)))


class CellProgress:
    """Reports each finished cell; use as a context manager around the run.

    ``stream`` is where the report goes (the CLI passes stderr when stdout carries JSON);
    ``terminal`` decides bar or lines (default: whether ``stream`` is a terminal);
    ``enabled=False`` counts without printing.
    """

    def __init__(
        self,
        total: int,
        stream: TextIO,
        *,
        terminal: bool | None = None,
        enabled: bool = True,
        clock_fn: Callable[[], float] = time.monotonic,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        given = dict(weights or {})
        whole = sum(given.values()) + (total - len(given)) if given else None
        self.tally = Tally(total, started=clock_fn(), weights=given, total_weight=whole)
        self._stream = stream
        self._terminal = stream.isatty() if terminal is None else terminal
        self._enabled = enabled
        self._now = clock_fn
        self._lock = threading.Lock()
        self._every = batch_size(total)
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> CellProgress:
        if self._enabled and self._terminal:
            self._bar, self._task = _start_bar(self._stream, self.tally.total)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def on_done(self, cell: Any, verdict: Mapping[str, Any]) -> None:
        """The ``on_done`` callback of ``run_cells``: ``cell`` needs only a ``label``."""
        label = str(getattr(cell, "label", cell))
        with self._lock:
            self.tally.add(verdict, label)
            done, eta = self.tally.done, self.tally.eta(self._now())
            if not self._enabled:
                return
            if self._bar is not None:
                self._bar.update(
                    self._task,
                    completed=done,
                    description=f"{label}: {verdict.get('verdict')}",
                    eta=eta,
                )
            elif done % self._every == 0 or done == self.tally.total:
                self._stream.write(self.tally.line(self._now()) + "\n")
                self._stream.flush()


def _start_bar(stream: TextIO, total: int) -> tuple[Any, Any]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        Task,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class PlayedTimeRemaining(TimeRemainingColumn):
        """Rich's column, fed the estimate from played cells instead of Rich's own speed
        (which a burst of cached cells would make absurdly optimistic)."""

        def render(self, task: Task) -> Text:
            eta = task.fields.get("eta")
            shim = _Shim(task.finished, task.finished_time, task.total, eta)
            return super().render(shim)  # type: ignore[arg-type]

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        PlayedTimeRemaining(),
        console=Console(file=stream),
    )
    task = bar.add_task("cells", total=total, eta=None)
    bar.start()
    return bar, task


@dataclass(frozen=True)
class _Shim:
    """The four attributes ``TimeRemainingColumn.render`` reads from a task."""

    finished: bool
    finished_time: float | None
    total: float | None
    time_remaining: float | None
