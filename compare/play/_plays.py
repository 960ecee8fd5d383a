"""Several plays of one cell, and the one verdict they make together.

A cell played once says what the client did once. A client (or our harness) can behave
differently on two runs of the same inputs, and a single run then publishes whichever
outcome it happened to meet. So a cell may be played N times (``mcp-compare run --repeat N``;
``mcp-compare compare`` plays every newly played fail, non-strict or unstable cell until it
has ``SETTLE`` plays). Play 1 keeps the cell folder's own files, exactly as a cell played
once, so every reader of one play is unchanged; play K > 1 keeps the same files under
``plays/K/``. The whole folder is staged and swapped in at once, and the cell's
``verdict.json`` records (``written``) and seals every play's files with its own.

The plays agree when each one's verdict and each check's outcome (and grade) are equal;
then the cell reads that verdict, with every play listed. When the verdicts differ, or a
check graded pass, non-strict or fail in some play has another outcome in another, the cell
reads ``unstable`` — never pass or fail — and names the checks that differed; each such check
reads ``unstable`` too, with every play's outcome beside it. A check that is informational in
every play and still varies (a race measured on purpose, such as an ask sent before any
stream exists) reads ``unstable`` itself, so a row built on it says so, but it cannot move
the cell's verdict, which every play agreed on: the cell keeps that verdict and names the
check in ``differed`` and its reason. A play that ended in ``error``
makes the cell an error (the harness did not reach a verdict for it), which the next run
plays again in full.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare.judge._verdicts import UNGRADED

#: Where the plays after the first one live, inside the cell folder.
PLAYS = "plays"
#: The plays ``mcp-compare compare`` gives a newly played doubtful cell before publishing it.
SETTLE = 3
#: Cell verdicts that ``--settle`` plays again: a finding, or a doubt, about the program.
DOUBTFUL = frozenset({"fail", "non-strict", "unstable"})


def play_rel(number: int) -> str:
    """The folder of play ``number`` relative to its cell folder (play 1: the cell's own)."""
    return "" if number == 1 else f"{PLAYS}/{number}"


def play_folder(cell: Path, number: int) -> Path:
    """The folder that holds play ``number``'s transcript, plan and process files."""
    return cell / play_rel(number) if number > 1 else cell


def count(verdict: dict[str, Any] | None) -> int:
    """How many plays a stored verdict holds: 0 for none or a not-run cell, 1 for a cell
    played once (no ``plays`` list), else the list's length."""
    if not verdict or verdict.get("verdict") == "not-run":
        return 0
    plays = verdict.get("plays")
    return len(plays) if isinstance(plays, list) and plays else 1


def _outcomes(verdict: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        str(c.get("id")): {"outcome": c.get("outcome"), "verdict": c.get("verdict")}
        for c in verdict.get("checks") or []
    }


def record(number: int, verdict: dict[str, Any]) -> dict[str, Any]:
    """What the cell's verdict keeps of one play: where its files are and what it said."""
    rel = play_rel(number)
    return {
        "play": number,
        "folder": rel or ".",
        "transcript": f"{rel}/transcript.jsonl" if rel else "transcript.jsonl",
        "verdict": verdict.get("verdict"),
        "reason": verdict.get("reason"),
        "checks": _outcomes(verdict),
        "started_at": verdict.get("started_at"),
        "duration_s": verdict.get("duration_s"),
        "process": verdict.get("process"),
    }


def _numbers(numbers: list[int]) -> str:
    words = [str(n) for n in numbers]
    head = ", ".join(words[:-1])
    return f"play{'s' * (len(words) > 1)} " + (f"{head} and {words[-1]}" if head else words[0])


def _spread(values: list[Any]) -> str:
    """``matched in plays 1 and 3, mismatched in play 2``: each value with its plays."""
    seen: dict[str, list[int]] = {}
    for number, value in enumerate(values, start=1):
        seen.setdefault(str(value), []).append(number)
    return ", ".join(f"{value} in {_numbers(numbers)}" for value, numbers in seen.items())


def differed(plays: list[dict[str, Any]]) -> list[str]:
    """The checks whose outcome or grade was not the same in every play, in check order."""
    each = [_outcomes(p) for p in plays]
    ids = list(dict.fromkeys(i for outcomes in each for i in outcomes))
    return [i for i in ids if len({repr(o.get(i)) for o in each}) > 1]


def combine(plays: list[dict[str, Any]]) -> dict[str, Any]:
    """The cell's verdict from its plays' verdicts (play 1 first); see the module docstring.

    One play is returned as it is, so a cell played once reads exactly as before."""
    first = plays[0]
    if len(plays) == 1:
        return first
    out = dict(first)
    out["plays"] = [record(n, p) for n, p in enumerate(plays, start=1)]
    out["duration_s"] = round(sum(float(p.get("duration_s") or 0) for p in plays), 3)
    out.pop("differed", None)
    errors = [n for n, p in enumerate(plays, start=1) if p.get("verdict") == "error"]
    if errors:
        bad = plays[errors[0] - 1]
        out["verdict"] = "error"
        out["reason"] = f"{_numbers(errors)} of {len(plays)} ended in error: {bad.get('reason')}"
        return out
    changed = differed(plays)
    verdicts = [p.get("verdict") for p in plays]
    if not changed and len(set(verdicts)) == 1:
        out["reason"] = f"{first.get('reason')} (the same in all {len(plays)} plays)"
        return out
    each = [_outcomes(p) for p in plays]
    parts = [f"{i}: {_spread([o.get(i, {}).get('outcome') for o in each])}" for i in changed] or [
        f"verdict: {_spread(verdicts)}"
    ]
    graded = {str(o.get(i, {}).get("verdict")) for i in changed for o in each} - set(UNGRADED)
    out["differed"] = changed
    if len(set(verdicts)) == 1 and not graded:
        out["reason"] = (
            f"{first.get('reason')} (the same verdict in all {len(plays)} plays; informational "
            "checks that varied: " + "; ".join(parts) + ")"
        )
    else:
        out["verdict"] = "unstable"
        out["reason"] = f"the outcome differed between {len(plays)} plays: " + "; ".join(parts)
    checks = []
    for check in first.get("checks") or []:
        if check.get("id") in changed:
            mine = [o.get(str(check["id"]), {}) for o in each]
            check = dict(check) | {
                "verdict": "unstable",
                "outcome": None,
                "outcomes": [m.get("outcome") for m in mine],
                "verdicts": [m.get("verdict") for m in mine],
                "reason": (
                    f"differed between plays: {_spread([m.get('outcome') for m in mine])} "
                    f"(graded {_spread([m.get('verdict') for m in mine])}; the evidence "
                    "shown is play 1's)"
                ),
            }
        checks.append(check)
    out["checks"] = checks
    return out
