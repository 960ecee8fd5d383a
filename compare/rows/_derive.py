"""Derived rows: one observed word per server, read from the enforcement cells' probes.

Some rows are not one check's verdict but a reading of many: "how does this server use
roots" is answered by which of its file tools were refused outside the roots, whether it
asked for roots at all, and whether a second root was honoured. The row names its
categories and their conditions in data (``status.derive`` in the area file); this module
computes, once for every such row, the few facts those conditions test, from the current
version's cells, and picks the first category whose condition holds. Nothing is typed by
hand: no cell gives "not run, because …", and facts no category fits are shown as such.

The facts (the only words a condition may test, ``FACTS``):

- ``asked``: the server asked for roots before its probes in every enforcement cell (a
  check there named ``never-asked`` says it had not);
- ``adopted``: no enforcement cell shows it refusing a declared root that lies outside its
  start-up folder (a check there named ``not-adopted`` says it kept its own folder instead);
- ``outside_reads`` / ``outside_writes``: what the probes at places expected refused came to,
  for read-like operations and for the ones the scenario marks ``writes``: ``refused``
  (all), ``allowed`` (all), ``mixed`` or ``none`` (no such probe answered);
- ``first_root`` / ``second_root``: the outcome of the several-roots scenario's two checks
  (``allowed``, ``refused``, another outcome's name, or ``absent`` with no such cell).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from compare.rows._cells import Cell, Cells
from compare.rows._state import STATE_LABELS

#: Every fact a category's condition may name, with the values it can take.
FACTS: dict[str, tuple[Any, ...]] = {
    "asked": (True, False),
    "adopted": (True, False),
    "outside_reads": ("refused", "allowed", "mixed", "none"),
    "outside_writes": ("refused", "allowed", "mixed", "none"),
    "first_root": ("allowed", "refused", "absent"),
    "second_root": ("allowed", "refused", "absent"),
}
#: Cells that cannot speak for a derived row (the same words the query columns count apart).
_DOUBT = ("error", "unstable", "not-run")


def _split(results: Counter[str]) -> str:
    """refused / allowed / mixed / none for the probe results of one kind of operation."""
    judged = {k: v for k, v in results.items() if k in ("allowed", "refused") and v}
    if not judged:
        return "none"
    return next(iter(judged)) if len(judged) == 1 else "mixed"


def server_facts(
    enforcement: list[Cell], several: list[Cell], spec: dict[str, Any], writes: set[str]
) -> dict[str, Any]:
    """The facts of one server from its usable cells (see the module docstring)."""
    step = spec.get("step")
    reads: Counter[str] = Counter()
    wrote: Counter[str] = Counter()
    asked = adopted = True
    for cell in enforcement:
        said = {c.get("outcome") for c in cell.checks.values()}
        asked = asked and "never-asked" not in said
        adopted = adopted and "not-adopted" not in said
        for probe in cell.probes:
            if probe.get("expect") != "refused" or (step and probe.get("step") != step):
                continue
            kind = wrote if probe.get("operation") in writes else reads
            kind[str(probe.get("result"))] += 1
    facts: dict[str, Any] = {
        "asked": asked,
        "adopted": adopted,
        "outside_reads": _split(reads),
        "outside_writes": _split(wrote),
        "counts": {"reads": dict(sorted(reads.items())), "writes": dict(sorted(wrote.items()))},
    }
    for key, check in (("first_root", spec.get("first")), ("second_root", spec.get("second"))):
        said = {str(c.checks[check].get("outcome")) for c in several if check in c.checks}
        facts[key] = "absent" if not said else said.pop() if len(said) == 1 else "mixed"
    return facts


def _holds(condition: dict[str, Any], facts: dict[str, Any]) -> bool:
    for name, wanted in condition.items():
        allowed = wanted if isinstance(wanted, list) else [wanted]
        if facts.get(name) not in allowed:
            return False
    return True


def pick(categories: list[dict[str, Any]], facts: dict[str, Any]) -> dict[str, Any] | None:
    """The first category one of whose ``when`` conditions holds, or None."""
    for category in categories:
        if any(_holds(c, facts) for c in category.get("when") or []):
            return category
    return None


def _said(facts: dict[str, Any], cells: int) -> str:
    counts = facts["counts"]

    def tally(kind: str) -> str:
        c = counts[kind]
        return ", ".join(f"{v} {k}" for k, v in c.items()) or "none answered"

    asked = "asked for roots" if facts["asked"] else "did not ask for roots before its probes"
    if facts["asked"] and not facts["adopted"]:
        asked += " but adopted none of them (a root outside its start-up folder was refused)"
    text = (
        f"from {cells} cells: {asked}; outside the roots, read-like probes {tally('reads')};"
        f" write probes {tally('writes')}"
    )
    if facts["second_root"] != "absent":
        text += f"; first root {facts['first_root']}, second root {facts['second_root']}"
    return text


def derived_column(
    derive: dict[str, Any],
    target: str,
    version: str | None,
    cells: Cells,
    writes: dict[str, set[str]],
    display: Any,
) -> dict[str, Any]:
    """The derived row's column for ``target``: observed with the category, or not run."""
    source = derive.get("from") or {}
    enf, sev = source.get("enforcement") or {}, source.get("several") or {}

    def mine(scenario: Any) -> list[Cell]:
        return [
            c for c in cells.cells
            if c.target == target and c.version == version and c.scenario == scenario
        ]  # fmt: skip

    found = mine(enf.get("scenario"))
    usable = [c for c in found if c.verdict not in _DOUBT]
    if version is None or not usable:
        why = (
            f"there are no results for {target} at all"
            if version is None
            else f"{target} {version} has no usable {enf.get('scenario')} cell"
            + (f" ({len(found)} ended in error, unstable or not run)" if found else "")
        )
        out = {
            "state": "not-run",
            "label": STATE_LABELS["not-run"],
            "reason": f"not run, because {why}",
        }
        return out | ({"version": version} if version else {})
    several = [c for c in mine(sev.get("scenario")) if c.verdict not in _DOUBT]
    facts = server_facts(
        usable, several, {**enf, **sev}, writes.get(str(enf.get("scenario")), set())
    )
    category = pick(list(derive.get("categories") or []), facts)
    shown = {k: v for k, v in facts.items() if k != "counts"}
    evidence = [display(c.path) for c in usable + several]
    if category is None:
        return {
            "state": "observed", "label": "no category fits", "value": None,
            "reason": f"{_said(facts, len(usable) + len(several))}; no category's condition"
            f" holds for {shown}",
            "version": version, "evidence": evidence, "facts": shown,
        }  # fmt: skip
    return {
        "state": "observed",
        "label": str(category["label"]),
        "value": str(category["id"]),
        "reason": f"{category['label']}: {_said(facts, len(usable) + len(several))}",
        "version": version,
        "evidence": evidence,
        "facts": shown,
    }


def write_operations(scenarios: list[Any]) -> dict[str, set[str]]:
    """Scenario id → the probe operations its data marks ``writes`` (the rest read)."""
    out: dict[str, set[str]] = {}
    for scenario in scenarios:
        ops = (scenario.raw.get("probe") or {}).get("operations") or {}
        out[scenario.id] = {name for name, op in ops.items() if op.get("writes")}
    return out
