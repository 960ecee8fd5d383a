"""One answer per row × implementation square, in words: "yes since 2025-06-18", "no",
"partial", "not tested", "n/a".

A reader of a compatibility table asks "does X do this, and from which revision?". A strip of
six marks per square made them decode symbols revision by revision; MDN and caniuse answer
with one coloured cell and the version where support starts. Here the answer is read from the
per-revision verdicts ``mcp-compare rows`` recorded (``compare.site._strip.marks``, the worst
verdict of each revision) and the row's state: nothing is judged again, and the words never
claim more than the state does (a "partial" row whose newest revisions all pass reads "yes
since …": the revisions before are the part that failed, and the square's title lists them).
The per-revision strip stays one click away, on the row's section of its area page.
"""

from __future__ import annotations

from dataclasses import dataclass

from compare.site._inputs import Row
from compare.site._links import Links
from compare.site._strip import Mark, applies, marks, na_reason, newest, outside_window
from compare.site._symbols import SYMBOLS
from compare.site._words import WORDS as WORDS_BY_KIND
from compare.site._words import word

#: Verdicts that grade a revision (the rest say the spec leaves it open or nothing was judged).
GRADED = ("pass", "non-strict", "fail")


@dataclass(frozen=True)
class Answer:
    """What one square says: its colour class, its one mark, its words, its hover text and
    the page it opens (the newest judged cell, else the row's section)."""

    kind: str  # yes, non-strict, no, partial, observed, not-tested, n-a, cited, unstable, error
    mark: str
    words: str
    since: str  # the revision qualifier shown under the words ("" when none)
    title: str
    mark_for: Mark | None  # the revision the square opens (None: opens the row section)


#: Row state → the answer kind it reads as when every judged revision agrees with it.
_BY_STATE = {
    "supported": "yes",
    "non-strict": "non-strict",
    "partial": "partial",
    "not-supported": "no",
    "observed": "observed",
    "not-exercised": "not-tested",
    "not-run": "not-tested",
    "cited": "cited",
    "unstable": "unstable",
    "error": "error",
}

#: kind → its one mark and its word (the legend lists the same).
MARKS = {kind: mark for kind, (mark, _) in SYMBOLS["answer"].items()}
WORDS = WORDS_BY_KIND["answer"]


def _span(judged: list[Mark], verdict: str) -> str:
    """The revision from which the newest judged revisions all read ``verdict`` ("" if the
    newest does not)."""
    start = ""
    for mark in reversed(judged):
        if mark.verdict != verdict:
            break
        start = mark.revision
    return start


def _per_revision(found: list[Mark], row: Row, L: Links) -> str:
    """``2024-11-05 fail, 2025-06-18 pass, 2026-07-28 n/a``: the strip, in words."""
    parts = []
    for m in found:
        if m.cell is None:
            said = "n/a" if outside_window(L.data, row, m.revision) else "not run"
        else:
            said = word("verdict", m.verdict)
        parts.append(f"{m.revision} {said}")
    return ", ".join(parts)


def answer(L: Links, row: Row, impl: str) -> Answer:
    """The square of ``impl`` for ``row``."""
    st = row.status.get(impl)
    who = f"{row.id} · {impl}"
    if st is None:
        return Answer("not-tested", MARKS["not-tested"], "not tested", "", f"{who}: no data", None)
    if not applies(L.data, row, impl):
        return Answer("n-a", MARKS["n-a"], "n/a", "", na_reason(L.data, row, impl), None)
    found = marks(L, row, impl, L.data.revisions)
    judged = [m for m in found if m.cell is not None and m.verdict not in ("", "not-run")]
    top = newest(found)
    strip = _per_revision(found, row, L)
    reason = f"; {st.reason}" if st.reason else ""
    kind = _BY_STATE.get(st.state, "not-tested")
    since = ""
    if kind == "cited":
        cited = _BY_STATE.get(st.cited_state, "")
        shown = WORDS.get(cited, "") if cited not in ("cited", "not-tested") else ""
        title = f"{who}: cited, not run" + (f" (its source says: {shown})" if shown else "")
        return Answer("cited", MARKS["cited"], "cited", shown, title + reason, None)
    if (
        kind == "not-tested"
        and found
        and all(m.cell is None and outside_window(L.data, row, m.revision) for m in found)
    ):
        return Answer("n-a", MARKS["n-a"], "n/a", "", f"{who}: n/a at every revision{reason}", None)
    if kind == "not-tested":
        since = "not exercised" if st.state == "not-exercised" else "not run"
    graded = [m for m in judged if m.verdict in GRADED]
    if kind in ("yes", "non-strict") and graded:
        since = f"since {graded[0].revision}"
    elif kind == "partial" and graded and graded[-1].verdict == "pass":
        # Failing at the older revisions and passing from one on is support since that one.
        first = graded.index(next(m for m in graded if m.revision == _span(graded, "pass")))
        if first and all(m.verdict != "pass" for m in graded[:first]):
            kind, since = "yes", f"since {graded[first].revision}"
    title = f"{who}: {WORDS[kind]}" + (f" {since}" if since else "")
    if strip:
        title += f" ({strip})"
    return Answer(kind, MARKS[kind], WORDS[kind], since, title + reason, top)
