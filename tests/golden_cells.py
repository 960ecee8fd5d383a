"""Golden cells: a small, committed set of real recordings the tests judge again (issue 37).

The full matrix is thousands of cells; playing them in the tests made the suite's cost grow
with every area. Instead, a few real cells are kept whole in ``tests/golden/cells.tar.xz``
(each folder as a run wrote it: plan, transcript, process facts, the program's stderr, the
sealed verdict; an archive, as the recordings are large and compress tenfold), chosen so that
together they hold every target at least once, every rule's every outcome the matrix showed,
and every fail or non-strict finding once.
``tests/test_golden_cells.py`` judges them again with the current code and grades, without
playing anything: a change of a rule or a grade shows as a diff of ``tests/golden/cells.json``.

    .venv/bin/python tests/golden_cells.py pick --from results   # choose the set afresh
    .venv/bin/python tests/golden_cells.py add --from results    # keep it, add what it lacks
    .venv/bin/python tests/golden_cells.py record                 # play the set again

``pick`` reads a results folder (a whole matrix run, ``make compare``), chooses the cells and
copies them; run it when an area, a rule or a target is added and the whole matrix has been
played again. ``add`` keeps the chosen cells and adds what a new scenario or rule brings,
when only its cells are current. ``record`` plays exactly the
cells already chosen again, with the installed clients, into a temporary results folder and
copies them over the old ones (``make golden`` does this): a client upgrade shows as a diff.
Cells are smallest first, so the set stays small; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ARCHIVE = ROOT / "tests" / "golden" / "cells.tar.xz"
#: The verdicts a finding has (each such check outcome is kept once).
FAILING = ("fail", "non-strict")
#: The common checks every cell of a side gets (``_wire*.yaml``) are named so.
WIRE_PREFIX = "wire-"


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def rule_of_check() -> dict[tuple[str, str], str]:
    """(scenario, check) -> rule, for the scenarios and the common wire checks."""
    from compare.exchange._scenarios import common_checks, load_scenarios

    out: dict[tuple[str, str], str] = {}
    for scenario in load_scenarios():
        for check in [*scenario.checks, *common_checks(scenario.side)]:
            out[(scenario.id, check.id)] = check.rule
    return out


def coverage(verdict: dict[str, Any], rules: dict[tuple[str, str], str]) -> set[tuple[str, ...]]:
    """What one cell stands for: its target; each check's rule and outcome; each failing
    finding (scenario, check, outcome). A common wire check's finding is one behaviour of the
    program whatever the scenario (the rows' findings lint reads it so too): (target, check,
    outcome), so a server that fails it everywhere adds one cell, not one per scenario."""
    scenario = str(verdict.get("scenario"))
    target = str(verdict.get("target"))
    keys: set[tuple[str, ...]] = {("target", target)}
    for check in verdict.get("checks") or []:
        outcome = str(check.get("outcome"))
        name = str(check.get("id"))
        rule = rules.get((scenario, name), "?")
        keys.add(("rule", rule, outcome))
        if check.get("verdict") in FAILING:
            where = target if name.startswith(WIRE_PREFIX) else scenario
            keys.add(("finding", where, name, outcome))
    return keys


def pick(results: Path) -> list[Path]:
    """The cells of ``results`` (current versions, played, undamaged) that cover everything
    one of them shows, smallest first: each target's smallest cell, then any cell adding a
    rule outcome or a finding no chosen cell has."""
    from compare.exchange._targets import load_targets
    from compare.play._cells import pinned_versions, scan_cells

    rules = rule_of_check()
    scan = scan_cells(results, pinned_versions(load_targets()))
    found = []
    for cell in scan.cells:
        verdict = cell.verdict
        if not cell.current or verdict.get("verdict") in ("not-run", "error"):
            continue
        if not (cell.path.parent / "transcript.jsonl").is_file():
            continue
        found.append((_size(cell.path.parent), str(cell.path.parent), coverage(verdict, rules)))
    found.sort()
    chosen: list[Path] = []
    covered: set[tuple[str, ...]] = set()
    for _size_of, folder, keys in found:
        if keys - covered:
            chosen.append(Path(folder))
            covered |= keys
    return chosen


def copy_cells(folders: list[Path], results: Path) -> None:
    """Replace the archive by ``folders``, each kept at its path under ``results``
    (target/version/scenario/revision), files in name order so a second write of the same
    cells gives the same members."""
    import tarfile

    staging = ARCHIVE.with_name(ARCHIVE.name + ".new")
    with tarfile.open(staging, "w:xz", preset=9) as tar:
        for folder in sorted(folders):
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                info = tar.gettarinfo(str(path), str(path.relative_to(results)))
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                info.mtime = 0
                with path.open("rb") as fh:
                    tar.addfile(info, fh)
    os.replace(staging, ARCHIVE)


def unpack(into: Path) -> list[Path]:
    """Unpack the golden cells under ``into`` (a results folder); their folders, sorted."""
    import tarfile

    with tarfile.open(ARCHIVE, "r:xz") as tar:
        tar.extractall(into, filter="data")
    return sorted(p.parent for p in into.glob("*/*/*/*/verdict.json"))


def record() -> int:
    """Play every committed golden cell again with the installed clients and keep the new
    recordings (``make golden``)."""
    if not ARCHIVE.is_file():
        print("no golden cells yet: run `tests/golden_cells.py pick --from results`")
        return 1
    work = Path(tempfile.mkdtemp(prefix="mcpc-golden-"))
    try:
        old = work / "old"
        cells = unpack(old)
        fresh = work / "results"
        groups: dict[tuple[str, str], list[str]] = {}
        for folder in cells:
            verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
            groups.setdefault((verdict["target"], verdict["scenario"]), []).append(
                str(verdict["revision"])
            )
        for (target, scenario), revisions in sorted(groups.items()):
            argv = [sys.executable, "-m", "compare", "run", "-t", target, "-s", scenario]
            argv += [a for r in sorted(set(revisions)) for a in ("-r", r)]
            argv += ["--force", "--settle", "3", "--results", str(fresh)]
            subprocess.run(argv, cwd=ROOT, env=dict(os.environ), check=False)
        keep = [fresh / c.relative_to(old) for c in cells]
        missing = [str(k) for k in keep if not (k / "verdict.json").is_file()]
        if missing:
            print(f"not recorded again: {missing[:5]}")
            return 1
        copy_cells(keep, fresh)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"recorded {len(cells)} golden cells again")
    return 0


def add(results: Path) -> list[Path]:
    """The chosen set, plus each current cell of ``results`` that adds a rule outcome or a
    finding the set lacks (smallest first, as ``pick`` chooses): for a new scenario or rule
    while the rest of the matrix has not been played again, so the cells already chosen stay
    as they are, but for those ``results`` holds a current recording of, which replace them.
    Returns the new cells' folders under ``results``."""
    from compare.exchange._targets import load_targets
    from compare.play._cells import pinned_versions, scan_cells

    rules = rule_of_check()
    work = Path(tempfile.mkdtemp(prefix="mcpc-golden-"))
    try:
        kept = unpack(work)
        covered: set[tuple[str, ...]] = set()
        for folder in kept:
            verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
            covered |= coverage(verdict, rules)
        scan = scan_cells(results, pinned_versions(load_targets()))
        found = []
        for cell in scan.cells:
            if not cell.current or cell.verdict.get("verdict") in ("not-run", "error"):
                continue
            if (cell.path.parent / "transcript.jsonl").is_file():
                keys = coverage(cell.verdict, rules)
                found.append((_size(cell.path.parent), str(cell.path.parent), keys))
        added: list[Path] = []
        for _size_of, folder, keys in sorted(found):
            if keys - covered:
                added.append(Path(folder))
                covered |= keys
        # a chosen cell that the results hold a current recording of is recorded afresh too
        # (its scenario changed: the old recording would lack what it now plays)
        fresh = {str(c.path.parent.relative_to(results)) for c in scan.cells if c.current}
        again = [results / f.relative_to(work) for f in kept if str(f.relative_to(work)) in fresh]
        for folder in [*again, *added]:
            target = work / folder.relative_to(results)
            shutil.rmtree(target, ignore_errors=True)  # replaced whole, never overlaid
            shutil.copytree(folder, target)
        folders = [*kept, *(work / f.relative_to(results) for f in added)]
        copy_cells(list(dict.fromkeys(folders)), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return added


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    chooser = sub.add_parser("pick", help="choose the golden cells from a results folder")
    chooser.add_argument("--from", dest="results", type=Path, default=ROOT / "results")
    adder = sub.add_parser("add", help="keep the chosen cells and add what they lack")
    adder.add_argument("--from", dest="results", type=Path, default=ROOT / "results")
    sub.add_parser("record", help="play the chosen golden cells again")
    args = parser.parse_args()
    if args.command == "record":
        return record()
    if args.command == "add":
        new = add(args.results)
        print(f"added {len(new)} golden cells: {', '.join(str(f) for f in new) or 'none'}")
        return 0
    folders = pick(args.results)
    copy_cells(folders, args.results)
    size = sum(_size(f) for f in folders)
    packed = ARCHIVE.stat().st_size
    print(f"picked {len(folders)} golden cells ({size / 1e6:.1f} MB, {packed / 1e6:.2f} MB packed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
