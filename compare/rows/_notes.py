"""Authored notes on run columns, held to the facts they describe.

A note (``status.notes.<target>``) is prose about one client version in one state:
``{version, state, text}``. Both halves can go stale without any edit to the note — a new
pinned version in ``compare/exchange/targets/<id>.yaml``, or new verdicts — so each is
checked: the version against the pinned one whenever the area is linted (an error: the
fix is a data edit in the same commit as the version bump), the state against the computed
column whenever the rows are computed (a warning, as verdicts change without a data edit).
"""

from __future__ import annotations

from typing import Any

from compare.rows._context import Known
from compare.rows._load import Issue


def lint_note_versions(rid: str, status: dict[str, Any], file: str, known: Known) -> list[Issue]:
    """Notes for unknown targets, or for a version that is not the target's pinned one."""
    issues = []
    for target, note in (status.get("notes") or {}).items():
        where = f"{rid}/status/notes/{target}"
        if "targets" in known.missing:
            tip = "build the exchange target files first"
            msg = f"cannot check target {target!r}, because {known.missing['targets']}"
            issues.append(Issue(file, f"{rid}/status/notes", msg, tip))
            continue
        if target not in known.targets:
            tip = "use a target id from compare/exchange/targets/: " + ", ".join(known.targets)
            issues.append(Issue(file, where, f"note for unknown target {target!r}", tip))
            continue
        if "pinned" in known.missing:
            msg = f"cannot check the version of the note, because {known.missing['pinned']}"
            issues.append(Issue(file, where, msg, "fix the target files first"))
            continue
        pinned = known.pinned.get(target)
        version = note.get("version") if isinstance(note, dict) else None
        if pinned is None:
            tip = "notes describe a pinned client version; this target pins no package"
            issues.append(Issue(file, where, f"{target} has no pinned version", tip))
        elif version != pinned:
            msg = f"note describes {target} {version}, but the pinned version is {pinned}"
            tip = (
                f"re-read {target} {pinned}'s cells, then update the note's text, state and "
                f"version to {pinned} (or remove the note)"
            )
            issues.append(Issue(file, where, msg, tip))
    return issues


def note_issues(file: str, rid: str, target: str, column: dict[str, Any]) -> list[Issue]:
    """Warnings about a computed column and its note: a partial column without one, a note
    on a column nothing measured, a note written for another state, and error and unstable
    columns."""
    where = f"{rid}/status/{target}"
    state = column["state"]
    issues = []
    if state == "error":
        msg = f"computed status is error: {column['label']}"
        tip = "re-run them: `mcp-compare run` re-runs every cell that ended in error"
        issues.append(Issue(file, where, msg, tip, severity="warning"))
    if state == "unstable":
        msg = f"computed status is unstable: {column['label']}"
        tip = (
            "open the cell pages: each play's transcript shows what changed between plays "
            "(a race of the program, of a chain, or of the scenario's timing)"
        )
        issues.append(Issue(file, where, msg, tip, severity="warning"))
    if state == "partial" and not column.get("note"):
        tip = f"add status.notes.{target} (version, state: partial, text): what works, what not"
        msg = "computed status is partial and has no note"
        issues.append(Issue(file, where, msg, tip, severity="warning"))
    wrote = column.get("note_state")
    if column.get("note") is None or wrote is None or wrote == state:
        return issues
    if state == "not-run":
        msg = f"note describes {wrote} behaviour, but the column is not run: nothing backs it"
        tip = f"run the cells (mcp-compare run -t {target}), or remove the note"
    else:
        msg = f"note was written for state {wrote}, but the computed state is {state}"
        tip = "re-read the cells behind the column, then rewrite the note and its state"
    issues.append(Issue(file, f"{where}/note", msg, tip, severity="warning"))
    return issues
