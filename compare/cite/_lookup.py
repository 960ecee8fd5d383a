"""``cite REF``: show a cited place during review — the lines, the pin, the upstream link.

A bare ``path:LINE`` (no quote) is accepted here, unlike in area files: a reviewer looks a
line up before deciding what to quote. So are short spec paths (``2025-11-25/client/roots.mdx:78``,
see ``_short``) and an elided quote (``“…”``), which shows the line without comparing. A
quote of markdown prose is also judged by the whole-clause rule (``_clause``), so a reviewer
sees at once whether it could ground a fail, and the whole sentence to quote if not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from compare._errors import CompareError
from compare.cite._clause import Clause, whole_clause
from compare.cite._parse import Citation, parse_citation
from compare.cite._short import PLACEHOLDERS, expand
from compare.cite._sources import open_source
from compare.cite._verify import Result, verify

CONTEXT_LINES = 3


@dataclass
class Lookup:
    """The cited lines with context, and the verdict when the reference carries a quote."""

    citation: Citation
    provenance: str
    link: str | None
    lines: list[tuple[int, str, bool]]  # (number, text, cited?)
    result: Result | None
    #: Whether the quote holds a whole clause (markdown prose only; None when not judged).
    clause: Clause | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "ref": self.citation.ref,
            "kind": self.citation.kind,
            "path": self.citation.path,
            "start": self.citation.start,
            "end": self.citation.end,
            "provenance": self.provenance,
            "link": self.link,
            "lines": [{"n": n, "text": t, "cited": c} for n, t, c in self.lines],
            "status": self.result.status if self.result else None,
            "message": self.result.message if self.result else None,
            "clause": None
            if self.clause is None
            else {
                "whole": self.clause.problem is None,
                "problem": self.clause.problem,
                "lines": self.clause.lines,
                "sentence": self.clause.sentence,
            },
        }


def _parse_for_lookup(ref: str) -> Citation:
    cit = parse_citation(expand(ref), bare_line=True)
    if cit.quote is not None and cit.quote.strip() in PLACEHOLDERS:
        return replace(cit, quote=None)  # “…” pasted as "some words here": show the line
    return cit


def lookup(ref: str, context: int = CONTEXT_LINES) -> Lookup:
    """Read the cited lines; an unreadable source or a line past the end is a CompareError."""
    cit = _parse_for_lookup(ref)
    src = open_source(cit, cit.start, cit.end)
    if src.lines is None:
        if cit.kind == "gh":
            from compare.cite._sources import clone_dir

            hint = (
                f"not verified: source unavailable. Read it at {src.link}, or clone "
                f"{cit.package} into {clone_dir(cit.package or '')} to check it here"
            )
        elif cit.kind == "spec":
            hint = "run `mcp-compare pin` to fetch and verify the pinned spec files"
        else:
            hint = "run `mcp-compare tools install` for the pinned package versions"
        raise CompareError(f"cannot show {cit.location}: {src.reason}", hint)
    if cit.start > len(src.lines):
        raise CompareError(
            f"{cit.path} has {len(src.lines)} lines; line {cit.start} does not exist",
            "check the line number (or look the quote up with `cite --check`)",
        )
    first = max(1, cit.start - context)
    last = min(len(src.lines), cit.end + context)
    shown = [(n, src.lines[n - 1], cit.start <= n <= cit.end) for n in range(first, last + 1)]
    result = verify(cit, src) if cit.quote is not None else None
    clause = None
    if cit.quote is not None and cit.path.endswith((".md", ".mdx")):
        clause = whole_clause(src.lines, cit.start, cit.end, cit.quote)
    return Lookup(cit, src.provenance, src.link, shown, result, clause)
