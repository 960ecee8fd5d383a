"""The normative-text rule for scenario grades, checked when a scenario loads.

A **fail** must rest on a MUST / MUST NOT of the revision the cell ran at, and a
**non-strict** on a SHOULD / SHOULD NOT, quoted in the check's references; anything the spec
leaves open is informational. Grading is data, so this rule is enforced on the data: a
scenario whose fail or non-strict outcome has no such reference at some revision it plays
does not load, and the message names the check, the outcome and the revision.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compare.exchange._scenarios import Check

_MUST = re.compile(r"\b(MUST|SHALL|REQUIRED)\b")
_SHOULD = re.compile(r"\b(SHOULD|RECOMMENDED)\b")
#: verdict → (pattern the quote must match, how the message names it)
NEEDS: dict[str, tuple[re.Pattern[str], str]] = {
    "fail": (_MUST, "MUST or MUST NOT"),
    "non-strict": (_SHOULD, "SHOULD or SHOULD NOT"),
}


def _plain(quote: str) -> str:
    """The quote without Markdown emphasis, so ``**MUST**`` reads as MUST."""
    return re.sub(r"[*_`]", "", quote)


def grounds(ref: dict[str, Any], outcome: str) -> bool:
    """Whether ``ref`` speaks for ``outcome`` (a ref without ``supports`` speaks for all)."""
    supports = ref.get("supports")
    return not supports or outcome in supports


def ungrounded(
    check: Check, revisions: Iterable[str], plays: Any = lambda revision: True
) -> list[str]:
    """Each (outcome, revision) whose grade lacks its normative reference, as a sentence.

    ``revisions`` are the pinned ones; ``plays(revision)`` says whether the scenario (and so
    this check) runs at it.
    """
    from compare.exchange._scenarios import in_window

    problems: list[str] = []
    for outcome, grade in check.outcomes.items():
        need = NEEDS.get(str(grade.get("verdict")))
        if need is None:
            continue
        pattern, words = need
        for revision in revisions:
            if not plays(revision) or (
                check.revisions and not in_window(revision, check.revisions)
            ):
                continue
            refs = [r for r in check.refs_for(revision) if grounds(r, outcome)]
            if not any(pattern.search(_plain(str(r.get("quote", "")))) for r in refs):
                problems.append(
                    f"check {check.id}: outcome {outcome} is graded {grade['verdict']} but no"
                    f" reference for {revision} quotes a {words}"
                )
    return problems
