"""What CI costs, part by part (issue 37: at most 20 minutes on 2 cores, flat in the areas).

    .venv/bin/python bench/ci.py [--here] [--keep] [--json-out FILE]

CI runs ``.ci/run`` (``make test``) on a clean clone, with nothing installed. This bench does
the same in a temporary clone of the committed tree, made beside this checkout as CI's is
(the tests read the offline spec source at ``../shared/mcp-spec`` from their own tree): it
times ``make venv`` and then ``.ci/run`` as a whole, and reads the parts ``make test``
records as it goes (``build/phases.jsonl``, written by ``bench/phase.py``):

- ``prep``: lint, the type check, the clients' install and build, Debian's packages and the
  browser tests' npm packages, side by side;
- ``datacheck``: pin verify, models --check, diff, rows --lint, cite --check, beside the
  command-line clients' module;
- ``pytest-cli``: the command-line clients' module, with no other test beside it;
- ``pytest-rest``: the rest of the suite in ``TEST_WORKERS`` workers.

Each part also has its CPU time (``cpu_s``, see ``bench/phase.py``) and ``least_wall_s``, that
time spread over every core: the floor no scheduling can go under without cutting the work.

With ``--here`` the checkout itself is timed as it is (its virtual environment and installed
clients reused): what a maintainer pays to run the suite again. Machine-wide download caches
(npm's, pip's, Go's, Cargo's, Maven's) are what a fresh clone on this machine sees; the JSON
says which were filled. Prints one JSON object; asserts no time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 20 * 60
#: CI's own bound: a run past it is reported as hung, not waited for.
TIMEOUT_S = 90 * 60


def _timed(argv: list[str], cwd: Path, log: Path) -> dict[str, Any]:
    start = time.monotonic()
    with log.open("ab") as out:
        try:
            code = subprocess.run(
                argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, timeout=TIMEOUT_S, check=False
            ).returncode
        except subprocess.TimeoutExpired:
            code = None
    return {"seconds": round(time.monotonic() - start, 1), "exit": code}


def _caches() -> dict[str, bool]:
    home = Path.home()
    places = {
        "npm": home / ".npm",
        "pip": home / ".cache" / "pip",
        "go": home / "go" / "pkg" / "mod",
        "cargo": home / ".cargo" / "registry",
        "maven": home / ".m2" / "repository",
    }
    return {name: path.is_dir() and any(path.iterdir()) for name, path in places.items()}


def _phases(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--here", action="store_true", help="time this checkout as it is")
    parser.add_argument("--keep", action="store_true", help="keep the temporary clone")
    parser.add_argument("--json-out", type=Path, help="also write the JSON here")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="mcp-compare-ci-"))
    log = scratch / "ci.log"
    keep = args.keep or args.here
    # The clone sits beside this checkout, as CI's does: the tests read the offline spec
    # source at ../shared/mcp-spec from the tree they run in, and `pin verify` falls back to
    # it when upstream cannot be reached.
    sibling = ROOT.parent / f".{scratch.name}"
    result: dict[str, Any] = {
        "bench": "CI (.ci/run = make test), part by part (issue 37: at most 20 minutes)",
        "cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "caches_filled_before": _caches(),
        "target_s": TARGET_S,
    }
    try:
        if args.here:
            tree = ROOT
            result["tree"] = "this checkout, as installed"
        else:
            tree = sibling
            clone = _timed(["git", "clone", "-q", str(ROOT), str(tree)], scratch, log)
            result["clone"] = clone
            if clone["exit"] != 0:
                result["not_run"] = "not run, because git clone failed; see the log"
                return _emit(result, args.json_out, log, keep)
            result["tree"] = "a fresh clone of the committed tree"
            result["venv"] = _timed(["make", "venv"], tree, log)
        started = time.monotonic()
        ci = _timed([str(tree / ".ci" / "run")], tree, log)
        result["ci_run"] = ci
        result["phases"] = phases = _phases(tree / "build" / "phases.jsonl")
        cores = result["cores"] or 1
        for phase in phases:
            if isinstance(phase.get("cpu_s"), (int, float)):
                # The least wall time this part could take on these cores doing the same work.
                phase["least_wall_s"] = round(phase["cpu_s"] / cores, 1)
        cpu = [p["cpu_s"] for p in phases if isinstance(p.get("cpu_s"), (int, float))]
        if cpu:
            result["cpu_s"] = round(sum(cpu), 1)
            result["least_wall_s"] = round(sum(cpu) / cores, 1)
        result["pytest_summaries"] = _summaries(log)
        total = ci["seconds"] + float(result.get("venv", {}).get("seconds", 0))
        result["total_s"] = round(total, 1)
        result["met"] = ci["exit"] == 0 and total <= TARGET_S
        result["wall_clock_s"] = round(time.monotonic() - started, 1)
        return _emit(result, args.json_out, log, keep)
    finally:
        if keep:
            result.setdefault("kept", [str(scratch)] + ([str(sibling)] if not args.here else []))
        else:
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.rmtree(sibling, ignore_errors=True)


def _summaries(log: Path) -> list[str]:
    """pytest's closing line of each run in the log ("2427 passed, 4 skipped in …"): the
    figures stand for the whole suite having run, and the log goes with the clone."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return re.findall(r"^=+ (\d+ (?:passed|failed)[^=\n]*?) =+$", text, flags=re.MULTILINE)


def _emit(result: dict[str, Any], out: Path | None, log: Path, kept: bool) -> int:
    result["log"] = str(log) if kept else "removed with the clone (--keep keeps it)"
    text = json.dumps(result, indent=2)
    print(text)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
