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
    for row in area.get("rows") or []:
        if not isinstance(row, dict):
            continue
        rid = str(row.get("id", "?"))
        for i, entry in enumerate(row.get("sources") or []):
            out += _entry(rid, f"sources[{i}]", entry)
        status = row.get("status")
        cited = status.get("cited") if isinstance(status, dict) else None
        if not isinstance(cited, dict):
            continue
        for impl, column in cited.items():
            if isinstance(column, dict):
                for i, entry in enumerate(column.get("sources") or []):
                    out += _entry(rid, f"status.cited.{impl}.sources[{i}]", entry)
    return out
