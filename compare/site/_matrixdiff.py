"""What changed between two ``matrix.json`` files: every cell verdict and every row state.

A change to the harness, a rule or a scenario can move published states; the developers'
guide asks for every one of them in the closing note, old → new. Reading two exports (before
and after, or two runs of the same commit to find cells that flap) is the only honest way to
list them, so this module compares the published data and nothing else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare._errors import CompareError


@dataclass(frozen=True)
class Change:
    """One published value that differs: ``kind`` is ``cell`` or ``row``."""

    kind: str
    key: str
    old: str | None
    new: str | None


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CompareError(f"cannot read {path} as matrix.json: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise CompareError(f"{path} is not a matrix.json (no cells list)")
    return data


def _cell_key(cell: dict[str, Any]) -> str:
    variant = cell.get("variant")
    target = f"{cell.get('target')}~{variant}" if variant else str(cell.get("target"))
    return f"{target}@{cell.get('target_version')}/{cell.get('scenario')}/{cell.get('revision')}"


def cell_verdicts(matrix: dict[str, Any]) -> dict[str, str]:
    """Cell key → verdict, for every cell of the matrix."""
    out: dict[str, str] = {}
    for cell in matrix.get("cells", []):
        if isinstance(cell, dict):
            out[_cell_key(cell)] = str(cell.get("verdict"))
    return out


def row_states(matrix: dict[str, Any]) -> dict[str, str]:
    """``ROW implementation`` → state, for every row's computed and cited status."""
    out: dict[str, str] = {}
    for row in matrix.get("rows", []):
        if not isinstance(row, dict) or not isinstance(row.get("status"), dict):
            continue
        for impl, status in sorted(row["status"].items()):
            if isinstance(status, dict):
                out[f"{row.get('id')} {impl}"] = str(status.get("state"))
    return out


def _changes(kind: str, old: dict[str, str], new: dict[str, str]) -> list[Change]:
    keys = sorted(set(old) | set(new))
    return [Change(kind, k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)]


def diff_matrices(old_path: Path, new_path: Path) -> list[Change]:
    """Every cell verdict and row state that differs, cells first, each sorted by key."""
    old, new = _load(old_path), _load(new_path)
    cells = _changes("cell", cell_verdicts(old), cell_verdicts(new))
    rows = _changes("row", row_states(old), row_states(new))
    return cells + rows


def report(changes: list[Change], old: Path, new: Path) -> str:
    """The changes as text a reader can paste into a note: one line each, then a count."""
    lines = [f"{old} → {new}"]
    for ch in changes:
        lines.append(f"{ch.kind} {ch.key}: {ch.old or '(absent)'} → {ch.new or '(absent)'}")
    cells = sum(1 for c in changes if c.kind == "cell")
    lines.append(f"{cells} cell verdicts and {len(changes) - cells} row states differ")
    return "\n".join(lines)
