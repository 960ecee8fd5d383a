"""Where citations sit in an area file, so ``cite --check`` and the lints see the same set."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Placed:
    """A citation string with its place: row id, field path, and authored context."""

    row: str
    field: str
    ref: str
    context: str | None = None
    contradicted_by: str | None = None
    note: str | None = None


def _entry(row: str, field: str, entry: Any) -> list[Placed]:
    if isinstance(entry, str):
        return [Placed(row, field, entry)]
    if isinstance(entry, dict) and isinstance(entry.get("cite"), str):
        contra = entry.get("contradicted_by")
        placed = [
            Placed(
                row,
                field,
                entry["cite"],
                entry.get("context"),
                contra if isinstance(contra, str) else None,
                entry.get("note"),
            )
        ]
        if isinstance(contra, str):
            placed.append(Placed(row, f"{field}.contradicted_by", contra, "normative"))
        return placed
    return []


def placed_citations(area: dict[str, Any]) -> list[Placed]:
    """Every citation in the area: row sources and the sources of cited-only columns."""
    out: list[Placed] = []
    rows = area.get("rows")
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        rid = str(row.get("id", "?"))
        sources = row.get("sources")
        for i, entry in enumerate(sources if isinstance(sources, list) else []):
            out += _entry(rid, f"sources[{i}]", entry)
        status = row.get("status")
        cited = status.get("cited") if isinstance(status, dict) else None
        if not isinstance(cited, dict):
            continue
        for impl, column in cited.items():
            listed = column.get("sources") if isinstance(column, dict) else None
            if isinstance(listed, list):
                for i, entry in enumerate(listed):
                    out += _entry(rid, f"status.cited.{impl}.sources[{i}]", entry)
    return out
