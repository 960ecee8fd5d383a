"""The whole-clause rule (``compare.cite._clause``) on crafted prose, and on the stdin sentence.

Each test names what the rule must tell apart: a quote cut where its line wraps, a quote that
starts inside its sentence, a lead-in without its list item, and the things that look like a
sentence end but are not (``e.g.``, ``2.0``, a link's target).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compare.cite import parse_citation, verify, whole_clause
from compare.cite._sources import Source

PROSE = """\
# Title

The client **MUST NOT** write anything to the server's `stdin` that is not a valid MCP
message. Servers **SHOULD** log, e.g. to a file. The JSON-RPC 2.0 spec applies.

Both parties **MUST**:

- Respect the negotiated protocol version
- Only use capabilities that were successfully negotiated

Clients **MUST** declare it during [initialization](/lifecycle#init):

```json
{"a": "Code **MUST** not count."}
```

- The server **MUST NOT** write to `stdout` that is not
  valid.
""".splitlines()


def judge(start: int, end: int, quote: str) -> str | None:
    return whole_clause(PROSE, start, end, quote).problem


STDIN = (
    "The client **MUST NOT** write anything to the server's `stdin` that is not a valid MCP"
    " message."
)


def test_a_sentence_wrapped_over_its_lines_is_whole_when_cited_by_its_range() -> None:
    quote = STDIN
    assert judge(3, 4, quote) is None
    assert judge(3, 4, quote.removesuffix(".")) is None  # the final stop may be left off


def test_the_stdin_quote_cut_before_message_is_refused_with_the_whole_sentence() -> None:
    clause = whole_clause(
        PROSE, 3, 3, "The client **MUST NOT** write anything to the server's `stdin`"
    )
    assert clause.problem == "the quote stops before the end of its sentence"
    assert clause.lines == "3-4"
    assert clause.sentence == (
        "The client **MUST NOT** write anything to the server's `stdin` that is not a valid MCP"
        " message."
    )


def test_a_whole_sentence_cited_by_its_first_line_only_runs_past_the_cited_lines() -> None:
    clause = whole_clause(PROSE, 3, 3, STDIN)
    assert clause.problem is not None and "runs on past the cited lines" in clause.problem
    assert clause.lines == "3-4"


def test_a_quote_that_starts_inside_its_sentence_is_refused() -> None:
    clause = whole_clause(PROSE, 3, 4, "write anything to the server's `stdin`")
    assert clause.problem == "the quote starts and stops inside its sentence"
    assert clause.sentence is not None and clause.sentence.startswith("The client")


def test_an_abbreviation_and_a_version_number_do_not_end_a_sentence() -> None:
    assert judge(4, 4, "Servers **SHOULD** log, e.g. to a file.") is None
    assert judge(4, 4, "Servers **SHOULD** log, e.g.") is not None
    assert judge(4, 4, "The JSON-RPC 2.0 spec applies.") is None
    assert judge(4, 4, "The JSON-RPC 2.") is not None


def test_a_lead_in_is_whole_only_with_a_list_item_of_its_list() -> None:
    lead_in = whole_clause(PROSE, 6, 6, "Both parties **MUST**:")
    assert lead_in.problem is not None and "lead-in" in lead_in.problem
    assert lead_in.lines == "6-9"
    assert lead_in.sentence == (
        "Both parties **MUST**: - Respect the negotiated protocol version - Only use capabilities"
        " that were successfully negotiated"
    )
    assert judge(6, 8, "Both parties **MUST**: - Respect the negotiated protocol version") is None
    assert judge(6, 9, lead_in.sentence) is None
    # cut inside the item, or the range stopping short of it, is still cut
    assert judge(6, 8, "Both parties **MUST**: - Respect the negotiated") is not None
    assert judge(6, 6, "Both parties **MUST**: - Respect the negotiated protocol version")


def test_a_list_item_is_a_sentence_and_its_marker_may_lead_the_quote() -> None:
    assert judge(9, 9, "Only use capabilities that were successfully negotiated") is None
    assert judge(9, 9, "- Only use capabilities that were successfully negotiated") is None
    assert judge(17, 18, "The server **MUST NOT** write to `stdout` that is not valid.") is None
    assert judge(17, 17, "The server **MUST NOT** write to `stdout` that is not") is not None


def test_a_colon_before_a_code_block_ends_the_sentence_and_a_link_reads_as_its_text() -> None:
    assert judge(11, 11, "Clients **MUST** declare it during initialization:") is None
    assert (
        judge(11, 11, "Clients **MUST** declare it during [initialization](/lifecycle#init):")
        is None
    )
    assert judge(11, 11, "Clients **MUST** declare it") is not None


def test_a_quote_from_code_is_no_prose_and_a_quote_elsewhere_is_not_judged() -> None:
    assert judge(14, 14, '"Code **MUST** not count."') is not None
    assert "no prose" in (judge(14, 14, '"Code **MUST** not count."') or "")
    assert judge(1, 1, "not anywhere in the file") is None  # where it is: the verifier's call
    assert judge(999, 999, "past the end of the file") is None
    assert judge(13, 15, "not in the code block either") is None


def test_the_verifier_matches_a_wrapped_sentence_exactly_on_its_joined_lines() -> None:
    cit = parse_citation(f"docs/x.mdx:3-4 “{STDIN}”")
    result = verify(cit, Source(PROSE, "test", None, None, True))
    assert result.status == "verified", result.message
    linked = parse_citation("docs/x.mdx:11 “Clients **MUST** declare it during initialization:”")
    assert verify(linked, Source(PROSE, "test", None, None, True)).status == "verified"


@pytest.mark.parametrize(
    ("path", "start", "end"),
    [
        ("docs/specification/2024-11-05/basic/transports.mdx", 28, 29),
        ("docs/specification/2025-03-26/basic/transports.mdx", 32, 33),
        ("docs/specification/2025-06-18/basic/transports.mdx", 32, 33),
        ("docs/specification/2025-11-25/basic/transports.mdx", 34, 35),
    ],
)
def test_the_pinned_stdin_sentence_is_whole_only_with_message(
    pinned_spec: Path, monkeypatch: pytest.MonkeyPatch, path: str, start: int, end: int
) -> None:
    from compare.cite._sources import split_lines
    from compare.pin import pinned_text

    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    lines = split_lines(pinned_text(path))
    head = "The client **MUST NOT** write anything to the server's `stdin` that is not a valid MCP"
    assert whole_clause(lines, start, end, head + " message.").problem is None
    cut = whole_clause(lines, start, start, head)
    assert cut.problem is not None
    assert (cut.lines, cut.sentence) == (f"{start}-{end}", head + " message.")
