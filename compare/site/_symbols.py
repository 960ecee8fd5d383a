"""The symbols the pages use, what each means, and a record of which ones a render used.

Every symbol is printed together with its word (``✔ pass``), so a page reads correctly without
the legend, in a screen reader and in search results; the legend on the home page lists only
the symbols that actually occur (as MDN's compat tables do).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compare.judge._verdicts import VERDICT_SYMBOLS
from compare.rows._state import STATE_PROMISES, STATE_SYMBOLS
from compare.site._escape import Md, esc, slug
from compare.site._words import word

#: kind → state → (symbol, meaning). Verdicts and row states come from the stages that own
#: them (``compare.exchange``, ``compare.rows``); where and citation symbols are the site's.
SYMBOLS: dict[str, dict[str, tuple[str, str]]] = {
    "verdict": dict(VERDICT_SYMBOLS),
    "where": {
        "present": ("●", "defined in this revision's schema"),
        "absent": ("○", "not defined in this revision's schema"),
        "added": ("✚", "first defined in this revision"),
        "removed": ("✖", "defined in the previous revision, gone in this one"),
        "changed": ("◆", "defined, but its shape on the wire differs from the previous revision"),
        "schema-only": (
            "≡",
            "the schema's text changed (an envelope field or a $ref), not the messages on the wire",
        ),
        "deprecated": ("⊘", "still defined, but deprecated by this revision"),
        "embedded": ("⧉", "only carried inside another message in this revision"),
        "unknown": ("?", "not computed; the row says why"),
    },
    "citation": {
        # Not the pass mark: a verified quote says the citation holds, not that a program
        # passed anything (one symbol per meaning).
        "verified": ("☑", "the quote is on the cited line of the pinned source"),
        "verified-normalised": (
            "☑̃",
            "the quote matches once Markdown emphasis, backticks or whitespace are ignored",
        ),
        "moved": ("↪", "the quote is on another line of the pinned source (line shown)"),
        "ambiguous": ("⁇", "the quote occurs on several lines, none of them the cited one"),
        "mismatch": ("✘", "the quote is not in the pinned source"),
        "unavailable": ("⌀", "not verified: source unavailable here"),
        "not-checked": ("?", "not checked yet (run mcp-compare cite --check)"),
    },
    "probe": {
        "allowed": ("↗", "the tool did what the probe asked (or the fixture hashes show it did)"),
        "refused": ("⊗", "an error, where the same tool worked inside the roots"),
        "failed": ("✘", "an error that no working call of the same tool pairs with"),
        "no-answer": ("…", "no response within the probe's bound"),
        "skipped": ("–", "not sent: the server had stopped answering"),
    },
}
#: An implementation's state for a row, computed by `mcp-compare rows` from its cells: the rows
#: stage's symbols and promises (a state is true of every graded check behind it, and an
#: error is never dropped), plus the site's own word for a combination with no data at all.
SYMBOLS["status"] = {
    **{state: (STATE_SYMBOLS[state], promise) for state, promise in STATE_PROMISES.items()},
    "unknown": ("?", "no data for this combination"),
    "n-a": ("–", "cannot apply: the row's check is played against another kind of implementation"),
}

#: One answer per square of an area's table (compare.site._answer): one mark per meaning,
#: the same marks as the row states they read from, "–" only for what cannot apply.
SYMBOLS["answer"] = {
    "yes": ("✔", "every graded check passed, from the revision named on"),
    "non-strict": ("≈", "works, but a SHOULD of the spec is not kept"),
    "partial": ("◐", "some checks or revisions pass and others fail"),
    "no": ("✘", "every graded check failed: a MUST of the spec is broken"),
    "observed": ("ℹ", "recorded, not graded: the spec leaves the behaviour open"),
    "not-tested": (
        "∅",
        "no verdict: not run, or the feature was never used (hover for the reason)",
    ),
    "n-a": ("–", "cannot apply: the row does not exist at the revisions it was run at"),
    "cited": ("§", "not run: what its source code or documentation says"),
    "unstable": ("↯", "the outcome differed between plays, so nothing is claimed"),
    "error": ("⚠", "our harness failed, so nothing is claimed"),
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
        # The class gives the state its colour (site/assets/mcp-compare.css); the symbol and
        # the word stay, so nothing is said by colour alone.
        cls = f"mc-b mc-{slug(kind)}-{slug(state)}"
        return Md(f'<span class="{cls}">{mark}&nbsp;{esc(label or word(kind, state))}</span>')

    def compact(self, kind: str, state: str, label: str = "") -> Md:
        """The symbol alone (for dense grids); its word is the hover title and is read out."""
        table = SYMBOLS.get(kind, {})
        self.used.setdefault(kind, set()).add(state)
        mark = table[state][0] if state in table else "•"
        said = esc(label or word(kind, state))
        cls = f"mc-b mc-{slug(kind)}-{slug(state)}"
        return Md(
            f'<span class="{cls}" title="{said}"><span aria-hidden="true">{mark}</span>'
            f'<span class="mc-sr">{said}</span></span>'
        )

    def legend(self) -> list[tuple[str, list[tuple[str, str, str, str]]]]:
        """(kind, [(symbol, word, meaning, data name)]) per kind, only states that occurred."""
        out = []
        titles = {
            "verdict": "Cell verdicts",
            "status": "Implementation states in rows",
            "where": "Where it exists",
            "citation": "Citation status",
            "probe": "Enforcement probe results",
            "answer": "Answers in the tables",
        }
        for kind, table in SYMBOLS.items():
            used = self.used.get(kind, set())
            items: list[tuple[str, str, str, str]] = [
                (
                    Md(f'<span class="mc-b mc-{kind}-{slug(state)}">{sym}</span>'),
                    word(kind, state),
                    meaning,
                    state,
                )
                for state, (sym, meaning) in table.items()
                if state in used
            ]
            items += [
                (Md("•"), word(kind, state), "a state named by the data, shown as its word", state)
                for state in sorted(used - set(table))
            ]
            if items:
                out.append((titles[kind], items))
        return out
