"""A server's enforcement matrix: operation × probed place, from its cells' probe tables.

The judge writes one entry per probe call into a server cell's verdict (``probes``); this
module folds a server's current cells into one table per scenario: a row per operation (with
the tool that performed it), a column per probed place (per probe step when the scenario has
several, as the stale-roots one does). Revisions whose tables are identical share one table,
so a reader sees at once where a server's behaviour changes with the revision it speaks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compare.pin import release_order
from compare.site._cells import Cell


@dataclass(frozen=True)
class Hit:
    """One matrix cell: what the probe did, what the place expected, where it shows."""

    result: str
    expect: str
    evidence: tuple[int, ...]
    detail: str

    @property
    def unexpected(self) -> bool:
        """Allowed where refusal was expected, or refused where it should have worked."""
        return (
            self.result in ("allowed", "refused")
            and self.expect in ("allowed", "refused")
            and (self.result != self.expect)
        )


@dataclass
class Matrix:
    """One scenario's table for a set of revisions that gave the same results."""

    scenario: str
    cells: list[Cell]  # one per revision with this table, oldest first
    columns: list[tuple[str, str]]  # (step, place)
    rows: list[tuple[str, str]]  # (operation, tool)
    hits: dict[tuple[str, str, str], Hit] = field(default_factory=dict)  # (op, step, place)
    multi_step: bool = False

    @property
    def revisions(self) -> list[str]:
        return [c.revision for c in self.cells]

    @property
    def cell(self) -> Cell:
        """The cell the matrix was read from (its evidence numbers are that transcript's)."""
        return self.cells[0]

    def hit(self, operation: str, step: str, place: str) -> Hit | None:
        return self.hits.get((operation, step, place))


def _probes(cell: Cell) -> list[dict[str, Any]]:
    raw = cell.data.get("probes")
    return [p for p in raw if isinstance(p, dict)] if isinstance(raw, list) else []


def _matrix(cell: Cell, probes: list[dict[str, Any]]) -> Matrix:
    columns: list[tuple[str, str]] = []
    rows: list[tuple[str, str]] = []
    hits: dict[tuple[str, str, str], Hit] = {}
    for p in probes:
        step, place, op = str(p.get("step")), str(p.get("place")), str(p.get("operation"))
        if (step, place) not in columns:
            columns.append((step, place))
        if op not in [r[0] for r in rows]:
            rows.append((op, str(p.get("tool") or "")))
        evidence = tuple(n for n in p.get("evidence") or [] if isinstance(n, int))
        hits[(op, step, place)] = Hit(
            str(p.get("result")), str(p.get("expect")), evidence, str(p.get("detail") or "")
        )
    steps = {c[0] for c in columns}
    return Matrix(cell.scenario, [cell], columns, rows, hits, len(steps) > 1)


def _key(m: Matrix) -> tuple[Any, ...]:
    return (m.columns, m.rows, {k: v.result for k, v in m.hits.items()})


def _same(a: Matrix, b: Matrix) -> bool:
    """Whether two revisions' tables say the same (evidence line numbers may differ)."""
    return _key(a) == _key(b)


def enforcement_matrices(cells: list[Cell]) -> list[Matrix]:
    """The current cells' matrices, per scenario, revisions with equal tables merged."""
    out: list[Matrix] = []
    current = [c for c in cells if c.current and _probes(c)]
    for scenario in sorted({c.scenario for c in current}):
        for cell in sorted(
            (c for c in current if c.scenario == scenario),
            key=lambda c: (c.variant, release_order(c.revision)),
        ):
            matrix = _matrix(cell, _probes(cell))
            twin = next((m for m in out if m.scenario == scenario and _same(m, matrix)), None)
            if twin is not None:
                twin.cells.append(cell)
            else:
                out.append(matrix)
    return out
