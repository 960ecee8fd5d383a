"""``mcp-compare merge DIR… --into DIR``: combine the result trees of shards into one.

Each source is a results folder (``<target>/<version>/<scenario>/<revision>[~<variant>]/``).
Every cell folder is found first and checked against the others: the same cell in two sources
must be the same result (equal ``key`` and ``verdict`` in ``verdict.json``), else the merge
refuses, naming both folders, before anything is written. Then each cell is copied into a
staging folder beside its place and renamed in, the way the harness stores a cell it played,
so an interrupted merge leaves every cell either as it was or complete.

A cell already in the destination is replaced, as a run would replace it; it is a conflict
only when the destination is also named as a source.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from compare import _lock
from compare._errors import CompareError
from compare.judge._verdict import VerdictError, parse_verdict
from compare.play._integrity import inspect
from compare.play._swap import swap_in

#: A cell folder, relative to its results folder: target/version/scenario/revision[~variant].
_DEPTH = 4


@dataclass(frozen=True)
class Found:
    """One cell folder of a source, with the two fields that decide whether copies agree."""

    folder: Path
    rel: Path
    key: str
    verdict: str


@dataclass
class Merged:
    """What a merge did: cells copied in, and identical copies left out."""

    copied: list[Path] = field(default_factory=list)
    duplicates: list[Path] = field(default_factory=list)


def _cells(source: Path) -> list[Found]:
    if not source.is_dir():
        raise CompareError(f"{source} is not a folder", "name shard results folders to merge")
    found = []
    for path in sorted(source.glob("/".join(["*"] * _DEPTH) + "/verdict.json")):
        rel = path.parent.relative_to(source)
        if any(part.startswith(".") or ".old-" in part for part in rel.parts):
            continue  # a staging or superseded folder left by an interrupted run
        stored = inspect(path.parent)
        if stored.damage:  # a damaged cell is never carried into the merged tree
            first = stored.damage[0]
            raise CompareError(
                f"{first.path} {first.what}", "re-run that shard (nothing was merged)"
            )
        try:  # the one verdict reader's rule, then what a merge needs besides: the key
            record = parse_verdict(stored.verdict)
        except VerdictError as err:
            raise CompareError(f"{path} is not a usable cell verdict: {err}", None) from err
        if record.key is None:
            raise CompareError(f"{path} is not a cell verdict (no key)", None)
        found.append(Found(path.parent, rel, record.key, record.verdict))
    return found


def plan_merge(sources: list[Path], into: Path) -> tuple[list[Found], list[Found]]:
    """The cells to copy and the identical duplicates to skip; raises on any conflict."""
    into_r = into.resolve()
    chosen: dict[Path, Found] = {}
    skipped: list[Found] = []
    for source in sources:
        for cell in _cells(source):
            first = chosen.get(cell.rel)
            if first is None:
                chosen[cell.rel] = cell
            elif (first.key, first.verdict) == (cell.key, cell.verdict):
                skipped.append(cell)
            else:
                raise CompareError(
                    f"conflicting cell {cell.rel.as_posix()}: {first.folder} says "
                    f"{first.verdict!r} (key {str(first.key)[:12]}), {cell.folder} says "
                    f"{cell.verdict!r} (key {str(cell.key)[:12]})",
                    "the shards did not run the same inputs; re-run them from one commit "
                    "(nothing was merged)",
                )
    copy = []
    for cell in chosen.values():
        if cell.folder.resolve() == into_r / cell.rel:
            skipped.append(cell)  # the destination is a source: this cell is already there
        else:
            copy.append(cell)
    return copy, skipped


def merge(sources: list[Path], into: Path) -> Merged:
    """Merge ``sources`` into ``into`` (created when missing); see the module docstring."""
    if not sources:
        raise CompareError("nothing to merge", "name at least one shard results folder")
    copy, skipped = plan_merge(sources, into)
    done = Merged(duplicates=[c.folder for c in skipped])
    if not copy:
        return done
    # Checked, so now written: one writer at a time in the destination (compare._lock).
    with _lock.holding(into, "results folder"):
        _copy_in(copy, into, done)
    return done


def _copy_in(copy: list[Found], into: Path, done: Merged) -> None:
    for cell in copy:
        final = into / cell.rel
        final.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{final.name}.merge-", dir=final.parent))
        try:
            shutil.copytree(cell.folder, stage, symlinks=True, dirs_exist_ok=True)
            swap_in(stage, final)
        except OSError as err:
            shutil.rmtree(stage, ignore_errors=True)
            raise CompareError(f"could not merge {cell.folder} into {final}: {err}", None) from err
        done.copied.append(final)
