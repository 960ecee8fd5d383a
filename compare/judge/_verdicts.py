"""The verdict vocabulary, in one place: the words, how bad each is, and the symbol each shows.

The exchange owns verdicts, so everything that orders or draws them — the judge picking a
cell's worst check, the rows picking which check speaks for a cell, the run table and the
site's pages — imports them from here instead of keeping a copy that could drift.
"""

from __future__ import annotations

#: Every verdict a cell or a check can have.
VERDICTS = (
    "pass",
    "non-strict",
    "fail",
    "informational",
    "not-exercised",
    "not-run",
    "error",
    "unstable",
)

#: Words that grade nothing: behaviour the spec leaves open, and a check whose precondition
#: never held (the feature was never used, the server adopted no root). Neither degrades a
#: cell, and neither may stand behind a pass or a "supported" row.
UNGRADED = ("informational", "not-exercised")

#: Worst first. ``informational`` and ``not-exercised`` never degrade a cell; ``error`` is a
#: check that could not run. ``not-exercised`` ranks above ``informational``: a cell whose
#: graded question was never put says so before it shows what it merely recorded.
#: ``unstable`` (a cell played several times whose outcome differed between plays, and each
#: check that differed) ranks above every graded word: no single play may speak for it.
SEVERITY = ("error", "unstable", "fail", "non-strict", "pass", "not-exercised", "informational")

#: verdict → (symbol, meaning): what the run table and the site print beside the word.
VERDICT_SYMBOLS: dict[str, tuple[str, str]] = {
    "pass": ("✔", "every check met the expectation of this revision"),
    "non-strict": ("≈", "accepted, but not what the spec asks for to the letter"),
    "fail": ("✘", "at least one check contradicts the spec of this revision"),
    "informational": ("ℹ", "recorded behaviour the spec leaves open; never a failure"),
    "not-exercised": (
        "◌",
        "not exercised: what the check grades never happened (the reason says what was missing)",
    ),
    "not-run": ("∅", "not run, for the reason given on the cell page"),
    "error": ("⚠", "the harness could not reach a verdict (see the cell page)"),
    "unstable": ("↯", "played several times, and the outcome differed between plays"),
}


def severity(verdict: str) -> int:
    """How bad ``verdict`` is: higher is worse; a word outside ``SEVERITY`` counts as 0."""
    return len(SEVERITY) - SEVERITY.index(verdict) if verdict in SEVERITY else 0


def worst(verdicts: list[str]) -> str:
    """The cell verdict of these check verdicts: the worst graded one, else not-exercised
    when a check's precondition never held, else informational."""
    graded = [v for v in verdicts if v not in UNGRADED]
    if not graded:
        return "not-exercised" if "not-exercised" in verdicts else "informational"
    return min(graded, key=SEVERITY.index)
