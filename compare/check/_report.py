"""The report of one check, as data: what every output form (terminal, HTML, JUnit) is
written from, and what ``report.json`` holds (shape: ``check-report.schema.json``).

The gate is here too, so the exit status and every form agree on what failed: at
``--fail-on fail`` a failing check (a MUST the program broke) or a cell that ended in a
harness error (nothing can be vouched for) fails the check; ``non-strict`` adds the SHOULDs
accepted only non-strictly; ``never`` only reports.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from compare import __version__
from compare.check._rows import FINDINGS, Program, finding
from compare.pin import release_order
from compare.rows._cells import Cells

SCHEMA = Path(__file__).resolve().parent / "check-report.schema.json"
THRESHOLDS = ("fail", "non-strict", "never")
#: A row state → the column of the per-area tally it counts in.
TALLY = {
    "supported": "pass",
    "non-strict": "non-strict",
    "partial": "fail",
    "not-supported": "fail",
    "observed": "observed",
    "not-exercised": "not tested",
    "not-run": "not tested",
    "error": "error",
    "unstable": "error",
}
TALLY_COLUMNS = ("pass", "non-strict", "fail", "observed", "not tested", "error", "n/a")


def stray_findings(
    program: Program, cells: Cells, root: Path, areas: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Failing checks of the program's cells that no row of the report reads: still the
    program's findings, and still counted by the gate."""
    shown = {
        (f["scenario"], f["revision"], f["check"])
        for area in areas
        for row in area["rows"]
        for f in row["findings"]
    }
    return [
        finding(cell, name, check, root)
        for cell in cells.of(program.target)
        if cell.version == program.version
        for name, check in sorted(cell.checks.items())
        if check.get("verdict") in FINDINGS and (cell.scenario, cell.revision, name) not in shown
    ]


@functools.cache
def _held_everywhere() -> frozenset[str]:
    """The checks every scenario of a side carries (the wire checks): one behaviour of the
    program whichever scenario showed it."""
    from compare.exchange._scenarios import COMMON_FILES, common_checks

    return frozenset(c.id for side in COMMON_FILES for c in common_checks(side))


def _rows_of(finding: dict[str, Any], read_by: dict[tuple[str, str], list[str]]) -> tuple[str, ...]:
    """The rows a failing exchange is evidence for: those reading its check in its scenario;
    for a rule every exchange is held to (a line on stdout that is not JSON), the rows
    reading that check in any scenario, whichever scenario this exchange was."""
    exact = read_by.get((finding["scenario"], finding["check"]))
    if exact and finding["check"] not in _held_everywhere():
        return tuple(exact)
    anywhere = {
        r for (_, check), rows in read_by.items() if check == finding["check"] for r in rows
    }
    return tuple(sorted(anywhere))


def grouped(
    areas: list[dict[str, Any]],
    other: list[dict[str, Any]],
    read_by: dict[tuple[str, str], list[str]],
) -> list[dict[str, Any]]:
    """One finding per behaviour: the failing exchanges of one check, with one grade, that are
    evidence for the same rows, with those rows, their sentences and every exchange (the same
    banner on stdout breaks the stdio rule in each of a server's exchanges). Checks of one
    scenario that grade the same rows are one behaviour too: a row reads several checks where
    a rule's wording changed between revisions (a foreign Origin refused, then refused with
    403), and the program did the same thing at each."""
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    for f in [f for a in areas for r in a["rows"] for f in r["findings"]] + other:
        seen.setdefault((f["scenario"], f["revision"], f["check"]), f)
    groups: dict[tuple[str, str, tuple[str, ...]], dict[str, Any]] = {}
    order = {v: i for i, v in enumerate(FINDINGS)}
    for f in sorted(seen.values(), key=lambda f: (release_order(f["revision"]), f["scenario"])):
        rows = _rows_of(f, read_by)
        key = (f["check"], f["verdict"], rows)
        # another check of the same scenario, grading the same rows: the same behaviour
        alias = ("scenario " + f["scenario"], f["verdict"], rows)
        if key not in groups and rows and alias in groups:
            groups[key] = groups[alias]
        group = groups.setdefault(
            key,
            {
                "check": f["check"],
                "verdict": f["verdict"],
                "title": f["title"],
                "rows": list(rows),
                "sentences": [],
                "observed": f["observed"],
                "exchanges": [],
            },
        )
        if rows:
            groups.setdefault(alias, group)
        if f["check"] not in group["check"].split(", "):
            group["check"] += f", {f['check']}"
        for sentence in f["sentences"]:
            if sentence not in group["sentences"]:
                group["sentences"].append(sentence)
        group["exchanges"].append(
            {"scenario": f["scenario"], "revision": f["revision"], "cell": f["cell"]}
        )
    unique = list({id(g): g for g in groups.values()}.values())
    return sorted(unique, key=lambda g: (order[g["verdict"]], g["rows"], g["check"]))


def tally(area: dict[str, Any], not_applicable: int) -> dict[str, int]:
    counts: Counter[str] = Counter(TALLY.get(row["state"], "not tested") for row in area["rows"])
    counts["n/a"] = not_applicable
    return {column: counts[column] for column in TALLY_COLUMNS}


def gate(report: dict[str, Any], threshold: str) -> dict[str, Any]:
    """Whether the check passes at ``threshold``, and every reason it does not."""
    why: list[str] = []
    if threshold != "never":
        counted = ("fail",) if threshold == "fail" else FINDINGS
        for verdict in counted:
            found = [g for g in report["findings"] if g["verdict"] == verdict]
            if found:
                names = ", ".join(", ".join(g["rows"]) or g["check"] for g in found)
                word = "broken MUST" if verdict == "fail" else "SHOULD met only non-strictly"
                why.append(f"{len(found)} {word}{'s' if len(found) > 1 else ''} ({names})")
        if report["cells"]["errors"]:
            why.append(f"{len(report['cells']['errors'])} cell(s) ended in a harness error")
    return {"threshold": threshold, "outcome": "fail" if why else "pass", "why": why}


def validate(report: dict[str, Any]) -> list[str]:
    """Schema problems of a report (empty: valid); the tests and the writer both ask."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
        for e in sorted(Draft202012Validator(schema).iter_errors(report), key=str)
    ]


def build(
    *,
    program: Program,
    areas: list[dict[str, Any]],
    other: list[dict[str, Any]],
    read_by: dict[tuple[str, str], list[str]],
    verdicts: list[dict[str, Any]],
    errors: list[str],
    beside: dict[str, Any],
    spec_commit: str,
    revisions: list[str],
    checked_at: str,
    threshold: str,
) -> dict[str, Any]:
    areas = [
        {
            "area": area["area"],
            "title": area["title"],
            "tally": tally(area, int(area.get("not_applicable", 0))),
            "rows": [row | {"beside": beside["states"].get(row["id"], {})} for row in area["rows"]],
        }
        for area in areas
    ]
    report: dict[str, Any] = {
        "format": 1,
        "generated_by": "mcp-compare check",
        "tool_version": __version__,
        "checked_at": checked_at,
        "spec_commit": spec_commit,
        "revisions": revisions,
        "program": {
            "name": program.name,
            "side": program.side,
            "command": program.command,
            "target": program.target,
            "version": program.version,
        },
        "cells": {
            "played": len(verdicts),
            "counts": dict(sorted(Counter(str(v["verdict"]) for v in verdicts).items())),
            "errors": errors,
        },
        "areas": areas,
        "other_findings": other,
        "findings": grouped(areas, other, read_by),
        "beside": {k: beside[k] for k in ("source", "columns", "missing")},
    }
    report["result"] = gate(report, threshold)
    return report
