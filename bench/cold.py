"""How long a fresh clone's ``make compare`` takes, split into the parts a maintainer waits for.

    .venv/bin/python bench/cold.py [--spec /work/shared/mcp-spec] [--jobs N] [--keep]
                                   [--target ID ...] [--json-out FILE]

A cold start is what a new maintainer or a CI machine pays: clone the checkout, make the
virtual environment, install every pinned client and build every host program, then run the
pipeline with nothing cached. This bench does exactly that in a temporary folder and times
each part separately:

- ``clone``: ``git clone`` of the committed tree (what CI starts from);
- ``venv``: ``make venv`` (the project's Python dependencies at the locked versions);
- ``tools``: ``make tools`` (npm and PyPI clients from their locks, host programs compiled);
- ``pipeline``: the stages before and after the cells (pin verify with an empty spec cache,
  models, diff, then rows, cite --check, render, export), summed and listed one by one;
- ``cells``: ``mcp-compare run`` of the whole matrix (or ``--target`` subset), with the
  tool's own scheduling unless ``--jobs`` is given;
- ``site``: ``mkdocs build --strict`` through ``mcp-compare site``.

Machine-wide download caches are what a real fresh clone on this machine sees, so they are
reported, not emptied: ``tools install`` already gives npm and pip a fresh cache of their own
(see ``compare/install/_home.py``), while Go, Cargo and Maven keep their usual
caches. The JSON says which of those were already filled.

Prints one JSON object; asserts no time. The checkout itself is only read (``git clone``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SPEC = Path("/work/shared/mcp-spec")
#: A part that takes longer than this is reported as hung, not waited for.
TIMEOUT_S = 3600
#: The stages around the cells, in pipeline order (``run`` and ``site`` are timed apart).
BEFORE = [["pin", "verify"], ["models"], ["diff", "--quiet"]]
AFTER = [["rows"], ["cite", "--check"], ["render"], ["export"]]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run one part and return its seconds, exit code and the tail of what it said."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            stdin=subprocess.DEVNULL,
            timeout=TIMEOUT_S,
            check=False,
        )
        code, said = done.returncode, (done.stderr or "") + (done.stdout or "")
    except subprocess.TimeoutExpired:
        code, said = -1, f"no result after {TIMEOUT_S} s"
    seconds = round(time.perf_counter() - start, 2)
    tail = "\n".join(said.strip().splitlines()[-4:])
    print(f"  {' '.join(argv[-3:]):<40} {seconds:8.2f} s  exit {code}", file=sys.stderr, flush=True)
    return {"seconds": seconds, "exit": code} | ({"said": tail} if code else {})


def _caches() -> dict[str, bool]:
    """Which machine-wide caches a fresh clone finds already filled (reported, not emptied)."""
    home = Path.home()
    places = {
        "go module cache": Path(os.environ.get("GOMODCACHE", home / "go" / "pkg" / "mod")),
        "cargo registry": Path(os.environ.get("CARGO_HOME", home / ".cargo")) / "registry",
        "maven repository": home / ".m2" / "repository",
        "pip cache (for make venv)": home / ".cache" / "pip",
    }
    return {name: path.is_dir() and any(path.iterdir()) for name, path in places.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC, help="offline spec source")
    parser.add_argument(
        "--jobs", type=int, help="cells in flight (default: mcp-compare's own, 4 per core)"
    )
    parser.add_argument("--target", action="append", default=[], help="only these targets' cells")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    parser.add_argument("--json-out", type=Path, help="also write the JSON here")
    opts = parser.parse_args()
    if not opts.spec.is_dir():
        print(f"spec source {opts.spec} is not a folder; pass --spec", file=sys.stderr)
        return 2

    work = Path(tempfile.mkdtemp(prefix="mcp-compare-cold-"))
    clone = work / "main"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCP_COMPARE_")}
    env["MCP_COMPARE_SPEC"] = str(opts.spec)
    report: dict[str, Any] = {
        "bench": "cold start of make compare",
        "cores": _cores(),
        "jobs": opts.jobs or "mcp-compare's default (4 per core)",
        "targets": opts.target or "all",
        "caches_already_filled": _caches(),
        "parts": {},
    }
    parts: dict[str, Any] = report["parts"]
    try:
        parts["clone"] = _timed(["git", "clone", "-q", str(ROOT), str(clone)], work, env)
        mc = [str(clone / ".venv" / "bin" / "mcp-compare")]
        parts["venv"] = _timed(["make", "venv"], clone, env)
        parts["tools"] = _timed(["make", "tools"], clone, env)
        stages: dict[str, Any] = {}
        for args in BEFORE:
            stages[" ".join(args)] = _timed([*mc, *args], clone, env)
        only = [a for t in opts.target for a in ("--target", t)]
        jobs = ["--jobs", str(opts.jobs)] if opts.jobs else []
        parts["cells"] = _timed([*mc, "run", *jobs, *only], clone, env)
        for args in AFTER:
            stages[" ".join(args)] = _timed([*mc, *args], clone, env)
        parts["pipeline"] = {
            "seconds": round(sum(s["seconds"] for s in stages.values()), 2),
            "stages": stages,
        }
        parts["site"] = _timed([*mc, "site"], clone, env)
        cells = list((clone / "results").glob("*/*/*/*/verdict.json"))
        report["cells_recorded"] = len(cells)
        report["total_s"] = round(
            sum(p["seconds"] for p in parts.values() if isinstance(p, dict)), 2
        )
        report["failed_parts"] = [
            name
            for name, part in [*parts.items(), *stages.items()]
            if isinstance(part, dict) and part.get("exit", 0) != 0
        ]
    finally:
        if opts.keep:
            report["kept"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if opts.json_out:
        opts.json_out.write_text(text + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
