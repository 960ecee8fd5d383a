"""A proxy's relay table: each relay check's outcome, per host declaration and revision.

A proxy cell judges several things at once (was the upstream's question relayed, did the
answer come back unchanged, what did the proxy declare upstream, did list_changed pass). A
reader wants those side by side, per scenario (host declares roots / declares none), with
revisions that gave the same outcomes folded into one column, each entry linking to the
check on its cell page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compare.pin import release_order
from compare.site._cells import Cell, Check


@dataclass
class RelayColumn:
    """Revisions whose cells named the same outcome for every check."""

    cells: list[Cell]  # oldest revision first
    checks: dict[str, Check]

    @property
    def revisions(self) -> list[str]:
        return [c.revision for c in self.cells]

    @property
    def cell(self) -> Cell:
        return self.cells[0]


@dataclass
class RelayTable:
    """One proxy scenario's checks (rows) against revision groups (columns)."""

    scenario: str
    rows: list[tuple[str, str]] = field(default_factory=list)  # (check id, title)
    columns: list[RelayColumn] = field(default_factory=list)


def _outcomes(cell: Cell) -> dict[str, tuple[str, str]]:
    return {k.id: (k.outcome, k.verdict) for k in cell.checks}


def relay_tables(cells: list[Cell], proxy_scenarios: set[str]) -> list[RelayTable]:
    """The current cells of proxy scenarios, as one table per scenario."""
    tables: list[RelayTable] = []
    current = [c for c in cells if c.current and c.scenario in proxy_scenarios and c.checks]
    for scenario in sorted({c.scenario for c in current}):
        table = RelayTable(scenario)
        for cell in sorted(
            (c for c in current if c.scenario == scenario), key=lambda c: release_order(c.revision)
        ):
            for check in cell.checks:
                if (check.id, check.title) not in table.rows:
                    table.rows.append((check.id, check.title))
            twin = next(
                (col for col in table.columns if _outcomes(col.cell) == _outcomes(cell)), None
            )
            if twin is not None:
                twin.cells.append(cell)
            else:
                table.columns.append(RelayColumn([cell], {k.id: k for k in cell.checks}))
        tables.append(table)
    return tables
