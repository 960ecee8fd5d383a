"""The checked program's column of every row that applies to its kind.

A row applies when the scenario its state is read from (``status.query``, or a derived row's
enforcement scenario) is played on the program's side. The column is computed by the rows
stage's own rules (``_target_status``, ``derived_column``) on the check's results folder,
so "supported" means in a report exactly what it means on the site. The failing checks of
each row are listed with the sentence that grades them, quoted whole from the cell.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare._paths import relative_posix
from compare._yaml import load_yaml
from compare.judge._grounds import NEEDS, _plain, grounds
from compare.pin import release_order
from compare.rows._cells import Cell, Cells
from compare.rows._compute import _target_status
from compare.rows._derive import derived_column
from compare.rows._load import area_files, query_checks

#: Check verdicts a report lists with their sentence, worst first.
FINDINGS = ("fail", "non-strict")


@dataclass(frozen=True)
class Program:
    """The program a check plays: its target id (``command`` or ``server-command``), the
    version the harness gave its command line, its side and the name a report shows."""

    target: str
    version: str
    side: str
    name: str
    command: str


def row_scenario(row: dict[str, Any]) -> str | None:
    """The scenario a row's state is read from, or None for a row with no exchange check."""
    status = row.get("status") or {}
    if status.get("query"):
        return str(status["query"]["scenario"])
    derive = status.get("derive")
    if derive:
        return str(((derive.get("from") or {}).get("enforcement") or {}).get("scenario"))
    return None


def _in_force(ref: dict[str, Any], revision: str) -> bool:
    """Whether a ref's sentence is the text of ``revision`` (``from`` … ``until``, both
    revisions included, as the judge writes them)."""
    start, until = ref.get("from"), ref.get("until")
    at = release_order(revision)
    return (not start or release_order(str(start)) <= at) and (
        not until or at <= release_order(str(until))
    )


def grounding(check: dict[str, Any], revision: str) -> list[dict[str, Any]]:
    """The sentences a failing check's grade rests on at ``revision``: the refs in force then
    that speak for its outcome and hold the keyword of its grade (a MUST for a fail, a SHOULD
    for a non-strict), as the judge requires of every grade; all quoted refs if none do."""
    refs = [r for r in check.get("refs") or [] if isinstance(r, dict) and r.get("quote")]
    pattern = NEEDS[str(check["verdict"])][0]
    outcome = str(check.get("outcome") or "")
    chosen = [
        r for r in refs
        if _in_force(r, revision) and grounds(r, outcome)
        and pattern.search(_plain(str(r["quote"])))
    ]  # fmt: skip
    return chosen or refs


def finding(cell: Cell, name: str, check: dict[str, Any], root: Path) -> dict[str, Any]:
    """One failing check of one exchange, with the sentences its grade rests on."""
    refs = grounding(check, cell.revision)
    return {
        "scenario": cell.scenario,
        "revision": cell.revision,
        "check": name,
        "verdict": check["verdict"],
        "title": str(check.get("title") or name),
        "observed": str(check.get("observed") or ""),
        "reason": str(check.get("reason") or ""),
        "sentences": [{"cite": str(r.get("cite")), "quote": str(r.get("quote"))} for r in refs],
        "cell": relative_posix(cell.path, root),
    }


def _findings(
    row: dict[str, Any], program: Program, cells: Cells, root: Path
) -> list[dict[str, Any]]:
    """Every fail and non-strict check behind the row, with the sentences it cites."""
    query = (row.get("status") or {}).get("query")
    if not query:
        return []
    names = set(query_checks(query))
    out = [
        finding(cell, name, check, root)
        for cell in cells.of(program.target, program.version, str(query["scenario"]))
        for name, check in sorted(cell.checks.items())
        if name in names and check.get("verdict") in FINDINGS
    ]
    order = {v: i for i, v in enumerate(FINDINGS)}
    return sorted(out, key=lambda f: (order[f["verdict"]], f["revision"], f["check"]))


def checked_areas(
    program: Program,
    cells: Cells,
    root: Path,
    sides: dict[str, str],
    write_ops: dict[str, set[str]],
    played: set[str],
    directory: Path | None = None,
) -> list[dict[str, Any]]:
    """Per area file, the rows that apply to the program's side and whose scenario was
    played, with its column in each; ``not_applicable`` counts the area's rows that are not
    the side's (or have no exchange check). ``sides`` maps every scenario id to its side."""
    out = []
    for path in area_files(directory):
        area = load_yaml(path)
        rows = []
        other = 0
        for row in area.get("rows") or []:
            scenario = row_scenario(row)
            if scenario is None or sides.get(scenario) != program.side:
                other += 1
                continue
            if scenario not in played:
                continue
            status = row["status"]
            if status.get("derive"):
                column = derived_column(
                    status["derive"], program.target, program.version, cells, write_ops,
                    lambda p: relative_posix(p, root),
                )  # fmt: skip
            else:
                said = bool(status.get("informational"))
                column = _target_status(
                    status["query"], program.target, program.version, cells, root, said
                )
            rows.append(
                {
                    "id": row["id"],
                    "difference": row["difference"],
                    "scenario": scenario,
                    "state": column["state"],
                    "label": column["label"],
                    "reason": column.get("reason"),
                    "revisions": {
                        rev: {"verdict": e.get("verdict"), "reason": e.get("reason")}
                        for rev, e in (column.get("revisions") or {}).items()
                    },
                    "findings": _findings(row, program, cells, root),
                }
            )
        if rows:
            out.append(
                {
                    "area": area["area"],
                    "title": area["title"],
                    "rows": rows,
                    "not_applicable": other,
                }
            )
    return out


def readers(
    sides: dict[str, str], side: str, directory: Path | None = None
) -> dict[tuple[str, str], list[str]]:
    """(scenario, check id) → the rows of ``side`` whose state reads that check there."""
    out: dict[tuple[str, str], list[str]] = {}
    for path in area_files(directory):
        for row in load_yaml(path).get("rows") or []:
            query = (row.get("status") or {}).get("query")
            if query and sides.get(str(query["scenario"])) == side:
                for name in query_checks(query):
                    out.setdefault((str(query["scenario"]), name), []).append(str(row["id"]))
    return out
