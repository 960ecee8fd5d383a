"""What changed since the last run: the spec pins, verdicts that moved, citations that moved.

A new upstream revision (``pin bump`` + ``pin add``) shows here as a revision added, beside the
spec commit it came with, so a reader learns of it on the page that answers "what is new?".

The previous run is the last exported ``build/matrix.json`` when it differs from the matrix of
this render (a new run that has not been exported yet), else ``build/previous/matrix.json``
(kept by ``export`` whenever it replaces a different matrix). Either way the answer is the same
before and after ``export`` runs, so ``render --check`` stays stable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare import _paths


@dataclass
class Changes:
    """Differences between the previous run's matrix and this one."""

    baseline: str | None  # which file was compared against, or None when there is none
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # key, before, after
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)  # ref, before, after
    unreadable: str | None = None
    across_versions: list[dict[str, Any]] = field(default_factory=list)
    spec: dict[str, Any] | None = None  # {"before": commit, "after": commit} when it moved
    revisions_added: list[str] = field(default_factory=list)  # in this run's release order
    revisions_removed: list[str] = field(default_factory=list)


def _load(path: Path) -> dict[str, Any] | None:
    try:
        return _parse(path.read_bytes())
    except OSError:
        return None


def _parse(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is a ValueError
        return None
    return value if isinstance(value, dict) else None


def _not_a_matrix(value: dict[str, Any]) -> str | None:
    """Where a stored matrix breaks the published schema (None when it does not)."""
    from compare.site._matrix import matrix_error

    found = matrix_error(value)
    if found is None:
        return None
    where, message = found
    return f"at /{'/'.join(str(p) for p in where)}: {message[:120]}"


def _baseline(current: dict[str, Any]) -> tuple[Path | None, dict[str, Any] | None]:
    """The matrix of the previous run, by the rule in the module docstring, and its document
    (None when unreadable). The last export is told apart from ``current`` by its bytes first
    (the same document written by the same code is the same bytes), parsed only when they
    differ: reading two 9 MB matrices was most of this page's time."""
    from compare.site._matrix import dumps

    last = _paths.build_dir() / "matrix.json"
    previous = _paths.build_dir() / "previous" / "matrix.json"
    try:
        raw = last.read_bytes()
    except OSError:
        raw = None
    if raw is not None and raw != dumps(current).encode("utf-8"):
        value = _parse(raw)
        if value != current:
            return last, value
    return (previous, _load(previous)) if previous.is_file() else (None, None)


def _key(cell: dict[str, Any]) -> str:
    variant = f" ~{cell.get('variant')}" if cell.get("variant") else ""
    return f"{cell.get('target')}{variant} · {cell.get('scenario')} · {cell.get('revision')}"


def _current_cells(matrix: dict[str, Any]) -> dict[str, dict[str, Any]]:
    cells = [c for c in matrix.get("cells") or [] if isinstance(c, dict) and c.get("current")]
    return {_key(c): c for c in cells}


def compare_runs(current: dict[str, Any]) -> Changes:
    """Changes against the previous run, plus verdicts that differ between target versions."""
    path, before_matrix = _baseline(current)
    changes = Changes(baseline=None)
    changes.across_versions = _across_versions(current)
    if path is None:
        return changes
    changes.baseline = path.relative_to(_paths.build_dir()).as_posix()
    if before_matrix is None:
        changes.unreadable = f"build/{changes.baseline} is not readable JSON; nothing compared"
        return changes
    wrong = _not_a_matrix(before_matrix)
    if wrong:  # a hand-edited or foreign file: named on the page, never half-compared
        changes.unreadable = (
            f"build/{changes.baseline} does not match matrix.schema.json ({wrong}); "
            "nothing compared"
        )
        return changes
    _compare_spec(before_matrix, current, changes)
    before, after = _current_cells(before_matrix), _current_cells(current)
    for key in sorted(before.keys() & after.keys()):
        old, new = before[key], after[key]
        if old.get("verdict") != new.get("verdict"):
            changes.verdicts.append({"key": key, "before": old, "after": new})
    changes.added = [after[k] for k in sorted(after.keys() - before.keys())]
    changes.removed = [before[k] for k in sorted(before.keys() - after.keys())]
    old_cites = {
        c.get("ref"): c for c in before_matrix.get("citations") or [] if isinstance(c, dict)
    }
    for cite in current.get("citations") or []:
        was = old_cites.get(cite["ref"])
        if was is not None and was.get("status") != cite["status"]:
            changes.citations.append({"ref": cite["ref"], "before": was, "after": cite})
    return changes


def _revision_ids(matrix: dict[str, Any]) -> list[str]:
    return [
        str(r["id"]) for r in matrix.get("revisions") or [] if isinstance(r, dict) and r.get("id")
    ]


def _commit(matrix: dict[str, Any]) -> str | None:
    spec = matrix.get("spec")
    commit = spec.get("commit") if isinstance(spec, dict) else None
    return commit if isinstance(commit, str) else None


def _compare_spec(before: dict[str, Any], after: dict[str, Any], changes: Changes) -> None:
    """The spec commit and the revisions compared, before and after (a bump, a ``pin add``)."""
    old, new = _revision_ids(before), _revision_ids(after)
    changes.revisions_added = [r for r in new if r not in old]
    changes.revisions_removed = [r for r in old if r not in new]
    if _commit(before) != _commit(after):
        changes.spec = {"before": _commit(before), "after": _commit(after)}


def _across_versions(current: dict[str, Any]) -> list[dict[str, Any]]:
    """Cells run with several versions of one target whose verdicts differ between them."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for cell in current.get("cells") or []:
        groups.setdefault(_key(cell), []).append(cell)
    out = []
    for key, cells in sorted(groups.items()):
        if len({c["verdict"] for c in cells}) > 1:
            out.append({"key": key, "cells": cells})
    return out
