"""The site's escaping (compare/site/_escape.py), rendered by the Markdown the site is built with.

Pages are Markdown turned into HTML by Python-Markdown with the extensions of
``site/mkdocs.yml``. For any text a client could send, the rendered page must show exactly
that text — as text, never as markup — in every place the templates put it: a table cell
(whose row keeps its column count), inline code, a link's text, a list item, an admonition
title and body, a heading, a fenced code block, and a value the template forgot to escape
(the template environment's ``finalize``). "Exactly" means: the same characters, with
control characters, line separators and lone surrogates shown as ``\\uXXXX`` (the documented
way esc keeps a value on one line and writable), and ASCII whitespace compared as a browser
shows it (runs collapsed, ends trimmed) outside code blocks.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import markdown
from _strategies import EXAMPLES, deep, hostile_text
from hypothesis import given, settings
from hypothesis import strategies as st

from compare._yaml import load_yaml
from compare.site._escape import esc, fence, link, slug
from compare.site._render import SITE_SOURCE, _environment, pretty_json


def _extensions() -> tuple[list[str], dict[str, Any]]:
    names: list[str] = []
    configs: dict[str, Any] = {}
    for item in load_yaml(SITE_SOURCE / "mkdocs.yml")["markdown_extensions"]:
        name, config = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        names.append(name)
        if config:
            configs[name] = config
    return names, configs


NAMES, CONFIGS = _extensions()


def render(text: str) -> Node:
    html = markdown.Markdown(extensions=NAMES, extension_configs=CONFIGS).convert(text)
    tree = Tree()
    tree.feed(html)
    tree.close()
    return tree.root


class Node:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs = tag, attrs
        self.children: list[Node | str] = []

    @property
    def elements(self) -> list[Node]:
        return [c for c in self.children if isinstance(c, Node)]

    def text(self, skip: str = "") -> str:
        return "".join(
            c if isinstance(c, str) else c.text(skip)
            for c in self.children
            if isinstance(c, str) or not (skip and skip in (c.attrs.get("class") or ""))
        )

    def find(self, tag: str) -> list[Node]:
        out = [self] if self.tag == tag else []
        return out + [n for c in self.elements for n in c.find(tag)]


class Tree(HTMLParser):
    VOID = frozenset({"br", "hr", "img", "input", "meta", "link", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        assert tag in [n.tag for n in self.stack], f"stray </{tag}>"
        while self.stack.pop().tag != tag:
            pass

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def shown(text: str) -> str:
    """What the page must show for ``text``: invisible or unwritable characters as escapes."""
    out = []
    for ch in text:
        cp = ord(ch)
        visible = cp >= 0x20 and cp != 0x7F and ch not in "\u2028\u2029"
        out.append(ch if visible and not 0xD800 <= cp <= 0xDFFF else f"\\u{cp:04x}")
    return "".join(out)


def seen(text: str) -> str:
    """Text as a browser shows it outside ``<pre>``: ASCII whitespace runs collapsed."""
    return re.sub(r"[ \t\n\r\f]+", " ", text).strip(" ")


def same(node_text: str, sent: str) -> None:
    assert seen(node_text) == seen(shown(sent)), (node_text, sent)


texts = hostile_text
COLUMNS = 4


@settings(max_examples=400)
@given(texts, texts, texts)
def test_table_row_keeps_its_columns_and_shows_the_text(a: str, b: str, c: str) -> None:
    EXAMPLES["escape: table row"] += 1
    env = _environment()
    row = env.from_string("| {{ a }} | {{ code(b) }} | {{ link(c, 'https://example.com/x') }} |")
    md = "| a | b | c | d |\n|---|---|---|---|\n" + row.render(a=a, b=b, c=c) + f" {esc(a)} |\n"
    html = render(md)
    rows = html.find("tbody")[0].find("tr")
    assert len(rows) == 1
    cells = rows[0].find("td")
    assert len(cells) == COLUMNS
    plain, inline, linked, escaped = cells
    assert not plain.elements and not escaped.elements  # text, not markup
    same(plain.text(), a)
    same(escaped.text(), a)
    assert [e.tag for e in inline.elements] == ["code"]
    # Inside the code span only our line-break opportunities (<wbr>, no text) may be elements.
    assert all(e.tag == "wbr" and not e.children for e in inline.elements[0].elements)
    same(inline.text(), b)
    assert [e.tag for e in linked.elements] == ["a"]
    assert linked.elements[0].attrs.get("href") == "https://example.com/x"
    same(linked.text(), c)


@settings(max_examples=300)
@given(texts, texts, texts)
def test_list_items_admonitions_and_headings_show_the_text(a: str, b: str, c: str) -> None:
    EXAMPLES["escape: list, admonition, heading"] += 1
    env = _environment()
    page = env.from_string(
        '# {{ a }} · {{ b }}\n\n!!! note "Verdict: {{ a }}"\n    {{ b }}\n\n'
        "- expected: {{ a }}\n- observed: {{ b }}\n- why: {{ c }}\n"
    ).render(a=a, b=b, c=c)
    html = render(page)
    heading = html.find("h1")
    assert len(heading) == 1
    same(heading[0].text(skip="headerlink"), f"{a} · {b}")
    box = html.find("div")
    assert len(box) == 1 and "admonition" in (box[0].attrs.get("class") or "")
    title, *body = box[0].elements
    same(title.text(), f"Verdict: {a}")
    same("".join(p.text() for p in body), b)
    items = html.find("li")
    assert len(items) == 3
    for item, label, sent in zip(items, ("expected", "observed", "why"), (a, b, c), strict=True):
        assert not item.elements
        same(item.text(), f"{label}: {sent}")


@settings(max_examples=300)
@given(st.lists(texts, min_size=1, max_size=4), st.booleans())
def test_fenced_lines_show_verbatim(lines: list[str], indented: bool) -> None:
    EXAMPLES["escape: fenced code"] += 1
    block = fence(lines, "json")
    md = "- evidence:\n\n" + re.sub("^", "    ", block, flags=re.M) if indented else block
    html = render(md + "\n")
    pres = html.find("pre")
    assert len(pres) == 1
    # The highlighter drops blank lines at the ends of a block; every other line shows verbatim
    # (a line of spaces as a blank one).
    assert _inner(pres[0].text()) == _inner("\n".join(shown(line) for line in lines))


def _inner(block: str) -> list[str]:
    lines = block.split("\n")
    while lines and not lines[0].strip(" "):
        lines.pop(0)
    while lines and not lines[-1].strip(" "):
        lines.pop()
    # A line of spaces alone may come out empty (the highlighter keeps no trailing spaces);
    # it still shows as the blank line it was.
    return [line if line.strip(" ") else "" for line in lines]


@settings(max_examples=300)
@given(texts, st.one_of(texts, st.sampled_from(["javascript:alert(1)", "https://a.b/c d", "x.md"])))
def test_links_never_carry_an_unsafe_target(text: str, target: str) -> None:
    EXAMPLES["escape: links"] += 1
    html = render(f"see {link(text, target)} here\n")
    anchors = html.find("a")
    assert len(anchors) <= 1
    if anchors:
        href = anchors[0].attrs.get("href") or ""
        assert href.startswith(("http://", "https://")) or re.fullmatch(r"[A-Za-z0-9._/#~-]+", href)
        same(anchors[0].text(), text)
    same(html.text(), f"see {text} here")


@settings(max_examples=200)
@given(st.one_of(texts, st.just(deep(20_000))), st.booleans())
def test_pretty_json_of_a_client_line_renders(name: str, whole: bool) -> None:
    EXAMPLES["escape: pretty JSON of a sent line"] += 1
    message = {"method": "initialize", "params": {"clientInfo": {"name": name}}}
    raw = name if whole else json.dumps(message)
    block = fence(pretty_json(raw).splitlines(), "json")
    block.encode("utf-8")  # the page is written as UTF-8
    assert len(render(block + "\n").find("pre")) == 1


@settings(max_examples=300)
@given(texts)
def test_slugs_are_file_and_anchor_safe(text: str) -> None:
    EXAMPLES["escape: slugs"] += 1
    out = slug(text)
    assert re.fullmatch(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?", out), out
    assert slug(out) == out  # a slug of a slug changes nothing


@settings(max_examples=300)
@given(texts, texts)
def test_escaped_text_in_raw_html_attributes_and_content(a: str, b: str) -> None:
    # The matrices (compare/site/_matrix_html.py) are raw HTML in the page, with esc() in
    # quoted attributes (title, aria-label) and in element text.
    EXAMPLES["escape: raw HTML attributes"] += 1
    html = render(f'<div class="m"><span title="{esc(a)}">{esc(b)}</span></div>\n\ntail\n')
    spans = html.find("span")
    assert len(spans) == 1 and not spans[0].elements
    assert spans[0].attrs.get("title") == shown(a)
    same(spans[0].text(), b)
    assert [p.text() for p in html.find("p")] == ["tail"]
