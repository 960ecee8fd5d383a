"""How long each stage command of ``make compare`` takes, through the real CLI.

    .venv/bin/python bench/pipeline.py [--runs N] [--spec /work/shared/mcp-spec] [--keep]

Every stage runs as ``mcp-compare …`` in a subprocess (start-up and imports included, as a
maintainer pays them), N times each, in pipeline order so each stage reads what the one before
wrote. All outputs go to one temporary folder: ``MCP_COMPARE_CACHE``, ``MCP_COMPARE_BUILD``,
``MCP_COMPARE_SITE``, ``MCP_COMPARE_RESULTS`` and ``MCP_COMPARE_SCHEMAS`` (a copy of the
checkout's ``schemas/``, because ``models`` rewrites the generated models there) all point
into it. The checkout's own outputs are left alone; the bench checks that at the end by
comparing their modification times and says so. ``tools/`` is read, never written: the
``ts-sdk`` client must already be installed (``mcp-compare tools install``).

Measured:

- ``pin verify`` cold (every run into a fresh, empty cache) and warm (the cache filled);
- ``models``, ``models --check``, ``diff --quiet``, ``rows``, ``cite --check``, ``render``,
  ``export``, ``site`` (``mkdocs build --strict``).

The results those stages read come from one small ``run --target ts-sdk --scenario handshake
--scenario roots-list`` into the temporary folder, timed once and shown for scale. Prints a
table of median / min / max seconds and each command's exit codes; asserts no time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from compare import _paths

MC = [sys.executable, "-m", "compare"]
DEFAULT_SPEC = Path("/work/shared/mcp-spec")
#: A stage that takes longer than this is reported as hung, not waited for.
TIMEOUT_S = 900
#: Checkout outputs the bench must not touch (it checks their mtimes before and after).
GUARDED = ["schemas", "build", "results", ".cache", "site/docs", "site/build"]


@dataclass
class Timing:
    """Wall times and exit codes of one command, run several times."""

    label: str
    seconds: list[float] = field(default_factory=list)
    exits: list[int] = field(default_factory=list)
    last_error: str = ""


def _mc(args: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [*MC, *args],
            env=env,
            cwd=_paths.PROJECT_ROOT,
            capture_output=True,
            text=True,
            errors="replace",
            stdin=subprocess.DEVNULL,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, -1, f"no result after {TIMEOUT_S} s"
    tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-3:])
    return time.perf_counter() - start, done.returncode, tail


def _measure(timing: Timing, args: list[str], env: dict[str, str]) -> None:
    seconds, code, tail = _mc(args, env)
    timing.seconds.append(seconds)
    timing.exits.append(code)
    if code != 0:
        timing.last_error = tail
    print(f"  {timing.label:<22} {seconds:7.2f} s  exit {code}", file=sys.stderr, flush=True)


def _snapshot(root: Path) -> dict[str, float]:
    """Modification time of every file and folder under the guarded checkout outputs."""
    seen: dict[str, float] = {}
    for name in GUARDED:
        top = root / name
        if not top.exists():
            continue
        for path in [top, *top.rglob("*")]:
            try:
                seen[str(path.relative_to(root))] = path.lstat().st_mtime
            except OSError:
                continue
    return seen


def _environment(work: Path, spec: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        MCP_COMPARE_SPEC=str(spec),
        MCP_COMPARE_CACHE=str(work / "cache"),
        MCP_COMPARE_BUILD=str(work / "build"),
        MCP_COMPARE_SITE=str(work / "site"),
        MCP_COMPARE_RESULTS=str(work / "results"),
        MCP_COMPARE_SCHEMAS=str(work / "schemas"),
    )
    return env


def _table(timings: list[Timing]) -> str:
    lines = [f"{'command':<22} {'runs':>4} {'median s':>9} {'min s':>7} {'max s':>7}  exit codes"]
    for t in timings:
        if not t.seconds:
            lines.append(f"{t.label:<22} {0:>4}  not run")
            continue
        exits = ",".join(str(c) for c in t.exits)
        lines.append(
            f"{t.label:<22} {len(t.seconds):>4} {statistics.median(t.seconds):9.2f} "
            f"{min(t.seconds):7.2f} {max(t.seconds):7.2f}  {exits}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per command (default 3)")
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="offline spec source")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    opts = parser.parse_args()
    if not opts.spec.is_dir():
        print(f"spec source {opts.spec} is not a folder; pass --spec", file=sys.stderr)
        return 2

    root = _paths.PROJECT_ROOT
    before = _snapshot(root)
    work = Path(tempfile.mkdtemp(prefix="mcp-compare-bench-"))
    try:
        shutil.copytree(root / "schemas", work / "schemas")
        env = _environment(work, opts.spec)
        timings: list[Timing] = []

        cold = Timing("pin verify (cold)")
        for n in range(opts.runs):
            _measure(cold, ["pin", "verify"], {**env, "MCP_COMPARE_CACHE": str(work / f"c{n}")})
            shutil.rmtree(work / f"c{n}", ignore_errors=True)
        timings.append(cold)
        _mc(["pin", "verify"], env)  # fill the shared cache the later stages read

        setup = Timing("run (setup, 1 run)")
        scenarios = ["--scenario", "handshake", "--scenario", "roots-list"]
        stages: list[tuple[str, list[str]]] = [
            ("pin verify (warm)", ["pin", "verify"]),
            ("models", ["models"]),
            ("models --check", ["models", "--check"]),
            ("diff", ["diff", "--quiet"]),
            ("@run", ["run", "--target", "ts-sdk", *scenarios]),
            ("rows", ["rows"]),
            ("cite --check", ["cite", "--check"]),
            ("render", ["render"]),
            ("export", ["export"]),
            ("site", ["site"]),
        ]
        for label, args in stages:
            if label == "@run":
                _measure(setup, args, env)
                continue
            timing = Timing(label)
            for _ in range(opts.runs):
                _measure(timing, args, env)
            timings.append(timing)
        timings.append(setup)

        print(f"spec source {opts.spec}; outputs in {work}; {os.cpu_count()} CPUs")
        print(_table(timings))
        for t in timings:
            if t.last_error:
                print(f"{t.label}: last non-zero exit said: {t.last_error}")
        cells = sorted(p.parent for p in (work / "results").rglob("verdict.json"))
        print(f"results used: {len(cells)} cells from the setup run")
    finally:
        if opts.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    after = _snapshot(root)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    if changed:
        shown = ", ".join(changed[:8]) + (" …" if len(changed) > 8 else "")
        print(f"checkout outputs changed while the bench ran ({len(changed)}): {shown}")
        print("(another process may have written them; the bench itself writes only in tmp)")
    else:
        print(f"checkout outputs untouched ({', '.join(GUARDED)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
