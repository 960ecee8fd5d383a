"""A warm ``mcp-compare compare`` with nothing changed, on the checkout as it is (issue 11,
target 1: at most 2 s on a 2-core machine; issue 37: 0.5 s), and after N changed cells
(issue 37: 10 cells, at most 10 s).

    .venv/bin/python bench/warm.py [--runs 5] [--spec /work/shared/mcp-spec] [--changed 10]

``--changed N`` first plays N cells again with ``mcp-compare run --force`` (codex's played
cells, the cheapest client here: that time is not counted), so their stored results change as
after a maintainer's replay, then times the one ``mcp-compare compare`` that publishes them;
it repeats that ``--runs`` times and reports the same split under ``changed``.

Run it after a full ``make compare`` has filled ``results/``, ``build/`` and ``site/``. It
first runs ``mcp-compare compare`` until one run skips every stage (a run that changed the
matrix renders once more on the next: the "what changed" page reads the matrix that
``export`` writes after ``render``), then times N more runs (wall clock of the whole command,
interpreter start-up included, as ``make compare`` pays it) and ``mcp-compare tools install``
(what ``make compare`` runs before it). It writes nothing of its own into the checkout: the
per-stage split goes through ``--timings`` into a temporary folder, and the pipeline writes
only what it always writes (stamps, and outputs of stages that were not current).

Prints JSON: ``{"warm_s", "target_s", "stages": {stage: median seconds}, "statuses",
"runs_s", "tools_install_s", "settled_after"}``. Asserts nothing; a run that did not skip
every stage is reported in ``statuses``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The checkout this script belongs to (not wherever an installed ``compare`` lives: in a
#: worktree sharing another checkout's venv they differ). ``-m compare`` run from here
#: imports this checkout's package.
ROOT = Path(__file__).resolve().parent.parent
MC = [sys.executable, "-m", "compare"]
TARGET_S = 2
CHANGED_TARGET_S = 10
DEFAULT_SPEC = Path("/work/shared/mcp-spec")


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(
        [*MC, *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        errors="replace",
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start, done


def _compare(env: dict[str, str], timings: Path) -> tuple[float, dict[str, dict[str, object]]]:
    seconds, done = _timed(["compare", "--timings", str(timings)], env)
    if done.returncode != 0:
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-15:])
        sys.exit(f"mcp-compare compare failed (exit {done.returncode}):\n{tail}")
    return seconds, json.loads(timings.read_text("utf-8"))


#: The cells ``--changed`` plays again: codex's, which start and end in about a second.
CHANGED_TARGET = "codex"
CHANGED_SCENARIOS = ("handshake", "roots-list", "roots-undeclared", "version-window")


def _changed(env: dict[str, str], timings: Path, count: int, runs: int) -> dict[str, object]:
    """Play ``count`` cells again (not timed), then time the compare that publishes them."""
    import itertools

    revisions = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
    picked = list(itertools.product(CHANGED_SCENARIOS, revisions))[:count]
    walls: list[float] = []
    split: dict[str, list[float]] = {}
    for _ in range(runs):
        for scenario, revision in picked:
            args = ["run", "--force", "-t", CHANGED_TARGET, "-s", scenario, "-r", revision]
            _seconds, done = _timed(args, env)
            if done.returncode not in (0, 1):
                sys.exit(f"mcp-compare {' '.join(args)} failed:\n{done.stderr[-2000:]}")
        seconds, stages = _compare(env, timings)
        walls.append(seconds)
        for name, stage in stages.items():
            split.setdefault(name, []).append(float(str(stage["seconds"])))
    return {
        "cells": len(picked),
        "target_s": CHANGED_TARGET_S,
        "wall_s": round(statistics.median(walls), 3),
        "runs_s": [round(w, 3) for w in walls],
        "stages": {name: round(statistics.median(values), 4) for name, values in split.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--spec", default=os.environ.get("MCP_COMPARE_SPEC") or str(DEFAULT_SPEC))
    parser.add_argument("--changed", type=int, default=0, help="also time N changed cells")
    options = parser.parse_args()
    env = {**os.environ, "MCP_COMPARE_SPEC": options.spec}
    with tempfile.TemporaryDirectory(prefix="mcp-compare-warm-") as tmp:
        timings = Path(tmp) / "timings.json"
        settled_after = None
        for attempt in range(1, 4):
            _seconds, stages = _compare(env, timings)
            if all(s["status"] == "skipped" for s in stages.values()):
                settled_after = attempt
                break
        walls: list[float] = []
        split: dict[str, list[float]] = {}
        statuses: dict[str, set[str]] = {}
        for _ in range(options.runs):
            seconds, stages = _compare(env, timings)
            walls.append(seconds)
            for name, stage in stages.items():
                split.setdefault(name, []).append(float(str(stage["seconds"])))
                statuses.setdefault(name, set()).add(str(stage["status"]))
        tools = [_timed(["tools", "install"], env)[0] for _ in range(options.runs)]
        changed = _changed(env, timings, options.changed, options.runs) if options.changed else None
    report = {
        "warm_s": round(statistics.median(walls), 3),
        "target_s": TARGET_S,
        "stages": {name: round(statistics.median(values), 4) for name, values in split.items()},
        "statuses": {name: "/".join(sorted(values)) for name, values in statuses.items()},
        "runs_s": [round(w, 3) for w in walls],
        "tools_install_s": round(statistics.median(tools), 3),
        "settled_after": settled_after,
        "cores": os.cpu_count(),
    }
    if changed is not None:
        report["changed"] = changed
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
