"""The parts of a summary page that change with the results (``compare.site._splice``): cut out
of what mkdocs builds, put back into what it built."""

from __future__ import annotations

import pytest

from compare._errors import CompareError
from compare.site._splice import CLOSE, OPEN, cut, fill, placeholders, splice


def _page(*parts: str, indent: str = "") -> str:
    body = []
    for part in parts:
        body += [f"{indent}{OPEN}", "", *(f"{indent}{ln}" for ln in part.split("\n")), ""]
        body += [f"{indent}{CLOSE}", ""]
    return "\n".join(["# Title", "", "Prose.", "", *body, "*[MCP]: Model Context Protocol"])


def test_parts_are_cut_to_numbered_places_that_do_not_change_with_them() -> None:
    one = cut(_page("| a |\n|---|\n| ✔ |", "- x: pass"), "p.md")
    two = cut(_page("| a |\n|---|\n| ✘ |", "- x: fail"), "p.md")
    assert one.skeleton == two.skeleton  # mkdocs sees the same bytes
    assert "<!-- mc-part:0 -->" in one.skeleton and "<!-- mc-part:1 -->" in one.skeleton
    assert one.parts == ["| a |\n|---|\n| ✔ |", "- x: pass"]
    assert one.hashes() != two.hashes()
    assert one.abbreviations == "*[MCP]: Model Context Protocol"


def test_an_indented_part_keeps_its_place_and_loses_its_indent() -> None:
    page = cut(_page("| a |\n|---|", indent="    "), "p.md")
    assert "    <!-- mc-part:0 -->" in page.skeleton
    assert page.parts == ["| a |\n|---|"]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (f"{OPEN}\nno end\n", "never closed"),
        (f"{OPEN}\n{OPEN}\n{CLOSE}\n", "inside another"),
        (f"{OPEN}\n## A heading\n{CLOSE}\n", "heading"),
    ],
)
def test_a_malformed_part_is_named(text: str, why: str) -> None:
    with pytest.raises(CompareError, match=why):
        cut(text, "site/docs/x.md")


def test_fill_puts_each_part_in_its_place_with_or_without_a_paragraph_around_it() -> None:
    built = "<p><!-- mc-part:0 --></p>\n<div><!-- mc-part:1 --></div>"
    assert placeholders(built) == 2
    assert fill(built, ["<table>A</table>", "<ul>B</ul>"], "x.html") == (
        "<table>A</table>\n<div><ul>B</ul></div>"
    )
    with pytest.raises(CompareError, match="part 1"):
        fill(built, ["only one"], "x.html")


def test_splice_marks_a_call_block() -> None:
    text = splice(lambda: "\n| a |\n")
    assert text.strip().startswith(OPEN) and text.strip().endswith(CLOSE)
    assert cut(text, "x.md").parts == ["| a |"]
