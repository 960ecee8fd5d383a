"""Facts in a row's prose, rendered from the cells instead of written by hand.

Issue 36 item 6: row prose said things its cells contradicted ("one CLI answers an empty
list" over three implementations that do; "the other servers measured list no file tools"
over five that were not named). A sentence about who does what now carries a placeholder
the rows stage fills from the current cells, so it is true of them by construction:

- ``{who: SCENARIO/CHECK = OUTCOME[|OUTCOME…]}`` — the names of the run implementations
  whose current cells of that scenario gave the check one of those outcomes (at any revision
  and variant), as a list ("A, B and C"), or "none of the implementations run";
- ``{count: SCENARIO/CHECK = OUTCOME[|OUTCOME…]}`` — how many there are.

The lint holds every placeholder to a scenario, a check and outcomes that exist, and refuses
a run implementation named in the prose outside a placeholder: its name there could go stale
when its cells change, which is what the placeholder prevents. Cited implementations stay
nameable: what is said of them rests on their citations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from compare.rows._cells import Cells
from compare.rows._context import Known
from compare.rows._load import Issue

#: The row fields that say who does what (the name lint reads these; the rest describe the
#: spec, the cost and the risk, where an SDK's API may be named as a fact of its source).
CLAIMS = ("what", "status_detail", "detail")
#: The row fields whose prose may carry facts (the rows stage renders each).
PROSE = (
    "what",
    "where_detail",
    "status_detail",
    "value_detail",
    "effort_detail",
    "risk_detail",
    "detail",
)

_PLACEHOLDER = re.compile(
    r"\{(?P<kind>who|count):\s*(?P<scenario>[a-z0-9-]+)/(?P<check>[a-z0-9-]+)\s*=\s*"
    r"(?P<outcomes>[a-z0-9-]+(?:\s*\|\s*[a-z0-9-]+)*)\s*\}"
)
#: Something that looks like a placeholder but does not parse (a typo must not print raw).
_LOOSE = re.compile(r"\{\s*(?:who|count)\s*:[^}]*\}")
NOBODY = "none of the implementations run"


@dataclass(frozen=True)
class Fact:
    kind: str
    scenario: str
    check: str
    outcomes: frozenset[str]


def facts(text: str) -> list[Fact]:
    """The placeholders of ``text``, in order."""
    return [
        Fact(
            m["kind"],
            m["scenario"],
            m["check"],
            frozenset(o.strip() for o in m["outcomes"].split("|")),
        )
        for m in _PLACEHOLDER.finditer(text)
    ]


def _names(known: Known) -> dict[str, set[str]]:
    """Run target id → the words prose would name it by: its id, its display name, the name
    without its bracketed mode ("rust-mcp-filesystem" of "rust-mcp-filesystem
    (--enable-roots)") and its package's name."""
    out: dict[str, set[str]] = {}
    for tid, raw in known.targets.items():
        name = str(raw.get("name") or tid)
        package = raw.get("package") if isinstance(raw.get("package"), dict) else {}
        said = {tid, name, name.split(" (", 1)[0].strip()}
        if isinstance(package, dict) and package.get("name"):
            said.add(str(package["name"]))
        out[tid] = {s for s in said if len(s) > 3}
    return out


def lint_facts(area: dict[str, Any], file: str, known: Known) -> list[Issue]:
    """Placeholders that name nothing real, and run implementations named outside one."""
    issues: list[Issue] = []
    names = _names(known)
    for row in area.get("rows") or []:
        rid = row.get("id", "?")
        for key in PROSE:
            text = row.get(key)
            if not isinstance(text, str):
                continue
            where = f"{rid}/{key}"
            bare = _PLACEHOLDER.sub("", text)
            for loose in _LOOSE.findall(bare):
                issues.append(
                    Issue(
                        file,
                        where,
                        f"{loose!r} is not a fact placeholder",
                        "write {who: SCENARIO/CHECK = OUTCOME|OUTCOME} or {count: …}",
                    )
                )
            for fact in facts(text):
                issues += _lint_fact(fact, file, where, known)
            for tid, words in sorted(names.items()) if key in CLAIMS else ():
                for said in sorted(words):
                    if re.search(rf"(?<![\w-]){re.escape(said)}(?![\w-])", bare, re.IGNORECASE):
                        issues.append(
                            Issue(
                                file,
                                where,
                                f"names the run implementation {said!r} in prose, where its"
                                " cells can change under the sentence",
                                "say who through a placeholder rendered from the cells, e.g."
                                " {who: SCENARIO/CHECK = OUTCOME}, or move the remark into"
                                f" status.notes.{tid} (held to its state)",
                            )
                        )
    return issues


def _lint_fact(fact: Fact, file: str, where: str, known: Known) -> list[Issue]:
    if "scenarios" in known.missing:
        return []
    checks = known.outcomes.get(fact.scenario)
    if checks is None:
        return [
            Issue(
                file,
                where,
                f"placeholder names unknown scenario {fact.scenario!r}",
                "use a scenario id of compare/exchange/scenarios/",
            )
        ]
    outcomes = checks.get(fact.check)
    if outcomes is None:
        return [
            Issue(
                file,
                where,
                f"{fact.scenario} has no check {fact.check!r}",
                "known checks: " + ", ".join(sorted(checks)),
            )
        ]
    unknown = sorted(fact.outcomes - outcomes)
    if unknown:
        return [
            Issue(
                file,
                where,
                f"{fact.scenario}/{fact.check} has no outcome {', '.join(unknown)}",
                "its outcomes: " + ", ".join(sorted(outcomes)),
            )
        ]
    return []


def _display(known: Known) -> dict[str, str]:
    """Run target id → its display name."""
    return {tid: str(raw.get("name") or tid) for tid, raw in known.targets.items()}


def who(fact: Fact, cells: Cells, known: Known) -> list[str]:
    """The display names of the run implementations the fact is true of, sorted."""
    names = _display(known)
    found = {
        cell.target
        for cell in cells.cells
        if cell.current
        and cell.target in names
        and cell.scenario == fact.scenario
        and (cell.checks.get(fact.check) or {}).get("outcome") in fact.outcomes
    }
    return sorted((names[t] for t in found), key=str.casefold)


def _listed(names: list[str]) -> str:
    if not names:
        return NOBODY
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


def render(text: str, cells: Cells, known: Known) -> str:
    """``text`` with each placeholder replaced by what the current cells say."""

    def fill(match: re.Match[str]) -> str:
        fact = facts(match[0])[0]
        found = who(fact, cells, known)
        return str(len(found)) if fact.kind == "count" else _listed(found)

    return _PLACEHOLDER.sub(fill, text)
