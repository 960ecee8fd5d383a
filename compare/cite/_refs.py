"""Verify citation strings that live outside area files, and judge whether a quote stands alone.

Scenario checks cite the spec as ``cite: path:line`` plus ``quote:``; joined, that is an
ordinary ``path:line “quote”`` citation, so it gets the very verifier the rows' citations
get. This module takes only strings: it knows nothing of area or scenario files (the stages
that own those files walk them and hand their citations over), so the cite stage depends on
no other stage for its verdicts.

Why a minimum quote: a ref is shown beside a verdict as the spec's reason for it. A token
such as ``clientInfo`` or ``-32601`` is "found" on many lines and says nothing a reader can
weigh; a clause (three words or more, fifteen characters or more) carries the requirement.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from compare._errors import CompareError
from compare.cite._cache import SourceCache
from compare.cite._parse import parse_citation
from compare.cite._verify import Result

MIN_WORDS = 3
MIN_CHARS = 15


def standalone_problem(quote: str | None) -> str | None:
    """Why ``quote`` cannot stand on its own as a reason, or None when it can."""
    if quote is None or not quote.strip():
        return "has no quote"
    words, chars = len(quote.split()), len(quote.strip())
    if words < MIN_WORDS or chars < MIN_CHARS:
        return (
            f"quote “{quote.strip()}” is a token, not a clause ({words} word"
            f"{'s' if words != 1 else ''}, {chars} characters; a quote needs at least "
            f"{MIN_WORDS} words and {MIN_CHARS} characters)"
        )
    return None


@dataclass(frozen=True)
class RefResult:
    """One citation string: the verifier's result, and why it is rejected (None when not).

    ``result`` is None only when the string does not parse; a quote that is too short is
    still verified, so the report shows where it was found.
    """

    ref: str
    result: Result | None
    problem: str | None


def verify_refs(
    refs: Iterable[str], cache: SourceCache | None = None, *, standalone: bool = True
) -> list[RefResult]:
    """Parse and verify each citation string; with ``standalone``, reject token quotes."""
    sources = cache or SourceCache()
    out: list[RefResult] = []
    for ref in refs:
        try:
            cit = parse_citation(ref)
        except CompareError as err:
            out.append(RefResult(ref, None, err.message))
            continue
        problem = standalone_problem(cit.quote) if standalone else None
        out.append(RefResult(ref, sources.verify(cit), problem))
    return out
