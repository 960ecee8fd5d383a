"""The lint that needs the cells: every graded failing check of a current cell shows in a row.

A fail or non-strict check is a finding about the program in its column; if no row's status
query names it, the published matrix hides it (a row can read supported over a cell that
failed a check the row does not query). The lint reads the same current cells the columns
are computed from, and names each hidden finding once per scenario/check with the cells it
was found in, and the fix.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from compare.rows._cells import Cell, Cells
from compare.rows._lint import FAILING
from compare.rows._load import Issue, query_checks


def _covers(query: dict[str, Any], scenario: str, check: str, variant: str | None,
            revision: str) -> bool:  # fmt: skip
    """Whether a row's status query reads this check of this cell."""
    if query.get("scenario") != scenario or check not in query_checks(query):
        return False
    if query.get("variant") is not None and query.get("variant") != variant:
        return False
    revisions = query.get("revisions")
    return not revisions or revision in revisions


def lint_findings(
    areas: list[tuple[str, dict[str, Any]]],
    cells: Cells,
    sides: dict[str, str] | None = None,
) -> list[Issue]:
    """One issue per scenario/check that graded fail or non-strict in a current cell and
    stands behind no row's status query in any of ``areas`` (file name, parsed area).

    A common wire check (``_wire*.yaml``) judges one behaviour of the program whatever the
    scenario it shows in — a stdout line that is not JSON is the same line in every cell — so
    with ``sides`` (scenario id → side) a row that queries it in one scenario of a side stands
    for it in every scenario of that side: the finding shows once, on that row."""
    wire = wire_checks() if sides is not None else set()
    queries = [
        (file, row["status"]["query"])
        for file, area in areas
        for row in area.get("rows") or []
        if isinstance(row, dict)
        and isinstance(row.get("status"), dict)
        and isinstance(row["status"].get("query"), dict)
    ]
    hidden: dict[tuple[str, str], list[str]] = defaultdict(list)
    for cell in cells.cells:
        if not cell.current:
            continue
        for check, data in cell.checks.items():
            if data.get("verdict") not in FAILING:
                continue
            if any(
                _covers(q, cell.scenario, check, cell.variant, cell.revision) for _, q in queries
            ):
                continue
            if (
                check in wire
                and sides is not None
                and any(
                    check in query_checks(q)
                    and sides.get(str(q.get("scenario"))) == sides.get(cell.scenario)
                    for _, q in queries
                )
            ):
                continue
            variant = f" ({cell.variant})" if cell.variant else ""
            hidden[(cell.scenario, check)].append(
                f"{cell.target}{variant} {cell.revision}: {data['verdict']}"
            )
    file = areas[0][0] if areas else "(areas)"
    issues = []
    for (scenario, check), where in sorted(hidden.items()):
        shown = "; ".join(where[:6]) + (f"; and {len(where) - 6} more" if len(where) > 6 else "")
        issues.append(
            Issue(
                file,
                f"{scenario}/{check}",
                f"graded failing check {scenario}/{check} stands behind no row ({shown})",
                f"add {check!r} to the status.query.check of the row about that behaviour"
                f" (scenario {scenario}), or add a row that queries it, so the finding shows",
            )
        )
    return issues


def wire_checks() -> set[str]:
    """The ids of the common checks every cell of some side gets (``_wire*.yaml``)."""
    from compare.exchange._scenarios import COMMON_FILES, common_checks

    return {c.id for side in COMMON_FILES for c in common_checks(side)}


def hollow_passes(
    cells: Cells, grades: dict[str, dict[str, set[str]]], wire: set[str]
) -> tuple[int, list[str]]:
    """How many current cells read pass, and those no failable check stands behind.

    A cell reads pass only when at least one of its scenario's own checks (not a common wire
    check) passed *and* could have failed: the scenario grades some outcome of it fail or
    non-strict (``grades``: scenario → check → the verdicts its outcomes can give). The
    scenario loader refuses a pass in a check that cannot fail, so a hollow pass can only be
    a verdict judged by older rules or grades: re-judging (``mcp-compare run``) mends it.
    """
    passes = 0
    hollow: list[str] = []
    for cell in cells.cells:
        if not cell.current or cell.verdict != "pass":
            continue
        passes += 1
        own = grades.get(cell.scenario, {})
        if not any(
            data.get("verdict") == "pass" and FAILING & own.get(check, set())
            for check, data in cell.checks.items()
            if check not in wire
        ):
            variant = f" ({cell.variant})" if cell.variant else ""
            hollow.append(f"{cell.target}{variant} {cell.scenario} {cell.revision}")
    return passes, hollow


def lint_earned(
    cells: Cells, grades: dict[str, dict[str, set[str]]], wire: set[str]
) -> list[Issue]:
    """One issue naming every current pass cell that no failable check stands behind."""
    _, hollow = hollow_passes(cells, grades, wire)
    if not hollow:
        return []
    shown = "; ".join(hollow[:6]) + (f"; and {len(hollow) - 6} more" if len(hollow) > 6 else "")
    return [
        Issue(
            "(cells)",
            "pass",
            f"{len(hollow)} pass cell(s) rest on no check that could have failed ({shown})",
            "re-judge them (`mcp-compare run` re-judges a cell whose grades changed); a pass"
            " needs a check of the scenario that grades some outcome fail or non-strict",
        )
    ]


def _line(cell: Cell, numbers: list[Any]) -> str:
    """The first evidence line of a check, as the transcript holds it: who wrote it (the
    program under test is "in" on every side) and its raw text, cut for a table."""
    from compare.judge._transcript import read_transcript

    path = cell.path / "transcript.jsonl"
    wanted = [n for n in numbers if isinstance(n, int)]
    if not wanted or not path.is_file():
        return "(no transcript line)"
    try:
        tx = read_transcript(path)
    except Exception as err:  # a damaged transcript is reported, never fatal here
        return f"(transcript unreadable: {type(err).__name__})"
    # evidence may name step notes too; the first wire line is what the table shows
    line = next((x for x in map(tx.by_n, sorted(wanted)) if x is not None), None)
    if line is None:
        return f"(no wire line among {sorted(wanted)[:4]})"
    who = {"in": "from the program", "out": "ours"}.get(line.dir, line.dir)
    if line.leg:
        who += f", {line.leg} leg"
    text = line.raw or ""
    raw = text if len(text) <= 160 else text[:157] + "..."
    return f"line {line.n} ({who}): {raw}"


def _first_line(found: list[tuple[Cell, dict[str, Any]]]) -> str:
    """The first wire line behind the group, from the first of its cells that has one."""
    said = "(no transcript line)"
    for cell, data in found:
        said = _line(cell, list(data.get("evidence") or []))
        if not said.startswith("("):
            break
    return said


def findings_table(cells: Cells) -> list[dict[str, Any]]:
    """Every fail and non-strict finding of the current cells, one group per scenario, check
    and outcome: the cells it was found in, the sentence its grade cites, and the first
    transcript line behind it in its first cell (issue 36's closing table)."""
    groups: dict[tuple[str, str, str, str], list[tuple[Cell, dict[str, Any]]]] = defaultdict(list)
    for cell in cells.cells:
        if not cell.current:
            continue
        for check, data in cell.checks.items():
            if data.get("verdict") in FAILING:
                key = (str(data["verdict"]), cell.scenario, check, str(data.get("outcome")))
                groups[key].append((cell, data))
    out = []
    for (verdict, scenario, check, outcome), found in sorted(groups.items()):
        first = found[0][1]
        refs = first.get("refs") or []
        where: dict[str, list[str]] = defaultdict(list)
        for cell, _data in found:
            column = cell.target + (f" ({cell.variant})" if cell.variant else "")
            where[column].append(cell.revision)
        out.append(
            {
                "verdict": verdict,
                "check": f"{scenario}/{check}",
                "outcome": outcome,
                "cells": len(found),
                "columns": {k: sorted(v) for k, v in sorted(where.items())},
                "sentence": [f"{r.get('cite')} “{r.get('quote')}”" for r in refs[:1]],
                "observed": str(first.get("observed", ""))[:240],
                "line": _first_line(found),
            }
        )
    return out


def scenario_sides() -> dict[str, str]:
    """Scenario id → its side, from the shipped scenarios."""
    from compare.exchange._scenarios import load_scenarios

    return {s.id: s.side for s in load_scenarios()}
