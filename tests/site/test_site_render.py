"""``mcp-compare render``: pages from the data, stamped, escaped, linked, and ``--check``."""

from __future__ import annotations

import html
import json
import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _isolate import isolate
from conftest import mc
from site_data import DATED, HOSTILE_NAME, write_cell, write_dataset

from compare import __version__, _paths
from compare._paths import PROJECT_ROOT
from compare.site import render
from compare.site._render import STAMP


def _docs(root: Path) -> Path:
    return root / "site" / "docs"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path) -> Iterator[Path]:
    """The small data set rendered once, for the tests that only read the pages: each render
    takes seconds, and these tests change nothing before or after it (the others render
    their own ``site_env``, changed as they need)."""
    root = tmp_path_factory.mktemp("rendered")
    with pytest.MonkeyPatch.context() as patch:
        isolate(root, patch, pinned_spec)  # as site_env does for one test
        patch.setenv("MCP_COMPARE_SITE", str(root / "site"))
        write_dataset(root)
        summary = render()
    (root / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    yield root


def test_every_page_is_stamped_generated(rendered: Path) -> None:
    summary = json.loads((rendered / "summary.json").read_text(encoding="utf-8"))
    pages = sorted(_docs(rendered).rglob("*.md"))
    assert summary["pages"] == len(pages) > 10
    for page in pages:
        text = page.read_text(encoding="utf-8")
        body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
        assert body.startswith(STAMP), page


def test_the_pages_an_implementer_needs_exist(rendered: Path) -> None:
    docs = _docs(rendered)
    for rel in (
        "index.md",
        "roots.md",
        "legend.md",
        "changes.md",
        "implementations/ts-sdk.md",
        "implementations/mcpx.md",
        "revisions/2026-07-28.md",
        "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md",
        "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.transcript.jsonl",
    ):
        assert (docs / rel).is_file(), rel


def test_rows_have_stable_anchors_and_status_cells_link_to_cell_pages(rendered: Path) -> None:
    area = (_docs(rendered) / "roots.md").read_text(encoding="utf-8")
    assert "{ #root-01 }" in area and "{ #root-02 }" in area
    # The tables are HTML: links go to the built .html pages (mkdocs rewrites only Markdown),
    # each square to its newest judged cell.
    assert f'href="cells/ts-sdk--1.32.2--roots-list--{DATED[-1]}--roots.html"' in area
    assert 'href="cells/py-sdk--2.3.0--roots-list--2025-11-25--roots.html"' in area


def test_citations_link_to_the_pinned_commit_with_their_status(rendered: Path) -> None:
    area = (_docs(rendered) / "roots.md").read_text(encoding="utf-8")
    assert (
        "blob/b0f60ba5409db7a6582440a7b473cc0398890f15/docs/specification/2025-11-25/client/roots.mdx#L47"
        in area
    )
    assert "☑&nbsp;verified" in area and "✔&nbsp;verified" not in area
    assert "⌀&nbsp;unavailable" in area  # the gh: citation with no clone here
    # a check's ref over a line range: its lines shown, linked as a range, its quote whole
    cell = _docs(rendered) / "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md"
    page = html.unescape(cell.read_text(encoding="utf-8")).replace("<wbr>", "")  # break points
    assert "<code>docs/specification/2025-11-25/client/roots.mdx:110-111</code>" in page
    assert "docs/specification/2025-11-25/client/roots.mdx#L110-L111" in page
    # shown as the spec's page shows it (issue 42, item 6): bold and code, not their marks
    quoted = (
        "“This <strong>MUST</strong> be a <code>file://</code> URI in the current specification.”"
    )
    assert quoted in page and "**MUST**" not in page


def _home_legend(root: Path) -> str:
    home = (_docs(root) / "index.md").read_text(encoding="utf-8")
    return home[home.index("## Legend") :]


def test_a_verified_quote_is_not_marked_like_a_pass() -> None:
    """Issue 42 item 4: one symbol per meaning. A verified citation says the quote holds; the
    pass mark says a program met the spec; the two never share a symbol."""
    from compare.site._symbols import SYMBOLS

    judged = {sym for kind in ("verdict", "status") for sym, _ in SYMBOLS[kind].values()}
    for state in ("verified", "verified-normalised"):
        assert SYMBOLS["citation"][state][0] not in judged, state


def test_home_legend_says_what_each_answer_of_the_tables_means(rendered: Path) -> None:
    legend = html.unescape(_home_legend(rendered))
    for kind in ("yes", "no", "partial", "not-tested", "n-a"):
        assert f"mc-ans-{kind}" in legend, kind
    assert "cannot apply" in legend and "no verdict" in legend


def test_legend_page_lists_symbols_of_every_page(site_env: Path) -> None:
    render()
    legend = html.unescape((_docs(site_env) / "legend.md").read_text(encoding="utf-8"))
    assert "<code>non-strict</code>" in legend  # only on the py-sdk cell page
    # Cell pages list each check's acceptable outcomes, and the scenarios grade a client that
    # ended before initialize as error, so that symbol occurs without any error cell.
    assert "<code>error</code>" in legend
    assert "<code>observed</code>" not in legend  # no row state is "observed" yet
    rows_path = site_env / "build" / "rows.json"
    rows = json.loads(rows_path.read_text(encoding="utf-8"))
    rows["areas"][0]["rows"][1]["status"]["ts-sdk"]["state"] = "observed"
    rows_path.write_text(json.dumps(rows), encoding="utf-8")
    render()
    legend = html.unescape((_docs(site_env) / "legend.md").read_text(encoding="utf-8"))
    assert "<code>observed</code>" in legend


def test_hostile_client_info_is_escaped_in_markdown(site_env: Path) -> None:
    render()
    page = (_docs(site_env) / "cells/command--0--roots-list--2025-11-25--roots.md").read_text(
        encoding="utf-8"
    )
    # fences are ```text, or ```{.text .mc-wire} for the wire log and stderr (they wrap)
    outside_fences = re.sub(r"(?ms)^ *(`{3,})(?:text|\{\.text[^}\n]*\})$.*?^ *\1$", "", page)
    assert "<script>" not in outside_fences
    assert "javascript:" not in outside_fences
    assert "{{ 7*7 }}" not in outside_fences and "{% raw %}" not in outside_fences
    assert "&#60;script&#62;" in page  # shown, as text
    assert HOSTILE_NAME not in outside_fences
    area = (_docs(site_env) / "roots.md").read_text(encoding="utf-8")
    assert HOSTILE_NAME not in area and "<script>" not in area  # the row note holds it too
    assert "&#60;script&#62;window" in area


def test_render_check_passes_when_current_and_fails_on_drift(site_env: Path) -> None:
    render()
    assert mc("render", "--check").returncode == 0
    page = _docs(site_env) / "legend.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nhand edit\n", encoding="utf-8")
    stale = _docs(site_env) / "old-page.md"
    stale.write_text("x", encoding="utf-8")
    proc = mc("render", "--check")
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    assert "changed: legend.md" in said and "stale: old-page.md" in said
    assert "Traceback" not in proc.stderr
    render()
    assert not stale.exists()
    assert mc("render", "--check").returncode == 0


def test_render_is_deterministic(site_env: Path) -> None:
    render()
    first = {p: p.read_bytes() for p in _docs(site_env).rglob("*") if p.is_file()}
    assert render()["written"] == 0
    assert first == {p: p.read_bytes() for p in _docs(site_env).rglob("*") if p.is_file()}


def test_malformed_verdict_is_a_recorded_problem_not_a_crash(site_env: Path) -> None:
    bad = site_env / "results/ts-sdk/1.32.2/handshake/2025-11-25"
    bad.mkdir(parents=True)
    (bad / "verdict.json").write_text("{not json", encoding="utf-8")
    render()
    home = (_docs(site_env) / "index.md").read_text(encoding="utf-8")
    assert "Results that could not be read" in home
    assert "unreadable verdict" in home


def test_malformed_rows_json_is_a_clean_error(site_env: Path) -> None:
    (site_env / "build" / "rows.json").write_text('{"areas": 3', encoding="utf-8")
    proc = mc("render")
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    assert (
        "rows.json is not readable JSON" in said and "hint: re-create it: mcp-compare rows" in said
    )
    assert "Traceback" not in proc.stderr


def test_summary_pages_say_when_and_against_what_they_were_measured(site_env: Path) -> None:
    """The home page, each area page and the changes page carry the results' dates (from the
    cells, not the clock), the tool's version and the spec's commit with its revisions."""
    render()
    docs = _docs(site_env)
    for rel in ("index.md", "roots.md", "changes.md"):
        text = html.unescape((docs / rel).read_text(encoding="utf-8"))
        assert '<span class="mc-date">2024-11-05</span>' in text, rel  # never broken at "-"
        shown = re.sub(r"<[^>]+>", "", text)
        assert "**Results as of 2026-11-29**" in shown, rel
        assert "from 2026-11-29 13:00 to 2026-11-29 13:00 UTC" in shown, rel
        assert f"mcp-compare {__version__}" in shown, rel
        assert ", revisions 2024-11-05, 2025-03-26" in shown and "draft." in shown, rel
    # a newcomer learns what MCP is and where its specification lives (issue 42, item 4)
    home = (docs / "index.md").read_text(encoding="utf-8")
    assert "**New to MCP?**" in home
    assert "(https://modelcontextprotocol.io/specification)" in home
    # with no cell played, the pages say so instead of a date
    shutil.rmtree(site_env / "results")
    (site_env / "results").mkdir()
    render()
    home = (docs / "index.md").read_text(encoding="utf-8")
    assert "**No results yet**" in home and "Results as of" not in home


def test_cell_pages_name_this_machines_folders_and_the_download_keeps_them(
    site_env: Path,
) -> None:
    """A client's stderr echoing our command line, a transcript note with the server's argv
    and an observation quoting a path show the folders by name; the raw transcript kept for
    download is unchanged, and a path that only starts like the checkout is left alone."""
    root, tools = str(PROJECT_ROOT), str(_paths.tools_dir())
    folder = write_cell(
        site_env / "results", "ts-sdk", "1.32.2", "roots-list", "2025-03-26", "pass"
    )
    (folder / "client.stderr").write_text(
        f"spawn {tools}/venvs/x/bin/python {root}/compare/peer --plan p.json\n"
        f"see {root}line for more\n"
        f'  File "{sys.base_prefix}/lib/python3.11/asyncio/streams.py", line 389\n'
        f"cache at {Path.home()}/.cache/uv\n",
        encoding="utf-8",
    )
    note = {"n": 7, "t": 0.07, "dir": "note", "raw": json.dumps({"argv": [f"{root}/x"]})}
    with (folder / "transcript.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps(note) + "\n")
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    verdict["checks"][0]["observed"] = f"read {root}/README.md"
    (folder / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    render()
    slug = "ts-sdk--1.32.2--roots-list--2025-03-26--roots"
    page = (_docs(site_env) / f"cells/{slug}.md").read_text(encoding="utf-8")
    shown = html.unescape(page)
    assert "<tools>/venvs/x/bin/python <mcp-compare>/compare/peer" in shown
    assert "<mcp-compare>/x" in shown and "read <mcp-compare>/README.md" in shown
    assert f"{root}line" in shown  # not the checkout: another folder that starts alike
    assert f"{root}/" not in shown
    # A traceback's Python and a cache in the home folder are this machine's too.
    assert '"<python>/lib/python3.11/asyncio/streams.py"' in shown
    assert "cache at ~/.cache/uv" in shown and f"{Path.home()}/" not in shown
    raw = (_docs(site_env) / f"cells/{slug}.transcript.jsonl").read_text(encoding="utf-8")
    assert f"{root}/x" in raw


def test_missing_inputs_render_as_not_run(site_env: Path) -> None:
    (site_env / "build" / "rows.json").unlink()
    (site_env / "build" / "diff.json").unlink()
    render()
    home = (_docs(site_env) / "index.md").read_text(encoding="utf-8")
    assert "Not run, because the rows have not been computed yet" in home
    shown = html.unescape(home).replace("<wbr>", "")
    assert "<code>build/rows.json</code> is missing" in shown  # the builder's box names it
    rev = (_docs(site_env) / "revisions/2025-11-25.md").read_text(encoding="utf-8")
    assert "Not run, because `build/diff.json` is missing" in rev


def test_a_flooding_transcript_is_capped_on_its_page(site_env: Path) -> None:
    cell = site_env / "results/ts-sdk/1.32.2/roots-list/2025-11-25~roots"
    line = json.dumps({"n": 1, "t": 0.1, "dir": "in", "raw": "x" * 5000})
    (cell / "transcript.jsonl").write_text((line + "\n") * 3000, encoding="utf-8")
    render()
    page = _docs(site_env) / "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md"
    text = page.read_text(encoding="utf-8")
    assert "Shown: the first 400 of 3000 entries" in text
    assert len(text) < 1_200_000
    assert re.search(r"shown: first 2000 of 5000 characters", text)


def test_revision_page_shows_the_generated_model_source(site_env: Path) -> None:
    render()
    page = (_docs(site_env) / "revisions/2025-06-18.md").read_text(encoding="utf-8")
    assert "#### Root" in page and "class Root(" in page
    assert "schemas/models/rev_2025_06_18.py" in html.unescape(page).replace("<wbr>", "")


def test_tampered_transcript_lines_are_shown_with_what_is_wrong(site_env: Path) -> None:
    cell = site_env / "results/ts-sdk/1.32.2/roots-list/2025-11-25~roots"
    lines = [
        json.dumps({"n": 1, "t": 0.1, "dir": "in", "raw_b64": "/w=="}).encode(),
        json.dumps(
            {"n": 2, "t": 0.2, "dir": "in", "raw": "{", "parse_error": "unexpected end"}
        ).encode(),
        json.dumps(
            {"n": 3, "t": 0.3, "dir": "out", "raw": "abc", "truncated": True, "bytes": 9}
        ).encode(),
        b"this is not json at all",
        b"\xff\xfe not utf-8",
        b"[1, 2]",
    ]
    (cell / "transcript.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    render()
    text = (_docs(site_env) / "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md").read_text(
        encoding="utf-8"
    )
    assert "not valid UTF-8: shown as Python bytes" in text and "b'\\xff'" in text
    assert "not JSON: unexpected end" in text
    assert "truncated by the harness; full length 9 bytes" in text
    assert text.split("## Wire log")[1].count("malformed transcript line") == 3
    assert "line 4: not a transcript entry" in html.unescape(text)


def test_a_cell_without_transcript_says_so(site_env: Path) -> None:
    cell = site_env / "results/ts-sdk/1.32.2/roots-list/2025-11-25~roots"
    (cell / "transcript.jsonl").unlink()
    render()
    text = (_docs(site_env) / "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md").read_text(
        encoding="utf-8"
    )
    assert "No transcript was recorded for this cell." in text
    assert "transcript.jsonl" not in text.split("## Wire log")[1]


def test_unknown_verdict_word_is_a_problem_not_a_cell(site_env: Path) -> None:
    cell = site_env / "results/ts-sdk/1.32.2/roots-list/2025-11-25~roots"
    verdict = json.loads((cell / "verdict.json").read_text(encoding="utf-8"))
    verdict["verdict"] = "<b>great</b>"
    (cell / "verdict.json").write_text(json.dumps(verdict), encoding="utf-8")
    render()
    home = (_docs(site_env) / "index.md").read_text(encoding="utf-8")
    assert "unknown verdict" in html.unescape(home) and "<b>great</b>" not in home
    assert not (_docs(site_env) / "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md").exists()


def test_folders_that_would_share_a_page_name_each_get_their_own(site_env: Path) -> None:
    write_cell(site_env / "results", "ts_sdk", "1.32.2", "roots-list", "2025-11-25", "fail")
    render()
    pages = sorted((_docs(site_env) / "cells").glob("ts-sdk--1.32.2--roots-list--2025-11-25*.md"))
    assert len(pages) == 2 and all(re.search(r"--roots--[0-9a-f]{8}\.md$", p.name) for p in pages)
    assert mc("site").returncode == 0


def test_a_server_cell_shows_the_servers_stderr_not_our_clients(site_env: Path) -> None:
    """Issue 36 item 7: in a server cell client.stderr is our scripted client's; the page
    shows what the server under test wrote, under its own name."""
    cell = write_cell(
        site_env / "results", "server-everything", "2026.8.31", "server-ping", "2025-11-25", "pass"
    )
    (cell / "client.stderr").write_text("our scripted client\n", encoding="utf-8")
    (cell / "server.stderr").write_text("Starting default (STDIO) server...\n", encoding="utf-8")
    render()
    page = next((_docs(site_env) / "cells").glob("server-everything--*server-ping*.md"))
    text = page.read_text(encoding="utf-8")
    assert "Server stderr (first lines" in text and "Starting default (STDIO) server" in text
    assert "our scripted client" not in text and "Client stderr" not in text
    # the wire log's arrows read from the server's side: its lines come in to our client
    assert "`→` the server to our test client, `←` our test client to the server" in text
    client = (_docs(site_env) / "cells/ts-sdk--1.32.2--roots-list--2025-11-25--roots.md").read_text(
        encoding="utf-8"
    )
    assert "`→` the client to our test server, `←` our test server to the client" in client
