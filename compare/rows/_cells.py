"""Exchange verdicts as the rows stage needs them: each cell's checks by id.

Which ``verdict.json`` files exist and which version of a target is current is decided by
``compare.exchange.scan_cells`` — the same reader the site uses — so the two stages cannot
disagree about what is current. What stays here is the rows' own reading of a cell: its
checks, each with an id and a known verdict. A file that cannot be used is recorded as
broken and skipped, never a crash and never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare.exchange import VERDICTS, CellResult, play_count, scan_cells


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
    current: bool = False
    #: How many times the cell was played (``mcp-compare run --repeat``); 1 for most.
    plays: int = 1


@dataclass
class Cells:
    """Every readable cell, plus the files that could not be read and why."""

    cells: list[Cell] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    def current(self) -> dict[str, str]:
        """The current version per target, as the exchange's reader marked it."""
        return {cell.target: cell.version for cell in self.cells if cell.current}


def _cell(result: CellResult) -> Cell:
    data = result.verdict
    why = result.unplaced()
    if why:
        raise ValueError(why)
    checks: dict[str, dict[str, Any]] = {}
    for check in data.get("checks") or []:
        if not isinstance(check, dict) or not isinstance(check.get("id"), str):
            raise ValueError("a check without an id")
        if check.get("verdict") not in VERDICTS:
            raise ValueError(f"check {check['id']}: unknown verdict {check.get('verdict')!r}")
        checks[check["id"]] = check
    variant = data.get("variant")
    return Cell(
        path=result.folder,
        target=result.target,
        version=result.version,
        variant=variant if isinstance(variant, str) and variant else None,
        scenario=data["scenario"],
        revision=data["revision"],
        verdict=data["verdict"],
        reason=str(data.get("reason") or ""),
        checks=checks,
        current=result.current,
        plays=max(1, play_count(data)),
    )


def read_cells(results: Path, pinned: dict[str, str] | None = None) -> Cells:
    """Every cell under ``results`` (a missing folder is simply no cells); ``pinned`` as in
    ``compare.exchange.scan_cells``."""
    scan = scan_cells(results, pinned)
    out = Cells(broken=[f"{u.path}: {u.why}" for u in scan.unreadable])
    for result in scan.cells:
        try:
            out.cells.append(_cell(result))
        except ValueError as err:
            out.broken.append(f"{result.path}: {err}")
    out.broken.sort()
    return out
