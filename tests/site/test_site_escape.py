"""Untrusted text becomes Markdown that renders as exactly that text, never as markup."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import markdown
import pytest

from compare.site._cells import Cell, initialize_sent
from compare.site._escape import Md, code, esc, fence, link, safe_url
from compare.site._render import pretty_json

EXTENSIONS = ["tables", "attr_list", "admonition", "toc", "pymdownx.superfences"]
HOSTILE = [
    "<script>alert(1)</script>",
    "a | b | c",
    "`tick` ``double``",
    "[x](javascript:alert(1))",
    "{{ 7*7 }} {% raw %} {#",
    "**bold** _it_ ~~s~~",
    "<img src=x onerror=alert(2)>",
    "{: #evil .cls }",
    '!!! danger "boom"',
    "line one\nline two\r\n# heading",
    "&amp; &lt;script&gt;",
    "http://example.com/auto <http://example.com/x>",
]


def _html(md: str) -> str:
    return markdown.markdown(md, extensions=EXTENSIONS)


def _text(rendered: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


@pytest.mark.parametrize("value", HOSTILE)
def test_esc_renders_hostile_text_as_the_same_text_and_no_markup(value: str) -> None:
    rendered = _html(str(esc(value)))
    shown = value.replace("\r", "\\u000d").replace("\n", "\\u000a")
    assert _text(rendered).strip() == shown
    assert re.sub(r"</?p>", "", rendered).count("<") == 0, rendered


def test_esc_keeps_a_pipe_inside_one_table_cell() -> None:
    table = f"| a | b |\n|---|---|\n| {esc('x | y | z')} | end |\n"
    rendered = _html(table)
    assert rendered.count("<td>") == 2
    assert "x | y | z" in html.unescape(rendered)


def test_code_span_escapes_its_content() -> None:
    rendered = _html(str(code("<b>`x`</b>")))
    assert "<b>" not in rendered
    assert _text(rendered) == "<b>`x`</b>"


def test_fence_cannot_be_closed_by_backticks_in_the_content() -> None:
    lines = ["before", "```", "<script>alert(1)</script>", "````", "after"]
    rendered = _html(str(fence(lines)))
    assert rendered.count("<pre") == 1
    assert "<script>" not in rendered
    assert "&lt;script&gt;" in rendered


def test_link_refuses_javascript_and_escapes_its_text() -> None:
    assert safe_url("javascript:alert(1)") is None
    assert link("x", "javascript:alert(1)") == esc("x")
    rendered = _html(str(link("<i>t</i>", "https://example.com/a b")))
    assert 'href="https://example.com/a%20b"' in rendered
    assert "<i>" not in rendered


def test_md_fragments_pass_through_unescaped() -> None:
    fragment = Md("**ours**")
    assert esc(fragment) is fragment


def test_page_titles_drop_anything_that_could_be_markup() -> None:
    from compare.site._render import safe_title

    title = safe_title('<script>x</script> ts-sdk 1.2 · roots-list ~roots "q" {{x}} |')
    assert title == "scriptx/script ts-sdk 1.2 · roots-list ~roots q x"
    assert safe_title("<>") == "page"


def test_page_titles_keep_the_plus_and_hash_of_language_names() -> None:
    """The C++ and C# SDK pages were titled "C SDK": the title filter dropped + and #."""
    from compare.site._render import safe_title

    assert safe_title("C++ SDK (yurirocha15)") == "C++ SDK (yurirocha15)"
    assert safe_title("C# SDK") == "C# SDK"


# Found by tests/fuzz/test_fuzz_escape.py: a client that writes the JSON escape "\ud800"
# gets a lone surrogate into any decoded value (its clientInfo, a root's name); a page
# holding one could not be written as UTF-8, so `render` stopped with a traceback.
def test_lone_surrogate_is_shown_as_its_escape_and_stays_writable() -> None:
    assert esc("a\ud800b") == "a&#92;ud800b"  # renders as a\ud800b
    assert fence(["x\udfff"]) == "```text\nx\\udfff\n```"
    assert code("\ud800").encode("utf-8") == b"<code>&#92;ud800</code>"


def test_a_line_nested_deeper_than_the_reader_follows(tmp_path: Path) -> None:
    deep = '{"method": "initialize", "x": ' + "[" * 20_000 + "]" * 20_000 + "}"
    assert pretty_json(deep) == deep  # shown as sent, not a RecursionError
    record = {"n": 1, "t": 0.1, "dir": "in", "raw": deep}
    (tmp_path / "transcript.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    cell = Cell("t/1/s/r", tmp_path, "t", "1", "", "s", "r", "pass", "", [], {})
    assert initialize_sent(cell) is None
