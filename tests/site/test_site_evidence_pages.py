"""Issue 42: evidence (cell) pages for readers — a title in words, what was asked and what came
back first, the facts of the side the cell is about, a way back to the rows it is evidence
for, no literally printed escapes — and a contracts page whose anchors all resolve."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from conftest import mc
from site_data import write_cell

from compare.site import render
from compare.site._cell_view import TITLE_LIMIT, cell_title, scenario_words, summary
from compare.site._cells import Cell, Check
from compare.site._inputs import load_site_data
from compare.site._render import _tail, _wire_line, safe_title

CLIENT = "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md"
SERVER_REV = "2025-11-25"


def _docs(root: Path) -> Path:
    return root / "site" / "docs"


def _page(root: Path, rel: str) -> str:
    return (_docs(root) / rel).read_text(encoding="utf-8")


def _shown(text: str) -> str:
    """A page's Markdown as a reader reads it: references resolved, break points gone."""
    return html.unescape(text).replace("<wbr>", "")


def _server_cell(results: Path) -> Path:
    """A server cell as the harness writes one: our scripted client's initialize goes out,
    the server's answer comes in; the verdict holds no client facts (they are ours)."""
    folder = write_cell(
        results, "go-sdk-server", "v1.8.0", "server-asks", SERVER_REV, "informational",
        variant="default",
    )  # fmt: skip
    ours = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": SERVER_REV,
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": "mcp-compare-client", "version": "0.1.0"},
        },
    }
    answer = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": SERVER_REV,
            "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "example-go-server", "version": "9.9.9"},
        },
    }
    lines = [
        {"n": 1, "t": 0.001, "dir": "out", "raw": json.dumps(ours)},
        # an HTTP body ends in a line break: shown without it, not as an escape
        {"n": 2, "t": 0.002, "dir": "in", "raw": json.dumps(answer) + "\n"},
        {"n": 3, "t": 0.003, "dir": "out", "raw": '{"jsonrpc":"2.0","method":"x"}'},
    ]
    (folder / "transcript.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    (folder / "server.stderr").write_text(
        "\x1b[91m\x1b[1mError: \x1b[0mcoloured\n", encoding="utf-8"
    )
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    verdict.update(
        client_info=None,
        client_protocol_version=None,
        client_capabilities=None,
        negotiated_revision=None,
        reason="asks: never asked for roots (no roots/list request in the whole exchange)",
    )
    verdict["checks"] = [
        {
            "id": "asks",
            "title": "When the server first asks for roots",
            "verdict": "informational",
            "outcome": "never",
            "expected": "recorded: after initialized, on a tool call, or never",
            "observed": "no roots/list request in the whole exchange",
            "reason": "never asked for roots (no roots/list request in the whole exchange)",
            "evidence": [],
            "refs": [],
        }
    ]
    (folder / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    return folder


def _cite_server_cell(root: Path) -> None:
    """ROOT-02 cites the server cell (rows.json status.<impl>.revisions.<rev>.cell)."""
    path = root / "build" / "rows.json"
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows["areas"][0]["rows"][1]["status"]["go-sdk-server"] = {
        "state": "observed",
        "label": "observed",
        "revisions": {
            SERVER_REV: {
                "cell": f"results/go-sdk-server/v1.8.0/server-asks/{SERVER_REV}~default",
                "verdict": "informational",
            }
        },
    }
    path.write_text(json.dumps(rows), encoding="utf-8")


def _server_page(root: Path) -> str:
    return _page(root, f"cells/go-sdk-server--v1.8.0--server-asks--{SERVER_REV}--default.md")


def test_the_title_says_name_version_what_is_tested_and_revision_not_ids(site_env: Path) -> None:
    render()
    page = _page(site_env, CLIENT)
    front = json.loads(page.split("\n")[1].removeprefix("title: "))
    heading = _shown(next(line for line in page.splitlines() if line.startswith("# ")))
    data = load_site_data()
    words = scenario_words(data.scenarios["roots-list"], "roots-list")
    expected = f"TypeScript SDK 1.32.2 (roots declared) · {words} · 2025-11-25"
    assert heading == f"# {expected}"
    assert front == safe_title(expected)
    for text in (front, heading):
        assert "roots-list" not in text and "ts-sdk" not in text and "~roots" not in text
    # the ids stay, lower down, for maintainers
    ids = _shown(page[page.index("For maintainers") :])
    assert "<code>ts-sdk</code>" in ids and "<code>roots-list</code>" in ids


def test_a_long_title_keeps_its_revision_within_what_the_header_shows() -> None:
    cell = Cell("x", Path("."), "t", "1.0", "", "s", "2025-11-25", "pass", "", [], {})
    data = load_site_data()
    title = cell_title(data, cell, {"title": "a very long question " * 12})
    assert len(title.page) <= TITLE_LIMIT and title.page.endswith("... · 2025-11-25")
    assert safe_title(title.page) == title.page
    assert title.heading.endswith("question · 2025-11-25")  # the heading says it all


def test_the_page_opens_with_what_was_asked_what_came_back_and_why(site_env: Path) -> None:
    render()
    page = _shown(_page(site_env, CLIENT))
    top = page[: page.index("## What was tested")]
    assert "- **Expected:** space, # and é percent-encoded" in top
    assert "- **Came back:** file:///tmp/ws/web%20%23staging%20%C3%A9" in top
    assert "- **Why:** the root URI file:///tmp/ws/web%20%23staging%20%C3%A9 was judged pass" in top
    assert "<strong>MUST</strong>" in top and "**MUST**" not in page  # the spec's sentence
    assert top.index("**Expected:**") < top.index("| about this cell |")
    assert "results folder" not in page and "results/ts-sdk" not in page


def test_a_server_cell_shows_the_servers_facts_and_no_client_field(site_env: Path) -> None:
    _server_cell(site_env / "results")
    render()
    page = _shown(_server_page(site_env))
    table = page[page.index("| about this cell |") : page.index("## What was tested")]
    for client_only in ("clientInfo", "client capabilities", "protocolVersion it sent"):
        assert client_only not in table
    assert "<code>example-go-server 9.9.9</code> (wire log <code>#2</code>)" in table
    assert '<code>{"tools": {"listChanged": true}}</code>' in table
    assert f"protocolVersion it answered | <code>{SERVER_REV}</code>" in table
    assert not re.search(r"\|\s*—\s*\|", table)  # no field of dashes
    # the sentence without the observation the judge repeats in parentheses after it
    assert "- **Why:** never asked for roots\n" in page
    assert "Go SDK server" in page.split("\n# ", 1)[1].splitlines()[0]
    # the wire log: the line break that ended a body is not printed as an escape, and a
    # coloured stderr shows its text, not its colour codes
    assert "\\u000a" not in page and "\\u001b" not in page
    assert "Error: coloured" in page


def test_a_cell_page_links_back_to_the_rows_it_is_evidence_for(site_env: Path) -> None:
    _server_cell(site_env / "results")
    _cite_server_cell(site_env)
    render()
    client = _page(site_env, CLIENT)
    top = client[: client.index("!!! ")]
    assert "[ROOT&#45;01](../roots.md#root-01) (Roots): A server asks for roots" in top
    assert "ROOT&#45;02" not in top
    server = _server_page(site_env)
    assert "[ROOT&#45;02](../roots.md#root-02) (Roots)" in server[: server.index("!!! ")]


def test_a_row_that_changes_renders_the_cell_page_again(site_env: Path) -> None:
    """Cell pages are kept while their key holds; the rows citing a cell are in it."""
    _server_cell(site_env / "results")
    render()
    assert "ROOT&#45;02" not in _server_page(site_env)
    assert render()["kept"] > 0
    _cite_server_cell(site_env)
    render()
    assert "[ROOT&#45;02](../roots.md#root-02)" in _server_page(site_env)


def test_the_sentence_is_the_deciding_checks_unless_the_verdict_says_otherwise() -> None:
    check = Check("a", "fail", "x", "y", "it broke", (), ())
    other = Check("b", "pass", "x", "y", "fine", (), ())
    cell = Cell("r", Path("."), "t", "1", "", "s", "r", "fail", "a: it broke", [other, check], {})
    assert summary(cell).check is check and summary(cell).sentence == "it broke"
    cell.reason = "timed out after 30 s; client killed"
    cell.verdict = "error"
    said = summary(cell)
    assert said.check is None and said.sentence == "timed out after 30 s; client killed"


def test_wire_lines_and_stderr_show_no_escapes(tmp_path: Path) -> None:
    from compare.site._cells import WireLine

    assert _wire_line(WireLine(1, 0.5, "in", '{"a":1}\r\n')) == '   1   0.5000 → {"a":1}'
    two = _wire_line(WireLine(2, 0.5, "in", "event: x\ndata: {}"))
    first, second = two.split("\n")
    assert first.endswith("→ event: x") and second.strip() == "data: {}"
    assert second.index("data") == first.index("event")  # continued under its first line
    err = tmp_path / "stderr"
    err.write_bytes(b"\x1b[32mok\x1b[0m \x1b]0;title\x07done\n")
    assert _tail(err) == ["ok done"]


def test_wire_log_and_stderr_blocks_wrap_instead_of_scrolling(site_env: Path) -> None:
    _server_cell(site_env / "results")
    render()
    page = _server_page(site_env)
    assert "```{.text .mc-wire}" in page and "```{.text .mc-stderr}" in page
    css = (Path(__file__).parents[2] / "site/assets/mcp-compare.css").read_text(encoding="utf-8")
    block = css[css.index("/* cell pages (evidence) */") :]
    assert ".mc-wire" in block and ".mc-stderr" in block
    assert "pre-wrap" in block and "overflow-wrap: anywhere" in block


def _in_page_anchors(page: str) -> tuple[set[str], list[str]]:
    return set(re.findall(r'\sid="([^"]*)"', page)), re.findall(r'href="#([^"]*)"', page)


def test_in_page_links_resolve_on_the_contracts_page_and_a_cell_page(site_env: Path) -> None:
    """Ids made from text with placeholders (``results/<cell>/…``) once broke four links of
    the contracts page; a cell page's "skip to content" pointed at the shell's heading."""
    render()
    assert mc("site").returncode == 0
    built = site_env / "site" / "build"
    page = (built / "maintainers" / "contracts.html").read_text("utf-8")
    ids, hrefs = _in_page_anchors(page)
    assert len(hrefs) > 20
    for anchor in hrefs:
        assert anchor in ids, anchor
    for name in ids:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+", name), name
        assert not re.search(r"lt-?(id|cell|area|stage|name)-?gt", name), name
    cell = (built / CLIENT.replace(".md", ".html")).read_text("utf-8")
    ids, hrefs = _in_page_anchors(cell)
    assert "check-root-uri-encoding" in hrefs  # the checks table's link to its check
    for anchor in hrefs:
        assert anchor in ids, anchor
