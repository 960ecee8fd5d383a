"""Exchange verdicts as the rows stage needs them: each cell's checks by id.

Which ``verdict.json`` files exist, which can be used and which version of a target is
current is decided by ``compare.play._cells.scan_cells`` with the one verdict reader
(``compare.judge._verdict``) — the same the site uses — so the two stages cannot disagree
about what is current or what is broken. A file that cannot be used is recorded as broken
and skipped, never a crash and never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare.play._cells import CellResult, scan_cells


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
    #: A server cell's enforcement probes as judged (the verdict's ``probes``): what derived
    #: rows (``_derive``) read per operation; empty for every other cell.
    probes: tuple[dict[str, Any], ...] = ()


@dataclass
class Cells:
    """Every readable cell, plus the files that could not be read and why."""

    cells: list[Cell] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    def current(self) -> dict[str, str]:
        """The current version per target, as the exchange's reader marked it."""
        return {cell.target: cell.version for cell in self.cells if cell.current}

    def of(
        self, target: str, version: str | None = None, scenario: str | None = None
    ) -> list[Cell]:
        """The cells of a target (and version, and scenario), in their order: indexed once,
        since every row asks for every target's cells and a scan per question was most of
        the rows stage's time."""
        index = self.__dict__.get("_index")
        if index is None or index[0] != len(self.cells):
            by: dict[tuple[str, ...], list[Cell]] = {}
            for cell in self.cells:
                by.setdefault((cell.target,), []).append(cell)
                by.setdefault((cell.target, cell.version, cell.scenario), []).append(cell)
            index = (len(self.cells), by)
            self.__dict__["_index"] = index
        if version is None or scenario is None:
            return list(index[1].get((target,), []))
        return list(index[1].get((target, version, scenario), []))


def _cell(result: CellResult) -> Cell:
    record = result.record
    return Cell(
        path=result.folder,
        target=record.target,
        version=record.target_version,
        variant=record.variant or None,
        scenario=record.scenario,
        revision=record.revision,
        verdict=record.verdict,
        reason=record.reason,
        checks={check.id: check.raw for check in record.checks},
        current=result.current,
        plays=max(1, record.play_count),
        probes=tuple(p for p in record.raw.get("probes") or [] if isinstance(p, dict)),
    )


def read_cells(results: Path, pinned: dict[str, str] | None = None) -> Cells:
    """Every cell under ``results`` (a missing folder is simply no cells); ``pinned`` as in
    ``compare.play._cells.scan_cells``."""
    scan = scan_cells(results, pinned)
    out = Cells(broken=sorted(f"{u.path}: {u.why}" for u in scan.unreadable))
    out.cells = [_cell(result) for result in scan.cells]
    return out
