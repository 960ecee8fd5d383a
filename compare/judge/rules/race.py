"""The symlink swap between check and use: how many raced reads came back from outside.

A ``race`` step (``peer/client/_fs.run_race``) sends a read through a link inside a root and,
while the call runs, renames over that link one pointing outside the roots. A server that
checks the path and then opens it again by name can be made to read the outside file; one
that opens what it checked cannot. The outside folder's files end with a marker line unique
in the cell (``play._fixture.folder_marker``), so each answer's **raw bytes** say which file
was read: no parsing, no trust in what the server says it did.

Bounded attempts can show the window open, never prove it shut: zero reached is reported as
"not reached in N attempts", with N.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from typing import Any

from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, rule
from compare.judge.rules.probes import read_probes
from compare.judge.rules.server import NO_INIT, handshake_failed, roots_requests
from compare.play._fixture import folder_marker

#: What one attempt came to, in the order the observed text lists them.
KINDS = ("outside", "inside", "refused", "no-answer")


def _race_step(ctx: Context) -> tuple[str, dict[str, Any]] | None:
    want = ctx.params.get("step")
    for step in ctx.plan.get("steps") or []:
        race = step.get("race") if isinstance(step, dict) else None
        if isinstance(race, dict) and (want is None or step.get("label") == want):
            return str(step.get("label") or "race"), race
    return None


def _marker(race: dict[str, Any], target: str) -> str:
    """The marker of the folder the link's ``target`` names (relative to the link's folder)."""
    folder = posixpath.normpath(posixpath.join(posixpath.dirname(str(race["link"])), target))
    return folder_marker(folder)


def _direct(ctx: Context, race: dict[str, Any]) -> str:
    """A probe that read the outside folder without any swap (``race.direct``: its place),
    named; "" when none did. With one, the race can show no check-then-use window."""
    place = race.get("direct")
    allowed = [p for p in read_probes(ctx) if p.place == place and p.result == "allowed"]
    return ", ".join(f"{p.operation}@{p.place} line {p.response}" for p in allowed[:3])


def attempts(ctx: Context, label: str, race: dict[str, Any]) -> list[tuple[str, list[int]]]:
    """(kind, evidence lines) for every attempt of the race step ``label``."""
    outside, inside = _marker(race, str(race["outside"])), _marker(race, str(race["inside"]))
    out: list[tuple[str, list[int]]] = []
    for _n, note in ctx.tx.notes:
        if note.get("event") != "race" or note.get("label") != label:
            continue
        request, response = note.get("request"), note.get("response")
        line = ctx.tx.by_n(response) if isinstance(response, int) else None
        lines = [n for n in (request, response) if isinstance(n, int)]
        if line is None or line.raw is None:
            out.append(("no-answer", lines))
        elif outside in line.raw:
            out.append(("outside", lines))
        elif inside in line.raw:
            out.append(("inside", lines))
        else:
            out.append(("refused", lines))
    return out


@rule(
    "symlink-race",
    (
        "reached",
        "not-reached",
        "direct",
        "never-asked",
        "unpaired",
        "no-file-tools",
        "no-answer",
        *NO_INIT,
    ),
    gate=handshake_failed,
    params={"step": Param("label", "the race step (default: the scenario's first)")},
)
def _symlink_race(ctx: Context) -> Outcome:
    """Count the raced reads whose answer holds the outside file's marker."""
    found = _race_step(ctx)
    if found is None:
        return Outcome("no-file-tools", "the scenario has no race step")
    label, race = found
    skipped = [
        note for _n, note in ctx.tx.notes
        if note.get("event") == "race-skipped" and note.get("label") == label
    ]  # fmt: skip
    got = attempts(ctx, label, race)
    if not got:
        why = skipped[0].get("why") if skipped else "no attempt was recorded"
        return Outcome("no-file-tools", f"no raced read ran: {why}")
    counts = Counter(kind for kind, _ in got)
    n = len(got)
    tally = ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k])
    sample = [line for _, lines in got[:4] for line in lines]
    hits = [line for kind, lines in got if kind == "outside" for line in lines][:8]
    # Decided before the count, so the outcome does not depend on how the race fell: a
    # folder a plain read reaches, or a server that never asked, leaves no window to find.
    direct = _direct(ctx, race)
    if direct:
        return Outcome(
            "direct",
            f"a plain read of the outside folder was allowed ({direct}), so no swap is needed"
            f" to reach it; {counts['outside']} of {n} raced reads returned its marker ({tally})",
            hits or sample,
        )
    first = min((x for _, lines in got for x in lines), default=0)
    if not any(x.n < first for x in roots_requests(ctx)):
        return Outcome(
            "never-asked",
            f"the server had not asked for roots before the race; {counts['outside']} of {n}"
            f" raced reads returned the outside file's marker ({tally})",
            hits or sample,
        )
    if counts["outside"]:
        return Outcome(
            "reached",
            f"{counts['outside']} of {n} raced reads returned the outside file's marker ({tally})",
            hits,
        )
    if counts["no-answer"] == n:
        return Outcome("no-answer", f"none of the {n} raced reads was answered")
    if not counts["inside"]:
        return Outcome(
            "unpaired",
            f"no raced read returned the inside file either ({tally}), so the reads never"
            " worked through the link and the race measured nothing",
            [line for _, lines in got[:4] for line in lines],
        )
    return Outcome(
        "not-reached",
        f"not reached in {n} attempts ({tally})",
        [line for _, lines in got[:4] for line in lines],
    )
