"""The symbols the pages use, what each means, and a record of which ones a render used.

Every symbol is printed together with its word (``✔ pass``), so a page reads correctly without
the legend, in a screen reader and in search results; the legend on the home page lists only
the symbols that actually occur (as MDN's compat tables do).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compare.site._escape import Md, esc

#: kind → state → (symbol, meaning)
SYMBOLS: dict[str, dict[str, tuple[str, str]]] = {
    "verdict": {
        "pass": ("✔", "every check met the expectation of this revision"),
        "non-strict": ("≈", "accepted, but not what the spec asks for to the letter"),
        "fail": ("✘", "at least one check contradicts the spec of this revision"),
        "informational": ("ℹ", "recorded behaviour the spec leaves open; never a failure"),
        "not-run": ("∅", "not run, for the reason given on the cell page"),
        "error": ("⚠", "the harness could not reach a verdict (see the cell page)"),
    },
    "where": {
        "present": ("●", "defined in this revision's schema"),
        "absent": ("○", "not defined in this revision's schema"),
        "added": ("✚", "first defined in this revision"),
        "removed": ("✖", "defined in the previous revision, gone in this one"),
        "changed": ("◆", "defined, but its shape differs from the previous revision"),
        "deprecated": ("⊘", "still defined, but deprecated by this revision"),
        "embedded": ("⧉", "only carried inside another message in this revision"),
        "unknown": ("?", "not computed; the row says why"),
    },
    "citation": {
        "verified": ("✔", "the quote is on the cited line of the pinned source"),
        "verified-normalised": (
            "✔̃",
            "the quote matches once Markdown emphasis, backticks or whitespace are ignored",
        ),
        "moved": ("↪", "the quote is on another line of the pinned source (line shown)"),
        "ambiguous": ("⁇", "the quote occurs on several lines, none of them the cited one"),
        "mismatch": ("✘", "the quote is not in the pinned source"),
        "unavailable": ("⌀", "not verified: source unavailable here"),
        "not-checked": ("?", "not checked yet (run mcp-compare cite --check)"),
    },
}
#: An implementation's state for a row, computed by `mcp-compare rows` from its cells. The
#: meanings are the promises of ``compare.rows.STATE_PROMISES`` (a test keeps them equal): a
#: state is true of every graded check behind it, and an error is never dropped.
SYMBOLS["status"] = {
    "supported": ("✔", "every graded check behind it passed"),
    "non-strict": (
        "≈",
        "no graded check behind it failed, and at least one was accepted only non-strictly",
    ),
    "partial": (
        "◐",
        "some graded checks behind it passed (strictly or not) and some failed; "
        "the note says which part",
    ),
    "not-supported": ("✘", "every graded check behind it failed"),
    "observed": ("ℹ", "every check behind it is informational: behaviour the spec leaves open"),
    "error": (
        "⚠",
        "at least one cell behind it ended in a harness error, so nothing is claimed; "
        "the label counts the errors and names what the other cells show",
    ),
    "not-run": ("∅", "no cell behind it was judged; the reason says why"),
    "cited": ("§", "not run: backed by citations of its source only (cited state beside it)"),
    "unknown": ("?", "no data for this combination"),
}


@dataclass
class SymbolUse:
    """Collects every (kind, state) a render printed, for the legend."""

    used: dict[str, set[str]] = field(default_factory=dict)

    def sym(self, kind: str, state: str, label: str = "") -> Md:
        """``✔ pass`` for a known state; an unknown state is shown as its escaped word."""
        table = SYMBOLS.get(kind, {})
        self.used.setdefault(kind, set()).add(state)
        mark = table[state][0] if state in table else "•"
        return Md(f"{mark}&nbsp;{esc(label or state)}")

    def legend(self) -> list[tuple[str, list[tuple[str, str, str]]]]:
        """(kind, [(symbol, state, meaning)]) for each kind, only states that occurred."""
        out = []
        titles = {
            "verdict": "Cell verdicts",
            "status": "Implementation states in rows",
            "where": "Where it exists",
            "citation": "Citation status",
        }
        for kind, table in SYMBOLS.items():
            used = self.used.get(kind, set())
            items = [
                (sym, state, meaning) for state, (sym, meaning) in table.items() if state in used
            ]
            items += [
                ("•", state, "a state named by the data, shown as its word")
                for state in sorted(used - set(table))
            ]
            if items:
                out.append((titles[kind], items))
        return out
