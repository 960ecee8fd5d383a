"""A local rehearsal of the GitHub Actions workflow (.github/workflows/compare.yml, issue 37).

    .venv/bin/python bench/shards.py [--shards 4] [--jobs N] [-t ID ...] [-s ID ...]
                                     [-r REV ...] [--keep] [--json-out FILE]

The workflow plays the matrix as N shard jobs (``mcp-compare run --shard I/N --settle 3``),
merges their results folders (``mcp-compare merge``) and builds the site from the merge. This
bench plays the same commands here, one shard after another, into folders of their own, and
also plays the same selection in one process; then it computes the rows and ``matrix.json``
of each results folder (``rows``, ``export``, each with a build folder of its own) and runs
``mcp-compare matrix-diff`` on the two. Zero differences (cell verdicts and row states) says
the shards cover the selection once and the merge loses nothing; a difference names the cell.

A cell that plays differently from one play to the next (a race in the implementation) may
differ between the two runs for that reason alone; the diff names it, and the JSON says how
many cells each run found unstable.

The checkout's own results and build folders are never touched (every folder is a temporary
one, removed unless ``--keep``). Prints one JSON object with each part's seconds; asserts no
time.
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
MC = [sys.executable, "-m", "compare"]


def _run(argv: list[str], env: dict[str, str], log: Path) -> dict[str, Any]:
    start = time.monotonic()
    with log.open("ab") as out:
        out.write(("$ " + " ".join(argv) + "\n").encode())
        out.flush()
        code = subprocess.run(
            argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, check=False
        ).returncode
    return {"seconds": round(time.monotonic() - start, 1), "exit": code}


def _matrix(results: Path, build: Path, env: dict[str, str], log: Path) -> dict[str, Any]:
    """rows and export of one results folder, in a build folder of its own."""
    own = {**env, "MCP_COMPARE_RESULTS": str(results), "MCP_COMPARE_BUILD": str(build)}
    parts = {
        "diff": _run([*MC, "diff", "--quiet"], own, log),
        "rows": _run([*MC, "rows"], own, log),
        "export": _run([*MC, "export"], own, log),
    }
    return parts


def _unstable(matrix: Path) -> int:
    try:
        data = json.loads(matrix.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return -1
    cells = data.get("cells") or []
    return sum(1 for c in cells if isinstance(c, dict) and c.get("verdict") == "unstable")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("-t", "--target", action="append", default=[])
    parser.add_argument("-s", "--scenario", action="append", default=[])
    parser.add_argument("-r", "--revision", action="append", default=[])
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args()
    select = [f"--target={t}" for t in args.target] + [f"--scenario={s}" for s in args.scenario]
    select += [f"--revision={r}" for r in args.revision]
    if args.jobs:
        select.append(f"--jobs={args.jobs}")
    work = Path(tempfile.mkdtemp(prefix="mcpc-shards-"))
    log = work / "log.txt"
    env = dict(os.environ)
    report: dict[str, Any] = {"shards": args.shards, "selection": select, "work": str(work)}
    try:
        one = work / "one"
        report["one_process"] = _run(
            [*MC, "run", *select, "--settle", "3", "--results", str(one)], env, log
        )
        shards = []
        for i in range(1, args.shards + 1):
            folder = work / f"shard-{i}"
            shards.append(folder)
            report[f"shard_{i}"] = _run(
                [*MC, "run", *select, "--shard", f"{i}/{args.shards}", "--settle", "3",
                 "--results", str(folder)],
                env,
                log,
            )  # fmt: skip
        merged = work / "merged"
        report["merge"] = _run([*MC, "merge", *map(str, shards), "--into", str(merged)], env, log)
        report["matrix_one"] = _matrix(one, work / "build-one", env, log)
        report["matrix_merged"] = _matrix(merged, work / "build-merged", env, log)
        a, b = work / "build-one" / "matrix.json", work / "build-merged" / "matrix.json"
        diff = subprocess.run(
            [*MC, "matrix-diff", "--json", str(a), str(b)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            changes = json.loads(diff.stdout)
        except ValueError:
            changes = {"unreadable": diff.stdout[-2000:] + diff.stderr[-2000:]}
        report["matrix_diff"] = {"exit": diff.returncode, "changes": changes}
        report["unstable"] = {"one": _unstable(a), "merged": _unstable(b)}
        report["cells"] = sum(1 for _ in one.rglob("verdict.json"))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if args.json_out:
        args.json_out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
