"""The normative-text rule for scenario grades, checked when a scenario loads.

A **fail** must rest on a MUST / MUST NOT of the revision the cell ran at, and a
**non-strict** on a SHOULD / SHOULD NOT, quoted in the check's references; anything the spec
leaves open is informational. Grading is data, so this rule is enforced on the data: a
scenario whose fail or non-strict outcome has no such reference at some revision it plays
does not load, and the message names the check, the outcome and the revision.

A **pass** must be earned: a check graded pass on some outcome must grade another outcome
fail or non-strict (:func:`unearned_passes`), or its pass is a claim nothing could refute.

The quote must also hold the **whole clause** that makes the behaviour a breach: each ref
that grounds such a grade and holds its keyword runs from the start of a sentence (or list
item) to its end, and a lead-in ("Both parties **MUST**:") comes with the list item it
governs, the cited range covering both (the rule is ``compare.cite._clause``'s). A cut quote
is refused with the whole sentence as the source spells it, ready to paste. That part reads
the cited pinned file; where it cannot be read (the spec not fetched yet), the loader cannot
judge the clause and ``cite --check`` refuses the unreadable source instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from compare.cite import MUST, SHOULD

if TYPE_CHECKING:
    from compare.cite import Clause
    from compare.exchange._scenarios import Check

#: verdict → (pattern the quote must match, how the message names it)
NEEDS: dict[str, tuple[re.Pattern[str], str]] = {
    "fail": (MUST, "MUST or MUST NOT"),
    "non-strict": (SHOULD, "SHOULD or SHOULD NOT"),
}


def _plain(quote: str) -> str:
    """The quote without Markdown emphasis, so ``**MUST**`` reads as MUST."""
    return re.sub(r"[*_`]", "", quote)


def grounds(ref: dict[str, Any], outcome: str) -> bool:
    """Whether ``ref`` speaks for ``outcome`` (a ref without ``supports`` speaks for all)."""
    supports = ref.get("supports")
    return not supports or outcome in supports


#: ``(cite, quote)`` → why the quote is not a whole clause (with its fix), or None.
ClauseCheck = Callable[[str, str], str | None]


@lru_cache(maxsize=1024)
def _clause_at(path: str, _state: tuple[int, int, int], start: int, end: int, quote: str) -> Clause:
    """The clause verdict on one quote, once per state of the verified cached file (the
    common checks' refs are judged again for every scenario file that loads)."""
    from compare.cite import split_lines, whole_clause
    from compare.pin import pinned_text

    return whole_clause(split_lines(pinned_text(path)), start, end, quote)


def pinned_clause() -> ClauseCheck:
    """A :data:`ClauseCheck` reading the cited pinned spec files (markdown prose only).

    A ref it cannot parse, or whose file is not pinned or not fetched, is not judged here:
    the loader's other checks and ``cite --check`` say what is wrong with it.
    """
    from compare._errors import CompareError
    from compare.cite import parse_citation
    from compare.pin import pinned_path

    def check(cite: str, quote: str) -> str | None:
        try:
            cit = parse_citation(f"{cite.strip()} “{quote}”")
            if cit.kind != "spec" or not cit.path.endswith((".md", ".mdx")):
                return None
            stat = pinned_path(cit.path).stat()  # verified against the pins
            state = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
            found = _clause_at(cit.path, state, cit.start, cit.end, cit.quote or "")
        except (CompareError, OSError):
            return None
        if found.problem is None:
            return None
        if found.sentence is None:
            return found.problem
        where = f"{cit.source}:{found.lines}"
        return (
            f"{found.problem}; quote the whole sentence, as the source has it:"
            f' {{cite: "{where}", quote: "{found.sentence}"}}'
        )

    return check


#: Grades that can fail a check: a pass is earned only where one of these was possible.
FAILING = ("fail", "non-strict")


def unearned_passes(check: Check) -> list[str]:
    """Each outcome graded pass in a check that has no outcome graded fail or non-strict.

    Such a check cannot fail, so its pass would be a claim no evidence could refute: the
    outcome is recorded behaviour (informational), or the check lacks the failing outcome and
    the sentence that grounds it. Gate outcomes count, as the judge grades them.
    """
    grades = {o: str(g.get("verdict")) for o, g in check.outcomes.items()}
    if any(v in FAILING for v in grades.values()):
        return []
    return [
        f"check {check.id}: outcome {o} is graded pass, but no outcome of the check is graded"
        " fail or non-strict, so the pass could not have failed"
        for o, v in grades.items()
        if v == "pass"
    ]


def ungrounded(
    check: Check,
    revisions: Iterable[str],
    plays: Any = lambda revision: True,
    clause: ClauseCheck | None = None,
) -> list[str]:
    """Each (outcome, revision) whose grade lacks its normative reference, as a sentence,
    and (given ``clause``) each ref grounding such a grade whose quote is cut.

    ``revisions`` are the pinned ones; ``plays(revision)`` says whether the scenario (and so
    this check) runs at it.
    """
    from compare.exchange._scenarios import in_window

    problems: list[str] = []
    judged: set[tuple[str, str]] = set()
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
            # refs about one transport each: the grade needs its keyword on each transport
            named = sorted({str(r["transport"]) for r in check.refs if r.get("transport")})
            kinds: list[str | None] = [*named] if named else [None]
            keyed: list[dict[str, Any]] = []
            for kind in kinds:
                refs = [r for r in check.refs_for(revision, kind) if grounds(r, outcome)]
                found = [r for r in refs if pattern.search(_plain(str(r.get("quote", ""))))]
                if not found:
                    over = f" over {kind}" if kind else ""
                    problems.append(
                        f"check {check.id}: outcome {outcome} is graded {grade['verdict']} but no"
                        f" reference for {revision}{over} quotes a {words}"
                    )
                keyed += [r for r in found if r not in keyed]
            for ref in keyed:
                place = (str(ref.get("cite", "")), str(ref.get("quote", "")))
                if clause is None or place in judged:
                    continue
                judged.add(place)
                cut = clause(*place)
                if cut is not None:
                    problems.append(
                        f"check {check.id}: outcome {outcome} ({grade['verdict']}) rests on"
                        f" {place[0]} “{place[1]}”, which is not a whole clause: {cut}"
                    )
    return problems
