"""The stages of ``mcp-compare compare`` in order, each run in this process by calling the
typed function its command calls (``compare.pin.cli.verify``, ``compare.exchange.cli.run``,
``compare.rows.cli.rows`` …: same output, messages and exit codes as ``mcp-compare <stage>``),
or skipped when its stamp says nothing it depends on changed.

No command line is built or parsed here: a stage's arguments are the function's arguments,
checked by mypy, and each stage package is imported only when its stage runs.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from compare import _lock, _memo, _paths, _stamp
from compare.pipeline import _inputs
from compare.play._plays import SETTLE


@dataclass(frozen=True)
class Stage:
    """One step: its stamp name, the command a reader knows it by, the stage function it
    calls (returning the command's exit code), and the two halves of its stamp."""

    name: str
    label: str
    call: Callable[[], int]
    inputs: Callable[[], str]
    outputs: Callable[[], list[Path]]
    #: Whether this result may be reused by a later run (False: always run it again).
    reusable: Callable[[], bool] = lambda: True


@dataclass(frozen=True)
class Outcome:
    """What one stage did: ``skipped`` (with why), ``ran`` or ``failed`` (with its exit code)."""

    stage: str
    status: str
    why: str
    seconds: float
    exit_code: int = 0


@dataclass(frozen=True)
class Selection:
    """Which cells ``run`` plays: by default (all empty) the whole matrix."""

    targets: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = ()
    revisions: tuple[str, ...] = ()
    #: Play every selected cell again instead of reusing its cache (``run --force``): how a
    #: maintainer checks that the published verdicts hold on a fresh play, not only on disk.
    replay: bool = False

    def args(self) -> tuple[str, ...]:
        """The selection as ``run`` options: part of the run stage's stamp, so a run for
        other cells is never skipped past."""
        named = [
            ("--target", self.targets),
            ("--scenario", self.scenarios),
            ("--revision", self.revisions),
        ]
        picked = tuple(a for option, values in named for v in values for a in (option, v))
        return (*picked, "--force") if self.replay else picked

    def play(self, jobs: int) -> int:
        """The run stage: these cells through ``compare.exchange.cli.run``; a newly played
        doubtful cell is played until it has SETTLE plays before it is published (one whose
        plays differ reads unstable, ``compare.play._plays``)."""
        from compare.exchange.cli import run

        return run(
            list(self.targets) or None,
            list(self.scenarios) or None,
            list(self.revisions) or None,
            jobs=jobs,
            force=self.replay,
            settle=SETTLE,
        )


def _pin() -> int:
    from compare.pin.cli import verify

    return verify()


def _models() -> int:
    from compare.models.cli import models

    return models()


def _diff() -> int:
    from compare.diff.cli import diff

    return diff(quiet=True)


def _rows() -> int:
    from compare.rows.cli import rows

    return rows()


def _cite() -> int:
    from compare.cite.cli import cite

    return cite(check=True)


def _render() -> int:
    from compare.site.cli import render

    return render()


def _export() -> int:
    from compare.site.cli import export

    return export()


def _site() -> int:
    from compare.site.cli import build

    return build()


def _run_outputs(chosen: Selection) -> list[Path]:
    """Every selected cell's folder: a file of a cell changed or deleted after it was written
    runs the stage again, which finds the damage and plays the cell again."""
    from compare.play._run import select

    if not (chosen.targets or chosen.scenarios or chosen.revisions):
        # The whole matrix: the results folder as one output, one walk instead of one per
        # cell (a cell's damage still shows: any file of it changes the folder's digest).
        return [_paths.results_dir()]
    cells, _commit, _revisions = select(
        list(chosen.targets) or None, list(chosen.scenarios) or None, list(chosen.revisions) or None
    )
    results = _paths.results_dir()
    return [cell.folder(results) for cell in cells]


def _citations_reusable() -> bool:
    """``build/citations.json`` marks a record that rests on something missing here (a spec
    file not fetched, a package not installed) with ``inputs: null``: never skip past it."""
    try:
        data = json.loads((_paths.build_dir() / "citations.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("inputs"), str)


def stages(jobs: int, chosen: Selection | None = None) -> list[Stage]:
    """The pipeline in order (``make compare`` before it ran in one process). ``chosen``
    narrows the cells ``run`` plays (default: the whole matrix)."""
    i = _inputs
    chosen = chosen or Selection()
    args = chosen.args()
    return [
        Stage("pin", "pin verify", _pin, i.pin_inputs, i.pin_outputs),
        Stage("models", "models", _models, i.models_inputs, i.models_outputs),
        Stage("diff", "diff", _diff, i.diff_inputs, i.diff_outputs),
        Stage(
            "run",
            "run",
            lambda: chosen.play(jobs),
            lambda: i.run_inputs(args),
            lambda: _run_outputs(chosen),
        ),
        Stage("rows", "rows", _rows, i.rows_inputs, i.rows_outputs, _citations_reusable),
        Stage("cite", "cite --check", _cite, i.cite_inputs, i.cite_outputs, _citations_reusable),
        Stage("render", "render", _render, i.render_inputs, i.render_outputs),
        Stage("export", "export", _export, i.export_inputs, i.export_outputs),
        Stage("site", "site", _site, i.site_inputs, i.site_outputs),
    ]


#: The stage names, in order (for ``--timings`` readers and the docs).
STAGES = tuple(s.name for s in stages(1))


def _skip_line(stage: Stage, why: str) -> str:
    if stage.name == "site":
        return f"site unchanged, not rebuilt ({why})"
    return f"{stage.label}: skipped ({why})"


def run_pipeline(
    *,
    jobs: int,
    force: bool = False,
    chosen: Selection | None = None,
    say: Callable[[str], None] = print,
    wait: bool = True,
) -> tuple[list[Outcome], int]:
    """Run or skip every stage in order; stop at the first that fails. Returns what each
    stage did and the exit code of the pipeline (the failing stage's, else 0).

    The build and results folders are held (``compare._lock``, in that order) throughout, so
    a second pipeline in the same checkout waits for this one (``wait=False``: fails at
    once) instead of writing stamps, cells or the site under it.
    """
    with (
        _lock.holding(_paths.build_dir(), "build folder", wait=wait),
        _lock.holding(_paths.results_dir(), "results folder", wait=wait),
    ):
        return _run_stages(jobs=jobs, force=force, chosen=chosen, say=say)


def _run_stages(
    *, jobs: int, force: bool, chosen: Selection | None, say: Callable[[str], None]
) -> tuple[list[Outcome], int]:
    outcomes: list[Outcome] = []
    _stamp.forget()  # a tree hashed by an earlier call in this process may have changed since
    replay = chosen is not None and chosen.replay
    with contextlib.ExitStack() as scope:
        return _each_stage(
            outcomes, scope, jobs=jobs, force=force, chosen=chosen, replay=replay, say=say
        )


def _each_stage(
    outcomes: list[Outcome],
    scope: contextlib.ExitStack,
    *,
    jobs: int,
    force: bool,
    chosen: Selection | None,
    replay: bool,
    say: Callable[[str], None],
) -> tuple[list[Outcome], int]:
    """The stages in order. From ``rows`` on no stage writes results, so the readings of
    the results and the site inputs are shared by the stages after the run
    (``compare._memo``)."""
    for stage in stages(jobs, chosen):
        if stage.name == "rows":
            scope.enter_context(_memo.shared())
        started = time.perf_counter()
        inputs = stage.inputs()
        if force or (replay and stage.name == "run"):
            why: str | None = "--force" if force else "--replay"
        else:
            why = _stamp.why_stale(stage.name, inputs)
        if why is None and stage.reusable():
            say(_skip_line(stage, "unchanged inputs"))
            outcomes.append(Outcome(stage.name, "skipped", "unchanged inputs", _since(started)))
            continue
        why = why or "its last result may not be reused"
        say(f"{stage.label}: running ({why})")
        _stamp.clear(stage.name)
        try:
            code = stage.call()
        finally:
            # Only the run writes results; the stages after it only read them.
            _stamp.forget(keep=() if stage.name == "run" else (_paths.results_dir(),))
        if code:
            outcomes.append(Outcome(stage.name, "failed", why, _since(started), code))
            return outcomes, code
        if stage.reusable():
            _stamp.record(stage.name, inputs, stage.outputs())
        outcomes.append(Outcome(stage.name, "ran", why, _since(started)))
    return outcomes, 0


def _since(started: float) -> float:
    return round(time.perf_counter() - started, 4)
