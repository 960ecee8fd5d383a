"""The state vocabulary of a row's implementation column, and the one rule that picks it.

Each state is a promise about *every* graded check behind it, so a reader can trust the word
without opening the cells: no error is dropped before the choice, a column that was only
accepted non-strictly does not read "partial", and "partial" means passes *and* failures.
Informational and not-exercised checks and not-run cells never stand behind a graded state
(the spec leaves the behaviour open, the check's precondition never held, or nothing was
measured); they are listed in the column with their reasons. Cited columns use the same
words for the same behaviour (``cited_state``).
"""

from __future__ import annotations

from collections import Counter

from compare.judge._verdicts import UNGRADED

#: state → the short word shown beside its symbol.
STATE_LABELS = {
    "supported": "supported",
    "non-strict": "non-strict",
    "partial": "partial",
    "not-supported": "not supported",
    "observed": "observed (informational)",
    "not-exercised": "not exercised",
    "error": "harness error",
    "unstable": "unstable",
    "not-run": "not run",
    "cited": "cited, not run",
}

#: state → exactly what it promises (README, legend and tests quote these).
STATE_PROMISES = {
    "supported": "every graded check behind it passed",
    "non-strict": (
        "no graded check behind it failed, and at least one was accepted only non-strictly"
    ),
    "partial": (
        "some graded checks behind it passed (strictly or not) and some failed; "
        "the note says which part"
    ),
    "not-supported": "every graded check behind it failed",
    "observed": "every check behind it is informational: behaviour the spec leaves open",
    "not-exercised": (
        "no check behind it was graded, and at least one could not be, because its "
        "precondition never held (the feature was never used); the reason says what was missing"
    ),
    "error": (
        "at least one cell behind it ended in a harness error, so nothing is claimed; "
        "the label counts the errors and names what the other cells show"
    ),
    "unstable": (
        "at least one cell behind it was played several times and its outcome differed "
        "between plays, so nothing is claimed; the label counts those cells and names what "
        "the others show"
    ),
    "not-run": "no cell behind it was judged; the reason says why",
    "cited": "not run: backed by citations of its source only (cited state beside it)",
}

#: state → the symbol printed beside its label (the site's pages and legend draw these).
STATE_SYMBOLS = {
    "supported": "✔",
    "non-strict": "≈",
    "partial": "◐",
    "not-supported": "✘",
    "observed": "ℹ",
    "not-exercised": "◌",
    "error": "⚠",
    "unstable": "↯",
    "not-run": "∅",
    "cited": "§",
}

#: States a cited column may claim: the graded and informational words of run columns.
CITED_STATES = ("supported", "non-strict", "partial", "not-supported", "observed", "unknown")


def graded_state(verdicts: Counter[str]) -> str:
    """The state of judged check verdicts (no errors, no not-run among them).

    ``verdicts`` counts every queried check's verdict in every judged cell.
    """
    graded = {v for v in verdicts if verdicts[v] and v not in UNGRADED}
    if not graded:
        if verdicts["not-exercised"]:
            return "not-exercised"
        return "observed" if verdicts["informational"] else "not-run"
    if graded == {"pass"}:
        return "supported"
    if graded <= {"pass", "non-strict"}:
        return "non-strict"
    if graded == {"fail"}:
        return "not-supported"
    return "partial"


def error_label(errors: int, cells: int, rest: str, state: str = "error") -> str:
    """``harness error in 1 of 4 cells (the rest: supported)``: the errors are named, never
    dropped, and what the other cells show stays readable. ``state="unstable"`` words the
    cells whose plays differed the same way (``unstable in 1 of 4 cells …``)."""
    label = f"{STATE_LABELS[state]} in {errors} of {cells} cells"
    if rest not in {"not-run", "error", "unstable"}:
        label += f" (the rest: {STATE_LABELS[rest]})"
    return label
