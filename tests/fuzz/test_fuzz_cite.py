"""The citation parser on any string, and round trips of valid citations.

Any text gives a :class:`Citation` or a :class:`CompareError` (never another exception).
A parsed citation writes back (``location`` and the quote) to text that parses to the same
citation, and its ``location`` is written verbatim in the text it came from: ``cite --fix``
finds the old location by that exact text, so a location the text does not hold could never
be fixed.
"""

from __future__ import annotations

import re

from _strategies import EXAMPLES, HOSTILE, any_text
from hypothesis import given, settings
from hypothesis import strategies as st

from compare._errors import CompareError
from compare.cite import Citation, parse_citation
from compare.cite._short import expand

PINNED = ["docs/specification/2025-11-25/client/roots.mdx", "schema/2025-11-25/schema.json"]


def written(c: Citation) -> str:
    """A citation as a data file writes it."""
    return c.location if c.quote is None else f"{c.location} “{c.quote}”"


def same(a: Citation, b: Citation) -> bool:
    fields = ("kind", "source", "path", "start", "end", "quote", "package", "version")
    return all(getattr(a, f) == getattr(b, f) for f in fields)


word = st.text("abcxyz019_-.", min_size=1, max_size=6).filter(lambda s: s not in {".", ".."})
path = st.lists(word, min_size=1, max_size=3).map("/".join)
version = st.from_regex(r"[0-9]\.[0-9]{1,2}\.[0-9]", fullmatch=True)
sources = st.one_of(
    st.builds(lambda r, p: f"{r}/{p}", st.sampled_from(["docs", "schema", "seps"]), path),
    st.builds(
        lambda s, n, v, p: f"npm:{s}{n}@{v}/{p}",
        st.sampled_from(["", "@mcp/"]),
        word,
        version,
        path,
    ),
    st.builds(lambda n, v, p: f"pypi:{n}@{v}/{p}", word, version, path),
    st.builds(
        lambda n, v, p: f"crate:{n}@{v}/{p}",
        st.from_regex(r"[a-z][a-z0-9_-]{0,5}", fullmatch=True),
        version,
        path,
    ),
    st.builds(lambda m, v, p: f"go:example.com/{m}@v{v}/{p}", word, version, path),
    st.builds(
        lambda o, r, c, p: f"gh:{o}/{r}@{c}/{p}",
        word,
        word,
        st.from_regex(r"[0-9a-f]{7,40}", fullmatch=True),
        path,
    ),
    st.builds(lambda g, a, v, p: f"maven:{g}:{a}@{v}/{p}", word, word, version, path),
)
quotes = st.one_of(
    st.none(),
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=20).filter(str.strip),
    st.lists(st.sampled_from((*HOSTILE, "“", "”", '"')), min_size=1, max_size=5)
    .map("".join)
    .filter(str.strip),
)


@settings(max_examples=1500)
@given(
    st.one_of(
        any_text,
        st.text(max_size=60),
        st.builds(
            lambda s, a, b, q: f"{s}:{a}{b} {q}",
            sources,
            st.text("0123456789١٢", max_size=4),
            st.sampled_from(["", "-", "-3", "-0"]),
            st.one_of(any_text, quotes.map(lambda q: f"“{q}”")),
        ),
    ),
    st.booleans(),
)
def test_any_text_parses_or_is_refused(text: str, bare_line: bool) -> None:
    EXAMPLES["cite: any text"] += 1
    try:
        c = parse_citation(text, bare_line=bare_line)
    except CompareError as err:
        assert err.message and err.hint
        return
    # cite --fix finds the old location exactly so (compare.cite._fix.fix_one)
    assert re.search(re.escape(c.location) + r"(?![\d-])", text), c.location
    assert c.kind in ("spec", "npm", "pypi", "crate", "gh", "go", "maven")
    assert 1 <= c.start <= c.end
    again = parse_citation(written(c), bare_line=bare_line)
    assert same(c, again), (c, again)


@settings(max_examples=800)
@given(sources, st.integers(1, 10**6), st.integers(0, 50), quotes, st.sampled_from(["“”", '""']))
def test_valid_citations_round_trip(
    source: str, start: int, span: int, quote: str | None, marks: str
) -> None:
    EXAMPLES["cite: valid round trip"] += 1
    end = start + span
    single = span == 0 and quote is not None and start % 2 == 0  # else a range, maybe N-N
    location = f"{source}:{start}" if single else f"{source}:{start}-{end}"
    if quote is not None and marks == '""' and '"' not in quote:
        text = f'{location} "{quote}"'
    else:
        text = location if quote is None else f"{location} “{quote}”"
    c = parse_citation(text, bare_line=True)
    assert (c.source, c.start, c.end, c.quote, c.location) == (
        source,
        start,
        end if location.endswith(f"-{end}") else start,
        quote,
        location,
    )
    assert same(c, parse_citation(written(c), bare_line=True))


@settings(max_examples=500)
@given(
    st.one_of(
        any_text,
        st.builds(
            lambda s, n: f"{s}:{n}",
            st.sampled_from(
                ["roots.mdx", "client/roots.mdx", "schema.json", "2025-11-25/schema.json", "x/y"]
            ),
            st.text("0123456789-١", min_size=1, max_size=4),
        ),
    )
)
def test_short_paths_expand_or_are_refused(text: str) -> None:
    EXAMPLES["cite: short path expansion"] += 1
    try:
        out = expand(text, PINNED)
    except CompareError as err:
        assert err.message and err.hint
        return
    assert isinstance(out, str)


# -- line ranges: a wrapped sentence verified as one text, a moved range fixed in its form ------
prose_word = st.sampled_from(
    ["the", "client", "**MUST**", "`stdin`", "e.g.", "2.0", "message.", "[link](/a)", "-", "x:"]
)
prose_line = st.lists(prose_word, min_size=0, max_size=6).map(" ".join)
indent = st.sampled_from(["", "  ", "- ", "1. ", "\t"])
prose = st.lists(
    st.builds(lambda i, t: (i + t).rstrip(), indent, prose_line), min_size=1, max_size=12
)


@settings(max_examples=400)
@given(prose, st.data())
def test_a_range_quoted_as_its_joined_lines_is_verified_exactly(
    lines: list[str], data: st.DataObject
) -> None:
    """Any range, quoted as its lines joined with single spaces, verifies at that range."""
    from compare.cite import joined, verify
    from compare.cite._sources import Source

    EXAMPLES["cite: range quoted as one text"] += 1
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    quote = joined(lines[start - 1 : end])
    if not quote:
        return
    cit = parse_citation(f"docs/x.mdx:{start}-{end} “{quote}”")
    assert (cit.start, cit.end, cit.quote) == (start, end, quote)
    result = verify(cit, Source(lines, "test", None, None, True))
    assert result.status == "verified", (lines, start, end, result.message)


@settings(max_examples=300)
@given(prose, st.data(), st.integers(1, 5))
def test_a_moved_range_is_fixed_to_a_range_of_the_same_size_that_verifies(
    lines: list[str], data: st.DataObject, shift: int
) -> None:
    from compare.cite import apply_edits, fix_one, joined, verify
    from compare.cite._sources import Source

    EXAMPLES["cite: moved range fixed"] += 1
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    quote = joined(lines[start - 1 : end])
    if not quote or len(quote) < 8:
        return
    text = f"sources: ['docs/x.mdx:{start}-{end} “{quote}”']"
    cit = parse_citation(text[len("sources: ['") : -2])
    moved = ["filler line zz"] * shift + lines
    result = verify(cit, Source(moved, "test", None, None, True))
    if result.status != "moved":  # the quote also occurs elsewhere: ambiguous, nothing to fix
        assert result.status in ("ambiguous", "verified", "verified-normalised"), result.message
        return
    edit = fix_one(text, 0, len(text), result)
    assert edit is not None
    fixed = parse_citation(apply_edits(text, [edit])[len("sources: ['") : -2])
    assert fixed.ranged and fixed.end - fixed.start == end - start
    assert verify(fixed, Source(moved, "test", None, None, True)).status == "verified"


@settings(max_examples=600)
@given(prose, st.data())
def test_the_clause_rule_never_crashes_and_its_fix_is_itself_whole(
    lines: list[str], data: st.DataObject
) -> None:
    """Any quote of any range gets a verdict; the whole sentence it offers verifies where it
    says and is whole by the same rule, so following the fix always ends the refusal."""
    from compare.cite import verify, whole_clause
    from compare.cite._sources import Source

    EXAMPLES["cite: whole-clause rule"] += 1
    start = data.draw(st.integers(1, len(lines)))
    end = data.draw(st.integers(start, len(lines)))
    words = " ".join(lines[start - 1 : end]).split()
    if not words:
        return
    a = data.draw(st.integers(0, len(words) - 1))
    z = data.draw(st.integers(a + 1, len(words)))
    quote = " ".join(words[a:z])
    clause = whole_clause(lines, start, end, quote)
    assert clause.problem is None or clause.problem
    if clause.sentence is None or clause.first is None or clause.last is None:
        return
    again = whole_clause(lines, clause.first, clause.last, clause.sentence)
    assert again.problem is None, (lines, quote, clause, again)
    cit = parse_citation(f"docs/x.mdx:{clause.first}-{clause.last} “{clause.sentence}”")
    status = verify(cit, Source(lines, "test", None, None, True)).status
    assert status in ("verified", "verified-normalised"), (lines, clause)
