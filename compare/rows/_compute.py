"""Compute the rows: where each difference exists (from the diff) and what each
implementation does (from the verdicts), beside the authored judgement and prose.

Nothing here is typed by hand: a ``where`` column is read from ``build/diff.json`` and a
status column from the current version's cells. No cell means "not run, because …" —
never a pass.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare._paths import relative_posix, results_dir
from compare.judge._verdicts import severity
from compare.pin import release_order
from compare.play._cells import version_key
from compare.rows._cells import Cell, Cells, read_cells
from compare.rows._context import Known, gather
from compare.rows._derive import derived_column
from compare.rows._evidence import Report
from compare.rows._facts import PROSE, render
from compare.rows._findings import lint_earned, lint_findings, scenario_sides, wire_checks
from compare.rows._lint import lint_areas
from compare.rows._load import Issue, area_diff, query_checks, schema_issues
from compare.rows._notes import note_issues
from compare.rows._state import STATE_LABELS, error_label, graded_state
from compare.rows._where import compute_where


@dataclass
class _Agg:
    revisions: dict[str, Any] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)


def _cell_key(cell: Cell, with_variant: bool) -> str:
    return f"{cell.revision}~{cell.variant}" if with_variant and cell.variant else cell.revision


def _display(path: Path, root: Path) -> str:
    try:
        return relative_posix(path, root.parent)
    except ValueError:
        return str(path)


def _target_status(
    query: dict[str, Any],
    target: str,
    version: str | None,
    cells: Cells,
    root: Path,
    informational: bool = False,
) -> dict[str, Any]:
    """One run column. ``informational``: the row is declared to record behaviour the spec
    leaves open (its checks cannot fail), so a judged column reads observed, never supported."""
    scenario, checks = query["scenario"], query_checks(query)
    variant, revisions = query.get("variant"), query.get("revisions")
    what = f"{scenario}/{'+'.join(checks)}" + (f" (variant {variant})" if variant else "")
    if version is None:
        history = sorted({c.version for c in cells.of(target)})
        why = (
            f"not run, because {target} has results only for versions that are not current"
            f" ({', '.join(history)})"
            if history
            else f"not run, because there are no results for {target} at all"
        )
        return {"state": "not-run", "label": STATE_LABELS["not-run"], "reason": why}
    mine = [
        c
        for c in cells.of(target, version, scenario)
        if (variant is None or c.variant == variant) and (not revisions or c.revision in revisions)
    ]
    if not mine:
        why = f"not run, because {target} {version} has no cell for {what}"
        return {
            "state": "not-run",
            "label": STATE_LABELS["not-run"],
            "reason": why,
            "version": version,
        }
    several_variants = variant is None and len({c.variant for c in mine}) > 1
    agg = _Agg()
    # Every verdict of every named check counts toward the row state (a pass on one check and
    # a fail on another is "partial"); each cell shows its worst check. A named check a cell
    # lacks (its revision window leaves that revision out; the lint has already checked that
    # every named check exists) does not speak for that cell, as long as another one does.
    # A cell that ended in error counts as an error even when its named checks were judged:
    # its run is not one the row can vouch for, and it is re-run by the next `mcp-compare run`.
    verdicts: Counter[str] = Counter()
    # A cell whose plays differed (``unstable``) is counted like an error: no play of it
    # may speak for the row, even when the named checks were the same in every play.
    doubt = {"error": 0, "unstable": 0}
    for cell in sorted(mine, key=lambda c: (release_order(c.revision), c.variant or "")):
        entry: dict[str, Any] = {"cell": _display(cell.path, root)}
        got = {one: cell.checks.get(one) for one in checks}
        found = [(one, check) for one, check in got.items() if check is not None]
        missing = [one for one, check in got.items() if check is None]
        if cell.verdict == "not-run":
            entry |= {"verdict": "not-run", "reason": cell.reason}
        elif not found and cell.verdict in doubt:
            entry |= {"verdict": cell.verdict, "reason": cell.reason}
        elif not found:
            entry |= {"verdict": "not-run", "reason": f"the cell has no check {missing[0]}"}
        else:
            # The worst check speaks for the cell (the exchange's own severity order).
            name, worst = max(found, key=lambda pair: severity(str(pair[1]["verdict"])))
            said = worst.get("reason")
            entry |= {
                "verdict": worst["verdict"],
                "observed": worst.get("observed"),
                "expected": worst.get("expected"),
                "reason": f"{name}: {said}" if len(checks) > 1 else said,
                "evidence_lines": worst.get("evidence") or [],
            }
            if worst.get("outcomes") is not None:
                entry["outcomes"] = worst["outcomes"]
            if cell.verdict in doubt and worst["verdict"] not in doubt:
                entry |= {"cell_verdict": cell.verdict, "cell_reason": cell.reason}
            elif worst["verdict"] not in doubt:
                # An informational row records behaviour; a check that was never exercised
                # recorded none, and keeps saying so.
                verdicts.update(
                    "informational"
                    if informational and check["verdict"] != "not-exercised"
                    else str(check["verdict"])
                    for _, check in found
                )
        for word in doubt:
            doubt[word] += word in (entry["verdict"], entry.get("cell_verdict"))
        if cell.plays > 1:
            entry["plays"] = cell.plays
        agg.revisions[_cell_key(cell, several_variants)] = entry
        agg.evidence.append(entry["cell"])
    rest = graded_state(verdicts)
    # A harness error outranks a difference between plays: the plays may not all be there.
    word = next((w for w in ("error", "unstable") if doubt[w]), "")
    state = word or rest
    out: dict[str, Any] = {
        "state": state,
        "label": error_label(doubt[word], len(mine), rest, word) if word else STATE_LABELS[state],
        "version": version,
        "revisions": agg.revisions,
        "evidence": agg.evidence,
        "counts": dict(sorted(Counter(str(e["verdict"]) for e in agg.revisions.values()).items())),
    }
    if doubt["error"]:
        out |= {"errors": doubt["error"]}
    if doubt["unstable"]:
        out |= {"unstable": doubt["unstable"]}
    if word:
        failed = sorted(
            {
                str(e.get("cell_reason") or e.get("reason"))
                for e in agg.revisions.values()
                if word in (e["verdict"], e.get("cell_verdict"))
            }
        )
        out |= {"judged_state": rest, "reason": "; ".join(failed)}
    if state == "not-run":
        reasons = sorted({str(e.get("reason")) for e in agg.revisions.values()})
        out["reason"] = f"not run, because {'; '.join(reasons)}"
    elif state == "not-exercised":
        reasons = sorted(
            {str(e.get("reason")) for e in agg.revisions.values() if e["verdict"] == state}
        )
        out["reason"] = f"not exercised: {'; '.join(reasons)}"
    elif "reason" not in out:
        out["reason"] = why_judged(agg.revisions)
    return out


#: How the one-line why of a judged state words each verdict, worst first.
_WHY_WORDS = {
    "fail": "failed",
    "non-strict": "not to the letter",
    "pass": "passed",
    "informational": "recorded",
}
#: The most of one cell's reason a why line quotes.
_WHY_CHARS = 160


def why_judged(revisions: dict[str, dict[str, Any]]) -> str:
    """One line saying why a judged state is what it is, from its cells (issue 42: never
    blank): per verdict, worst first, the revisions with it and the reason of the first."""
    by: dict[str, list[tuple[str, str]]] = {}
    for key, entry in revisions.items():
        verdict = str(entry.get("verdict"))
        if verdict in _WHY_WORDS:
            by.setdefault(verdict, []).append((key, str(entry.get("reason") or "")))
    parts = []
    for verdict, word in _WHY_WORDS.items():
        if verdict not in by:
            continue
        keys = [k for k, _ in by[verdict]]
        first = next((r for _, r in by[verdict] if r), "")
        others = len({r for _, r in by[verdict] if r} - {first})
        said = first if len(first) <= _WHY_CHARS else first[: _WHY_CHARS - 1] + "…"
        more = f" (and {others} other reason{'s' if others > 1 else ''})" if others else ""
        where = f"{word} at {', '.join(keys)}"
        parts.append(f"{where}: {said}{more}" if said else where)
    return "; ".join(parts)


def _history(
    query: dict[str, Any], target: str, cells: Cells, root: Path, informational: bool = False
) -> list[dict[str, Any]]:
    """The row's state for every version of ``target`` with results, oldest first.

    Older versions' folders stay under ``results/<target>/`` as history; the same rule that
    makes the current state makes each older one, so a change between two versions is a
    change in what the cells said, not in how they were read.
    """
    versions = sorted({c.version for c in cells.of(target)}, key=version_key)
    out = []
    for version in versions:
        column = _target_status(query, target, version, cells, root, informational)
        out.append(
            {
                "version": version,
                "state": column["state"],
                "label": column["label"],
                "evidence": column.get("evidence") or [],
            }
        )
    return out


def _status(
    row: dict[str, Any],
    area: dict[str, Any],
    known: Known,
    cells: Cells,
    root: Path,
    verified: dict[str, Any],
) -> dict[str, Any]:
    spec = row.get("status") or {}
    notes = spec.get("notes") or {}
    current = cells.current()
    out: dict[str, Any] = {}
    query = spec.get("query")
    derive = spec.get("derive")
    for target in sorted(known.targets):
        if derive:
            column = derived_column(
                derive, target, current.get(target), cells, known.write_ops,
                lambda path: _display(path, root),
            )  # fmt: skip
        elif query:
            said = bool(spec.get("informational"))
            column = _target_status(query, target, current.get(target), cells, root, said)
            history = _history(query, target, cells, root, said)
            if history:
                column["history"] = history
        else:
            why = spec.get("unmeasured") or "this row has no exchange check"
            column = {
                "state": "not-run",
                "label": STATE_LABELS["not-run"],
                "reason": f"not run, because {why}",
            }
        note = notes.get(target)
        if isinstance(note, dict):
            column |= {
                "note": note.get("text"),
                "note_version": note.get("version"),
                "note_state": note.get("state"),
            }
        out[target] = column
    for impl in known.implementations().resolve(area, "")[0]:
        cited = (spec.get("cited") or {}).get(impl.id)
        if cited is None:
            out[impl.id] = {
                "state": "cited",
                "label": STATE_LABELS["cited"],
                "cited_state": "unknown",
                "reason": f"not run, because {impl.why_not_run}; no citation for this row",
            }
            continue
        out[impl.id] = {
            "state": "cited",
            "label": STATE_LABELS["cited"],
            "cited_state": cited["state"],
            "note": cited.get("note"),
            "reason": f"not run, because {impl.why_not_run}",
            "sources": [_source(s, verified) for s in cited.get("sources") or []],
        }
    return out


def _source(entry: Any, verified: dict[str, Any]) -> dict[str, Any]:
    ref = entry if isinstance(entry, str) else entry.get("cite")
    result = verified.get(ref)
    out: dict[str, Any] = {"ref": ref}
    if isinstance(entry, dict):
        out |= {k: entry[k] for k in ("context", "contradicted_by", "note") if k in entry}
    if result is None:
        return out | {"status": "mismatch", "message": "unparseable citation"}
    return out | {
        "status": result.status,
        "message": result.message,
        "link": result.link,
        "provenance": result.provenance,
        "open_question": result.open_question,
    }


def compute(
    files: list[Path] | None = None,
    known: Known | None = None,
    results: Path | None = None,
    citations: Report | None = None,
) -> dict[str, Any]:
    """Lint and compute every area; the returned document is what ``rows.json`` holds.

    ``citations`` is the run's verified report; without it the citations are verified here.
    """
    known = known or gather()
    root = results or results_dir()
    cells = read_cells(root, known.pinned)
    areas: list[dict[str, Any]] = []
    parsed: list[tuple[str, dict[str, Any]]] = []
    issues: list[Issue] = []
    implementations: dict[str, dict[str, Any]] = {}
    current = cells.current()
    for target, data in sorted(known.targets.items()):
        implementations[target] = {
            "id": target,
            "name": str(data.get("name") or target),
            "kind": "run",
            "version": current.get(target),
        }
    for linted in lint_areas(files, known, citations):
        path, area, verified = linted.path, linted.area, linted.verified
        issues += linted.issues
        if area is None or schema_issues(area, path.name):
            continue  # the issues say what to fix; computing a malformed file would guess
        parsed.append((path.name, area))
        for impl in known.implementations().resolve(area, path.name)[0]:
            implementations[impl.id] = impl.as_row()
        rows = []
        for row in area.get("rows") or []:
            status = _status(row, area, known, cells, root, verified)
            for target, column in status.items():
                if target in known.targets:
                    issues += note_issues(path.name, row["id"], target, column)
            rows.append(
                {
                    "id": row["id"],
                    "difference": row["difference"],
                    "labels": row["labels"],
                    "value": row["value"],
                    "effort": row["effort"],
                    "risk": row["risk"],
                    **{k: render(row[k], cells, known) for k in PROSE},
                    "where": compute_where(
                        row, area_diff(known.diff, area), known.missing.get("diff")
                    ),
                    "status_query": (row.get("status") or {}).get("query"),
                    "status": status,
                    "sources": [_source(s, verified) for s in row.get("sources") or []],
                }
            )
        areas.append(
            {
                "area": area["area"],
                "title": area["title"],
                "summary": area["summary"],
                "file": path.name,
                "rows": rows,
            }
        )
    # every graded failing check of a current cell shows in some row (needs the cells)
    issues += lint_findings(parsed, cells, scenario_sides())
    # every pass of a current cell rests on a check that could have failed
    issues += lint_earned(cells, known.grades, wire_checks())
    return {
        "format": 1,
        "generated_by": "mcp-compare rows",
        "spec_commit": (known.diff or {}).get("spec_commit"),
        "revisions": (known.diff or {}).get("revisions"),
        "implementations": list(implementations.values()),
        "areas": areas,
        "issues": [i.as_dict() for i in issues],
        "broken_cells": cells.broken,
        "missing_inputs": known.missing,
    }
