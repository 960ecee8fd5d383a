"""The home page's first answer: for each implementation, one line per area saying how its
rows came out, so a reader sees which areas a program was measured in and how it fared before
opening any table.

A line counts the implementation's row states in the area, the graded ones first, each count
with its word (``✘ 1 fail · ✔ 7 pass · ℹ 2 observed``); rows the implementation was not
run for are left out of the count, and an area where none was run reads "not run".
"""

from __future__ import annotations

from dataclasses import dataclass

from compare.site._inputs import Area, Row
from compare.site._words import word

#: The order a line names states in: what failed or wavered stands out before what passed.
ORDER = (
    "error",
    "unstable",
    "not-supported",
    "partial",
    "non-strict",
    "supported",
    "observed",
    "not-exercised",
    "cited",
)
#: States that say nothing was measured for the row (not counted).
UNMEASURED = frozenset({"not-run", "n-a", "unknown", ""})


@dataclass(frozen=True)
class Part:
    """One state's count on a line: the state, its word, how many rows (the page prints the
    state's symbol beside them)."""

    state: str
    word: str
    count: int


@dataclass(frozen=True)
class Line:
    """One implementation's line for one area: the counted parts and the rows measured."""

    area: str
    parts: tuple[Part, ...]
    measured: int
    rows: int


def glance(rows: list[Row], areas: list[Area], columns: list[str]) -> list[tuple[str, list[Line]]]:
    """Per implementation column (in the page's order), its line for every area."""
    by_area = {a.id: [r for r in rows if r.area == a.id] for a in areas}
    out = []
    for name in columns:
        lines = []
        for area in areas:
            counts: dict[str, int] = {}
            for row in by_area[area.id]:
                status = row.status.get(name)
                state = status.state if status is not None else ""
                if state in UNMEASURED:
                    continue
                counts[state] = counts.get(state, 0) + 1
            known = [s for s in ORDER if s in counts] + sorted(set(counts) - set(ORDER))
            parts = tuple(Part(s, word("status", s), counts[s]) for s in known)
            lines.append(Line(area.id, parts, sum(counts.values()), len(by_area[area.id])))
        out.append((name, lines))
    return out
