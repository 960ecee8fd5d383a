"""The stage function behind ``mcp-compare run``: choose the cells, run them, summarise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from compare import _lock
from compare._errors import CompareError
from compare._paths import results_dir
from compare.exchange._scenarios import load_scenarios, scenario_files
from compare.exchange._targets import Target, command_target, load_targets, target_files
from compare.judge._verdicts import VERDICT_SYMBOLS
from compare.pin import release_order
from compare.play import _plays
from compare.play._cells import DEFAULT_VARIANT, Cell, plan_cells
from compare.play._harness import RunSettings, run_cells
from compare.play._schedule import expected_s
from compare.play._swap import sweep

#: The targets ``--command`` makes (they need no file of their own to be named).
COMMAND_TARGETS = ("command", "server-command")


def _pick(kind: str, wanted: list[str], known: dict[str, Any]) -> list[Any]:
    missing = [w for w in wanted if w not in known]
    if missing:
        raise CompareError(
            f"unknown {kind}: {', '.join(missing)}",
            f"known {kind}s: {', '.join(sorted(known))}",
        )
    return [known[w] for w in wanted]


def select(
    targets: list[str] | None = None,
    scenarios: list[str] | None = None,
    revisions: list[str] | None = None,
    variant: str | None = None,
    command: str | None = None,
    *,
    targets_dir: Path | None = None,
    scenarios_dir: Path | None = None,
) -> tuple[list[Cell], str, list[str]]:
    """The cells of a selection, plus the spec commit and the known revisions (from the pins)."""
    from compare.pin import load_pins

    pins = load_pins()
    known_revisions = list(pins.revision_names)
    # Only the files of the targets and scenarios asked for are read (an id is its file's
    # name): one cell reads two files, not every one; with none asked for, all are read.
    if targets:
        named = {*target_files(targets_dir), *(COMMAND_TARGETS if command is not None else ())}
        _pick("target", targets, {t: t for t in named})
    all_targets: dict[str, Target] = {t.id: t for t in load_targets(targets_dir, targets or None)}
    if command is not None:
        # --command fills server-command when that is the target asked for, else command.
        server_side = "server-command" in (targets or [])
        if server_side:
            all_targets["server-command"] = command_target(command, side="server")
        if not server_side or "command" in (targets or []):
            all_targets["command"] = command_target(command)
    if targets:
        chosen = _pick("target", targets, all_targets)
        for t in chosen:
            if t.is_template:
                example = (
                    "my-server --stdio" if t.side == "server" else "my-client --server {server}"
                )
                raise CompareError(
                    f"the {t.id} target needs --command",
                    f"e.g. mcp-compare run --target {t.id} --command '{example}'",
                )
    else:
        chosen = list(all_targets.values())
    if scenarios:
        _pick("scenario", scenarios, scenario_files(scenarios_dir))
    all_scenarios = {s.id: s for s in load_scenarios(scenarios_dir, scenarios or None)}
    chosen_s = (
        _pick("scenario", scenarios, all_scenarios) if scenarios else list(all_scenarios.values())
    )
    revs = revisions or known_revisions
    _pick("revision", revs, {r: r for r in known_revisions})
    return plan_cells(chosen, chosen_s, revs, variant), pins.commit, known_revisions


def run(
    cells: list[Cell],
    spec_commit: str,
    known_revisions: list[str],
    *,
    results: Path | None = None,
    jobs: int = 1,
    force: bool = False,
    rejudge: bool = False,
    tools: Path | None = None,
    on_done: Callable[[Cell, dict[str, Any]], None] | None = None,
    wait: bool = True,
    repeat: int = 1,
    settle: int = 1,
) -> list[dict[str, Any]]:
    """Run ``cells`` into ``results`` (default: the project's results folder).

    A cell whose stored verdict is ``error`` is never reused from the cache: an error says
    the harness could not reach a verdict (a timeout, a crash of ours), which the next run
    may well get past, so it is played again as if ``--force`` were given for it alone.
    ``--rejudge`` still only re-judges (it never runs a client). With ``jobs`` > 1 the cells
    whose scenarios declare the longest waits are started first.

    ``repeat`` plays each cell that many times (a cached cell with fewer plays is given the
    rest); ``settle`` plays a newly played fail, non-strict or unstable cell until it has that
    many plays (``compare._plays``). A cell whose plays differ reads ``unstable``.

    The results folder is held (``compare._lock``) for the whole run: a second run into it
    waits (``wait=False``: fails at once), then first clears what a killed run left there.
    """
    if jobs < 1:
        raise CompareError(f"--jobs must be at least 1, not {jobs}", None)
    for name, value in (("--repeat", repeat), ("--settle", settle)):
        if value < 1:
            raise CompareError(f"{name} must be at least 1, not {value}", None)
    # Absolute: the peer and the clients run in the cell's workspace, not here, and a
    # relative --results made every played cell's plan path unreadable to them.
    folder = (results or results_dir()).absolute()
    with _lock.holding(folder, "results folder", wait=wait):
        sweep(folder)
        settings = RunSettings(
            results=folder,
            spec_commit=spec_commit,
            known_revisions=known_revisions,
            force=force,
            rejudge=rejudge,
            tools=tools,
            repeat=repeat,
            settle=settle,
        )
        return _run_locked(cells, settings, jobs, on_done)


def _run_locked(
    cells: list[Cell],
    settings: RunSettings,
    jobs: int,
    on_done: Callable[[Cell, dict[str, Any]], None] | None,
) -> list[dict[str, Any]]:
    everything = list(range(len(cells)))
    groups = [(everything, settings)]
    if not (settings.force or settings.rejudge):
        again = {i for i, c in enumerate(cells) if c.stored_verdict(settings.results) == "error"}
        reuse = [i for i in everything if i not in again]
        groups = [(reuse, settings), (sorted(again), replace(settings, force=True))]
    out: dict[int, dict[str, Any]] = {}
    for picked, how in groups:
        if jobs > 1:
            # Longest expected first, so no long cell starts last while the rest of the run
            # has ended; the verdicts still come back in the order of ``cells``.
            cost = {i: expected_s(cells[i], settings.results) for i in picked}
            picked = sorted(picked, key=lambda i: -cost[i])
        verdicts = run_cells([cells[i] for i in picked], how, jobs=jobs, on_done=on_done)
        out |= dict(zip(picked, verdicts, strict=True))
    return [out[i] for i in everything]


def errors(verdicts: list[dict[str, Any]]) -> list[str]:
    """One line per cell that ended in error (target, variant, scenario, revision: why), so
    ``mcp-compare run`` can say which; the next run plays them again."""
    lines = []
    for v in verdicts:
        if v.get("verdict") == "error":
            variant = v.get("variant")
            shown = variant and variant != DEFAULT_VARIANT
            where = f"{v.get('target')}" + (f"~{variant}" if shown else "")
            lines.append(f"{where} {v.get('scenario')} {v.get('revision')}: {v.get('reason')}")
    return lines


#: verdict → the symbol the run table prints (the site's, from ``_verdicts``).
SYMBOLS = {verdict: symbol for verdict, (symbol, _) in VERDICT_SYMBOLS.items()}


def summary(verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts and one row per target/variant/scenario with a verdict per revision."""
    counts: dict[str, int] = {}
    rows: dict[tuple[str, str, str, str], dict[str, str]] = {}
    revisions: list[str] = []
    for v in verdicts:
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
        row = (v["target"], v["target_version"], v["variant"], v["scenario"])
        rows.setdefault(row, {})[v["revision"]] = v["verdict"]
        if v["revision"] not in revisions:
            revisions.append(v["revision"])
    return {
        "counts": counts,
        "revisions": sorted(revisions, key=release_order),
        "rows": [
            {"target": t, "version": ver, "variant": var, "scenario": s, "verdicts": cells}
            for (t, ver, var, s), cells in rows.items()
        ],
        "cells": [
            {
                k: v.get(k)
                for k in (
                    "target",
                    "target_version",
                    "variant",
                    "scenario",
                    "revision",
                    "verdict",
                    "reason",
                )
            }
            | {
                "cached": bool(v.get("cached")),
                "plays": _plays.count(v),
                "replayed": int(v.get("replayed") or 0),
            }
            for v in verdicts
        ],
    }
