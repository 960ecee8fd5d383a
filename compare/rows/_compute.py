"""Compute the rows: where each difference exists (from the diff) and what each
implementation does (from the verdicts), beside the authored judgement and prose.

Nothing here is typed by hand: a ``where`` column is read from ``build/diff.json`` and a
status column from the current version's cells. No cell means "not run, because …" —
never a pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare._paths import results_dir
from compare.rows._cells import Cell, Cells, read_cells
from compare.rows._context import Known, gather
from compare.rows._lint import lint_areas
from compare.rows._load import Issue, query_checks, schema_issues

#: Symbol-free state names (the site maps them to words and styles).
STATE_LABELS = {
    "supported": "supported",
    "partial": "partial",
    "not-supported": "not supported",
    "observed": "observed (informational)",
    "not-run": "not run",
    "error": "harness error",
    "cited": "cited, not run",
}


def _where(row: dict[str, Any], diff: dict[str, Any] | None, reason: str | None) -> dict[str, Any]:
    spec = row.get("where") or {}
    items: list[str] = list(spec.get("items") or [])
    if diff is None:
        return {"items": items, "computed": False, "reason": f"not computed, because {reason}"}
    changes = [c for c in diff.get("changes") or [] if isinstance(c, dict)]
    deprecation = diff.get("deprecation") or {}
    per_rev: dict[str, Any] = {}
    for rev in diff["revisions"]:
        states: dict[str, Any] = {}
        for item in items:
            entry = (diff["items"].get(item) or {}).get("revisions", {}).get(rev)
            if item not in diff["items"]:
                states[item] = {"state": "unknown", "reason": "item not in the diff"}
                continue
            present = bool(entry and entry.get("present"))
            own = [c for c in changes if c.get("item") == item and c.get("revision") == rev]
            below = [
                c
                for c in changes
                if str(c.get("item", "")).startswith(f"{item}.") and c.get("revision") == rev
            ]
            kinds = {str(c.get("change")) for c in own}
            state = "present" if present else "absent"
            if "added" in kinds and present:
                state = "added"
            elif "removed" in kinds and not present:
                state = "removed"
            elif present and (own or below):
                state = "changed"  # an attribute of the item, or a field below it, changed
            states[item] = {
                "state": state,
                "present": present,
                "changes": [str(c.get("detail") or c.get("change")) for c in own + below],
                "source": entry.get("source") if entry else None,
                "line": entry.get("line") if entry else None,
            }
        known = [s for s in states.values() if "present" in s]
        summary = _summary([str(s["state"]) for s in known])
        cell: dict[str, Any] = {"state": summary, "items": states}
        dep = deprecation.get(rev) if isinstance(deprecation, dict) else None
        if spec.get("deprecation") and isinstance(dep, dict):
            cell["deprecated"] = bool(dep.get("deprecated"))
            cell["deprecation_source"] = {k: dep.get(k) for k in ("source", "line", "quote")}
        per_rev[rev] = cell
    return {"items": items, "computed": True, "revisions": per_rev}


def _summary(states: list[str]) -> str:
    """One word per revision for a row's items: absent, removed, added, changed or present."""
    present = [s for s in states if s not in {"absent", "removed"}]
    if not present:
        return "removed" if "removed" in states else "absent"
    if all(s == "added" for s in present):
        return "added"
    if any(s in {"added", "removed", "changed"} for s in states):
        return "changed"
    return "present"


@dataclass
class _Agg:
    revisions: dict[str, Any] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)


#: Which check speaks for a cell when a row names several: the worst one.
_SEVERITY = {"informational": 0, "pass": 1, "non-strict": 2, "fail": 3, "error": 4}


def _cell_key(cell: Cell, with_variant: bool) -> str:
    return f"{cell.revision}~{cell.variant}" if with_variant and cell.variant else cell.revision


def _display(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root.parent))
    except ValueError:
        return str(path)


def _target_status(
    query: dict[str, Any], target: str, version: str | None, cells: Cells, root: Path
) -> dict[str, Any]:
    scenario, checks = query["scenario"], query_checks(query)
    variant, revisions = query.get("variant"), query.get("revisions")
    what = f"{scenario}/{'+'.join(checks)}" + (f" (variant {variant})" if variant else "")
    if version is None:
        history = sorted({c.version for c in cells.cells if c.target == target})
        why = (
            f"not run, because {target} has results only for versions that are not current"
            f" ({', '.join(history)})"
            if history
            else f"not run, because there are no results for {target} at all"
        )
        return {"state": "not-run", "label": STATE_LABELS["not-run"], "reason": why}
    mine = [
        c
        for c in cells.cells
        if c.target == target
        and c.version == version
        and c.scenario == scenario
        and (variant is None or c.variant == variant)
        and (not revisions or c.revision in revisions)
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
    # a fail on another is "partial"); each cell shows its worst check.
    verdicts: set[str] = set()
    for cell in sorted(mine, key=lambda c: (c.revision, c.variant or "")):
        entry: dict[str, Any] = {"cell": _display(cell.path, root)}
        got = {one: cell.checks.get(one) for one in checks}
        found = [(one, check) for one, check in got.items() if check is not None]
        missing = [one for one, check in got.items() if check is None]
        if cell.verdict == "not-run":
            entry |= {"verdict": "not-run", "reason": cell.reason}
        elif missing:
            entry |= {"verdict": "not-run", "reason": f"the cell has no check {missing[0]}"}
        else:
            name, worst = max(found, key=lambda pair: _SEVERITY.get(str(pair[1]["verdict"]), 0))
            verdicts |= {str(check["verdict"]) for _, check in found}
            said = worst.get("reason")
            entry |= {
                "verdict": worst["verdict"],
                "observed": worst.get("observed"),
                "expected": worst.get("expected"),
                "reason": f"{name}: {said}" if len(checks) > 1 else said,
                "evidence_lines": worst.get("evidence") or [],
            }
        verdicts.add(str(entry["verdict"]))
        agg.revisions[_cell_key(cell, several_variants)] = entry
        agg.evidence.append(entry["cell"])
    judged = verdicts - {"not-run", "error"}
    reason: str | None = None
    if not judged:
        state = "error" if "error" in verdicts else "not-run"
        reasons = sorted({str(e.get("reason")) for e in agg.revisions.values()})
        reason = f"not run, because {'; '.join(reasons)}"
    elif judged == {"informational"}:
        state = "observed"
    elif judged <= {"pass", "informational"}:
        state = "supported"
    elif judged <= {"fail", "informational"}:
        state = "not-supported"
    else:
        state = "partial"
    out: dict[str, Any] = {
        "state": state,
        "label": STATE_LABELS[state],
        "version": version,
        "revisions": agg.revisions,
        "evidence": agg.evidence,
    }
    if reason:
        out["reason"] = reason
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
    for target in sorted(known.targets):
        if query:
            column = _target_status(query, target, current.get(target), cells, root)
        else:
            why = spec.get("unmeasured") or "this row has no exchange check"
            column = {
                "state": "not-run",
                "label": STATE_LABELS["not-run"],
                "reason": f"not run, because {why}",
            }
        if target in notes:
            column["note"] = notes[target]
        out[target] = column
    for impl in area.get("implementations") or []:
        cited = (spec.get("cited") or {}).get(impl["id"])
        if cited is None:
            out[impl["id"]] = {
                "state": "cited",
                "label": STATE_LABELS["cited"],
                "cited_state": "unknown",
                "reason": f"not run, because {impl['why_not_run']}; no citation for this row",
            }
            continue
        out[impl["id"]] = {
            "state": "cited",
            "label": STATE_LABELS["cited"],
            "cited_state": cited["state"],
            "note": cited.get("note"),
            "reason": f"not run, because {impl['why_not_run']}",
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


_DETAILS = (
    "what",
    "where_detail",
    "status_detail",
    "value_detail",
    "effort_detail",
    "risk_detail",
    "detail",
)


def compute(
    files: list[Path] | None = None, known: Known | None = None, results: Path | None = None
) -> dict[str, Any]:
    """Lint and compute every area; the returned document is what ``rows.json`` holds."""
    known = known or gather()
    root = results or results_dir()
    cells = read_cells(root, known.pinned)
    areas: list[dict[str, Any]] = []
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
    for linted in lint_areas(files, known):
        path, area, verified = linted.path, linted.area, linted.verified
        issues += linted.issues
        if area is None or schema_issues(area, path.name):
            continue  # the issues say what to fix; computing a malformed file would guess
        for impl in area.get("implementations") or []:
            implementations[impl["id"]] = {
                "id": impl["id"],
                "name": impl["name"],
                "kind": "cited",
                "version": None,
                "repository": impl.get("repository"),
                "why_not_run": impl["why_not_run"],
            }
        rows = []
        for row in area.get("rows") or []:
            status = _status(row, area, known, cells, root, verified)
            for target, column in status.items():
                if column["state"] == "partial" and not column.get("note"):
                    tip = f"add status.notes.{target}: what works and what does not"
                    issues.append(
                        Issue(
                            path.name,
                            f"{row['id']}/status/{target}",
                            "computed status is partial and has no note",
                            tip,
                            # A verdict can change with a new client version and no data edit;
                            # flag it loudly, but let the pipeline go on (`rows --strict` fails).
                            severity="warning",
                        )
                    )
            rows.append(
                {
                    "id": row["id"],
                    "difference": row["difference"],
                    "labels": row["labels"],
                    "value": row["value"],
                    "effort": row["effort"],
                    "risk": row["risk"],
                    **{k: row[k] for k in _DETAILS},
                    "where": _where(row, known.diff, known.missing.get("diff")),
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
