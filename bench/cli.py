"""What the command line costs next to the client it drives (issue 26, target 1).

    .venv/bin/python bench/cli.py [--runs N] [--target ts-sdk] [--as-is]

Times, each as the median of N runs interleaved so that contention weighs on all alike:

* ``mcp-compare --help`` and ``mcp-compare run --help`` (whole processes);
* one cell as a maintainer runs it, the whole process:
  ``mcp-compare run -t TARGET -s handshake -r 2025-11-25 --variant roots --force``
  (into a temporary results folder), with the parsed-data cache warm, and once with an
  empty one (``MCP_COMPARE_YAML_CACHE`` pointed at a fresh folder: every file parsed);
* the same cell alone, played in this process (``run_cells``, as bench/conformance.py does);
* the same SDK host's bare handshake against ``bench/trivial_server.py`` (no harness).

Commands run this checkout's code (``python -m compare`` with it first on ``PYTHONPATH``).
A first run of each is a warm-up, not counted. Unless ``--as-is`` is given, the measured
commands run without ``PYTHONDONTWRITEBYTECODE`` (some sandboxes set it, which makes every
start compile the whole package: not what an installed checkout pays); the JSON says which.
Prints JSON only; a part that cannot run says "not run, because …". Nothing here asserts a
time.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's code, not the venv's editable install

from harness_overhead import bare_handshake  # noqa: E402

from compare._paths import tools_dir  # noqa: E402
from compare.exchange._scenarios import load_scenarios  # noqa: E402
from compare.exchange._targets import load_targets  # noqa: E402
from compare.pin import load_pins  # noqa: E402
from compare.play._cells import Cell  # noqa: E402
from compare.play._harness import RunSettings, run_cells  # noqa: E402

#: Issue 26, target 1.
HELP_TARGET_S = 0.25
BARE_TARGET_RATIO = 2.0
REVISION = "2025-11-25"


def command_env(as_is: bool, **extra: str) -> dict[str, str]:
    """The environment a measured command runs in: this checkout first on the path, bytecode
    written and reused unless ``as_is``, plus ``extra``."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return {**env, **extra}


def process_timer(
    argv: list[str], env: dict[str, str], check: Callable[[str], str | None]
) -> Callable[[], float]:
    """A timer of one whole process; ``check`` reads its output and says what is wrong."""

    def once() -> float:
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        elapsed = time.perf_counter() - start
        problem = check(done.stdout) if done.returncode == 0 else f"exit {done.returncode}"
        if problem:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"{' '.join(argv[2:])}: {problem}: {' / '.join(tail)}")
        return elapsed

    return once


def _lists_commands(out: str) -> str | None:
    return None if "run" in out and "compare" in out else "the help lists no commands"


def one_cell(out: str) -> str | None:
    """What is wrong with a ``run --json`` summary that should hold exactly one cell."""
    try:
        rows = json.loads(out)["rows"]
    except (ValueError, KeyError):
        return "no JSON summary"
    verdicts = [v for row in rows for v in row["verdicts"].values()]
    return None if len(verdicts) == 1 else f"{len(verdicts)} cells, not one"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--target", default="ts-sdk")
    parser.add_argument("--as-is", action="store_true", help="Keep PYTHONDONTWRITEBYTECODE.")
    args = parser.parse_args()
    python = [sys.executable, "-m", "compare"]
    result: dict[str, Any] = {
        "bench": "command line cost (issue 26, target 1)",
        "runs": args.runs,
        "bytecode": (
            "as the environment says (PYTHONDONTWRITEBYTECODE="
            f"{os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r})"
            if args.as_is
            else "written and reused (PYTHONDONTWRITEBYTECODE unset for the measured commands)"
        ),
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    env = command_env(args.as_is)
    timers: dict[str, Callable[[], float]] = {
        "help_s": process_timer([*python, "--help"], env, _lists_commands),
        "run_help_s": process_timer([*python, "run", "--help"], env, lambda out: None),
    }
    with tempfile.TemporaryDirectory(prefix="mcpc-bench-cli-") as tmp_name:
        tmp = Path(tmp_name)
        target = next((t for t in load_targets() if t.id == args.target), None)
        why_not = None
        if target is None:
            why_not = f"there is no target {args.target}"
        elif not (tools_dir() / "node_modules").is_dir():
            why_not = "tools/ is not installed (run: mcp-compare tools install)"
        if why_not is None and target is not None:
            variant = "roots" if "roots" in target.variants else "default"
            cell_argv = [*python, "run", "-t", target.id, "-s", "handshake", "-r", REVISION]
            cell_argv += ["--variant", variant, "--force", "--json", "--results", str(tmp / "r")]
            timers["whole_process_s"] = process_timer(cell_argv, env, one_cell)
            cold_root = tmp / "cold"

            def cold() -> float:
                fresh = Path(tempfile.mkdtemp(dir=cold_root))
                once = process_timer(
                    cell_argv, command_env(args.as_is, MCP_COMPARE_YAML_CACHE=str(fresh)), one_cell
                )
                return once()

            cold_root.mkdir()
            timers["whole_process_empty_cache_s"] = cold
            scenario = next(s for s in load_scenarios() if s.id == "handshake")
            cell = Cell(target, variant, scenario, REVISION)
            pins = load_pins()
            settings = RunSettings(tmp / "cell", pins.commit, list(pins.revision_names), force=True)
            verdicts: list[str] = []

            def cell_only() -> float:
                start = time.perf_counter()
                [verdict] = run_cells([cell], settings)
                elapsed = time.perf_counter() - start
                verdicts.append(str(verdict.get("verdict")))
                return elapsed

            timers["cell_only_s"] = cell_only
            (tmp / "bare").mkdir()
            timers["bare_handshake_s"] = bare_handshake(target, tmp / "bare")
            result["cell"] = f"{target.id} {target.version} ~{variant} handshake {REVISION}"
        samples: dict[str, list[float]] = {}
        try:
            for timer in timers.values():
                timer()  # warm-up: bytecode, the parsed-data cache, the client's own caches
            for _ in range(args.runs):
                for name, timer in timers.items():
                    samples.setdefault(name, []).append(timer())
        except RuntimeError as err:
            result["result"] = f"not run, because {err}"
            print(json.dumps(result, indent=2))
            return
        for name, values in samples.items():
            result[name] = round(statistics.median(values), 4)
        if why_not is not None:
            result["cell"] = f"not run, because {why_not}"
        else:
            result["cell_verdicts"] = sorted(set(verdicts))
            whole, bare = result["whole_process_s"], result["bare_handshake_s"]
            result["outside_the_cell_s"] = round(whole - result["cell_only_s"], 4)
            result["whole_vs_bare_ratio"] = round(whole / bare, 3)
            result["whole_vs_bare_target"] = BARE_TARGET_RATIO
            result["whole_vs_bare_met"] = whole / bare <= BARE_TARGET_RATIO
        result["help_target_s"] = HELP_TARGET_S
        result["help_met"] = result["help_s"] <= HELP_TARGET_S
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
