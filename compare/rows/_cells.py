"""Exchange verdicts as the rows stage needs them: the current version's cells per target.

Read straight from ``results/**/verdict.json`` in the CONTRACTS.md format, so a row can be
computed from any results tree (a test builds one in a temporary folder). A malformed
verdict file is recorded as a finding and skipped, never a crash and never a pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_VERDICTS = {"pass", "non-strict", "fail", "informational", "not-run", "error"}


@dataclass(frozen=True)
class Cell:
    """One verdict.json: where it is and what it says."""

    path: Path
    target: str
    version: str
    variant: str | None
    scenario: str
    revision: str
    verdict: str
    reason: str
    checks: dict[str, dict[str, Any]]


@dataclass
class Cells:
    """Every readable cell, plus the files that could not be read and why."""

    cells: list[Cell] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    def current(self) -> dict[str, str]:
        """Newest version per target (numeric-aware ordering of dotted versions)."""
        newest: dict[str, str] = {}
        for cell in self.cells:
            best = newest.get(cell.target)
            if best is None or _version_key(cell.version) > _version_key(best):
                newest[cell.target] = cell.version
        return newest


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.+-]", version))


def _cell(path: Path) -> Cell:
    data = json.loads(path.read_text("utf-8"))
    if not isinstance(data, dict) or data.get("format") != 1:
        raise ValueError("not a format-1 verdict object")
    for key in ("target", "target_version", "scenario", "revision", "verdict"):
        if not isinstance(data.get(key), str):
            raise ValueError(f"`{key}` missing or not text")
    if data["verdict"] not in _VERDICTS:
        raise ValueError(f"unknown verdict {data['verdict']!r}")
    checks: dict[str, dict[str, Any]] = {}
    for check in data.get("checks") or []:
        if not isinstance(check, dict) or not isinstance(check.get("id"), str):
            raise ValueError("a check without an id")
        if check.get("verdict") not in _VERDICTS:
            raise ValueError(f"check {check['id']}: unknown verdict {check.get('verdict')!r}")
        checks[check["id"]] = check
    variant = data.get("variant")
    return Cell(
        path=path.parent,
        target=data["target"],
        version=data["target_version"],
        variant=variant if isinstance(variant, str) and variant else None,
        scenario=data["scenario"],
        revision=data["revision"],
        verdict=data["verdict"],
        reason=str(data.get("reason") or ""),
        checks=checks,
    )


def read_cells(results: Path) -> Cells:
    """Every ``verdict.json`` under ``results`` (a missing folder is simply no cells)."""
    out = Cells()
    if not results.is_dir():
        return out
    for path in sorted(results.rglob("verdict.json")):
        try:
            out.cells.append(_cell(path))
        except (OSError, ValueError, UnicodeDecodeError) as err:
            out.broken.append(f"{path}: {err}")
    return out
