"""The "where it exists" column: which schema facts of ``build/diff.json`` a row shows, per
revision, and the lint that holds the column to what the row's own text says.

A row lists the diff ``items`` it is about; by default the column follows them, fields below
included. That says too much when an item also carries other differences (ROOT-03 is about
the 2026-07-28 embedding, yet ``ListRootsRequest`` exists since 2024-11-05), so a row may
select its ``facts`` instead, each a query into facts the diff already records:

* ``{item: X}`` — X as the items follow it (its own and its fields' changes show as changed);
* ``{item: X, presence: true}`` — only whether X exists;
* ``{item: X, role: embedder}`` — X exists *in that role* (the diff's ``role``; ``embedder``
  means it carries a roots message inside it);
* ``{item: X, property: K}`` — X defines the property K (a key no schema defines is absent in
  every revision, which is the fact such a row states).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from compare.rows._context import Known
from compare.rows._load import Issue

_CHANGED = {"added", "removed", "changed"}


def _item_state(item: str, rev: str, diff: dict[str, Any]) -> dict[str, Any]:
    """An item as the row's items follow it: presence plus every change at or below it."""
    if item not in diff["items"]:
        return {"state": "unknown", "reason": "item not in the diff"}
    entry = diff["items"][item].get("revisions", {}).get(rev)
    changes = [c for c in diff.get("changes") or [] if isinstance(c, dict)]
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
    return {
        "state": state,
        "present": present,
        "changes": [str(c.get("detail") or c.get("change")) for c in own + below],
        "source": entry.get("source") if entry else None,
        "line": entry.get("line") if entry else None,
    }


def fact_label(fact: dict[str, Any]) -> str:
    """How a fact is named in rows.json and in lint messages."""
    if fact.get("sentence"):
        return f"sentence {fact['sentence']}"
    item = str(fact["item"])
    if fact.get("property"):
        return f"{item} defines {fact['property']}"
    if fact.get("role"):
        return f"{item} as {fact['role']}"
    return f"{item} exists" if fact.get("presence") else item


def _sentence_holds(name: str, rev: str) -> tuple[bool, dict[str, Any]]:
    """Whether the spec sentence ``name`` holds at ``rev`` (its window), and where it sits on
    the pinned page there (the cited lines ``cite --check`` verifies); an unknown name holds
    nowhere (the lint names it)."""
    from compare.judge._sentences import load_sentences
    from compare.pin import release_order

    sentence = load_sentences().get(name)
    if sentence is None:
        return False, {}
    start, until = sentence.window.get("from"), sentence.window.get("until")
    order = release_order(rev)
    inside = order >= release_order(str(start)) and (
        until is None or order <= release_order(str(until))
    )
    cited = [r for r in sentence.at if release_order(r) <= order]
    if not inside or not cited:
        return False, {}
    path, _, lines = sentence.cite(max(cited, key=release_order)).rpartition(":")
    return True, {"source": path, "line": lines}


def _holds(fact: dict[str, Any], rev: str, diff: dict[str, Any]) -> tuple[bool, Any]:
    """Whether the fact is true of ``rev``'s schema, and the diff record that says so."""
    if fact.get("sentence"):
        return _sentence_holds(str(fact["sentence"]), rev)
    item = str(fact["item"])
    name = f"{item}.{fact['property']}" if fact.get("property") else item
    entry = (diff["items"].get(name) or {}).get("revisions", {}).get(rev) or {}
    present = bool(entry.get("present"))
    if fact.get("role"):
        present = present and entry.get("role") == fact["role"]
    return present, entry


def _fact_states(fact: dict[str, Any], diff: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per revision: present/absent, or added/removed against the previous revision."""
    label = fact_label(fact)
    if not any(fact.get(k) for k in ("presence", "role", "property", "sentence")):
        return {rev: _item_state(label, rev, diff) for rev in diff["revisions"]}
    out: dict[str, dict[str, Any]] = {}
    before: bool | None = None
    for rev in diff["revisions"]:
        now, entry = _holds(fact, rev, diff)
        state = "present" if now else "absent"
        if before is not None and now != before:
            state = "added" if now else "removed"
        out[rev] = {
            "state": state,
            "present": now,
            "source": entry.get("source"),
            "line": entry.get("line"),
        }
        before = now
    return out


def summary(states: list[str]) -> str:
    """One word per revision for a row's items: absent, removed, added, changed or present."""
    present = [s for s in states if s not in {"absent", "removed"}]
    if not present:
        return "removed" if "removed" in states else "absent"
    if all(s == "added" for s in present):
        return "added"
    if any(s in _CHANGED for s in states):
        return "changed"
    return "present"


def compute_where(
    row: dict[str, Any], diff: dict[str, Any] | None, reason: str | None
) -> dict[str, Any]:
    """The row's where-column: per revision a summary state, its items and (when the row
    selects them) its facts, and the deprecation marker when the row asks for it."""
    spec = row.get("where") or {}
    items: list[str] = list(spec.get("items") or [])
    facts: list[dict[str, Any]] = [f for f in spec.get("facts") or [] if isinstance(f, dict)]
    if diff is None:
        return {"items": items, "computed": False, "reason": f"not computed, because {reason}"}
    deprecation = diff.get("deprecation") or {}
    by_fact = {fact_label(f): _fact_states(f, diff) for f in facts}
    per_rev: dict[str, Any] = {}
    for rev in diff["revisions"]:
        states = {item: _item_state(item, rev, diff) for item in items}
        shown = {label: per[rev] for label, per in by_fact.items()} if facts else states
        known = [str(s["state"]) for s in shown.values() if "present" in s]
        cell: dict[str, Any] = {"state": summary(known), "items": states}
        if facts:
            cell["facts"] = shown
        dep = deprecation.get(rev) if isinstance(deprecation, dict) else None
        if spec.get("deprecation") and isinstance(dep, dict):
            cell["deprecated"] = bool(dep.get("deprecated"))
            cell["deprecation_source"] = {k: dep.get(k) for k in ("source", "line", "quote")}
        per_rev[rev] = cell
    out: dict[str, Any] = {"items": items, "computed": True, "revisions": per_rev}
    if facts:
        out["facts"] = list(by_fact)
    return out


#: Words in a row's difference (or its labels) that claim a change the column must show.
_CLAIMS = {
    "removed": re.compile(r"\b(remov\w*|drops?|dropped|gone)\b", re.I),
    "deprecated": re.compile(r"\bdeprecat\w*", re.I),
    "added": re.compile(r"\b(adds?|added|introduc\w*|embeds?|embedded|new in|only inside)\b", re.I),
}
_UNDEFINED = re.compile(r"\b(no schema defines|not defined|undefined|defines no)\b", re.I)


def _shows(claim: str, cell: dict[str, Any]) -> bool:
    if claim == "deprecated":
        return bool(cell.get("deprecated"))
    shown = cell.get("facts") or cell.get("items") or {}
    return cell["state"] == claim or any(s.get("state") == claim for s in shown.values())


def _row_issues(
    row: dict[str, Any], file: str, revisions: list[str], where: dict[str, Any]
) -> Iterator[Issue]:
    rid, text = str(row.get("id")), str(row.get("difference") or "")
    cells: dict[str, dict[str, Any]] = where["revisions"]
    named = [rev for rev in revisions if re.search(rf"(?<![\d-]){re.escape(rev)}(?![\d-])", text)]
    tip = (
        "select the facts of this row's own difference in where.facts (presence, role, "
        "property; see area.schema.json), or correct the difference"
    )
    claims = [c for c, pattern in _CLAIMS.items() if pattern.search(text)]
    for claim in claims:
        for rev in named or []:
            if not _shows(claim, cells[rev]):
                msg = f"the difference says {claim} in {rev}, but the where-column shows "
                msg += f"{cells[rev]['state']} there"
                yield Issue(file, f"{rid}/where", msg, tip)
        if not named and not any(_shows(claim, c) for c in cells.values()):
            msg = f"the difference says {claim}, but no revision of the where-column shows it"
            yield Issue(file, f"{rid}/where", msg, tip)
    for label in row.get("labels") or []:
        if label in _CLAIMS and not any(_shows(label, c) for c in cells.values()):
            msg = f"label {label!r}, but no revision of the where-column shows it"
            yield Issue(file, f"{rid}/where", msg, tip)
    if claims and named:
        first = revisions.index(named[0])
        for rev in revisions[:first]:
            cell = cells[rev]
            if cell["state"] in _CHANGED or cell.get("deprecated"):
                shown = "deprecated" if cell.get("deprecated") else cell["state"]
                msg = f"the where-column shows {shown} in {rev}, before the {named[0]} the "
                msg += "difference is about: it follows more than this row's difference"
                yield Issue(file, f"{rid}/where", msg, tip)
    if _UNDEFINED.search(text):
        for rev in revisions:
            if cells[rev]["state"] != "absent":
                msg = "the difference says no schema defines it, but the where-column shows "
                msg += f"{cells[rev]['state']} in {rev}"
                yield Issue(file, f"{rid}/where", msg, tip)


def lint_where_text(area: dict[str, Any], file: str, known: Known) -> list[Issue]:
    """Where-columns that contradict their row's difference or labels (needs the diff)."""
    diff = known.diff
    if diff is None:
        return []  # the item lint already says "cannot check …, because …"
    issues: list[Issue] = []
    for row in area.get("rows") or []:
        spec = row.get("where") if isinstance(row, dict) else None
        if not isinstance(spec, dict):
            continue
        names = list(spec.get("items") or []) + [
            f["item"] for f in spec.get("facts") or [] if isinstance(f, dict) and "item" in f
        ]
        if any(name not in diff["items"] for name in names):
            continue  # reported as "not in the diff"; the column would be a guess
        where = compute_where(row, diff, None)
        issues += _row_issues(row, file, list(diff["revisions"]), where)
    return issues
