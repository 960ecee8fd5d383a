"""``mcp-compare site``: the real ``mkdocs build --strict`` with the Material theme."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from conftest import mc

from compare._paths import PROJECT_ROOT
from compare.site import render


def test_strict_build_produces_the_site(site_env: Path) -> None:
    render()
    proc = mc("site")
    assert proc.returncode == 0, proc.stderr
    built = site_env / "site" / "build"
    pages = list(built.rglob("*.html"))
    assert (built / "index.html").is_file() and (built / "search" / "search_index.json").is_file()
    assert len(pages) >= len(list((site_env / "site" / "docs").rglob("*.md")))
    assert re.search(r"built \d+ HTML pages in [\d.]+ s", " ".join(proc.stdout.split()))
    cell = (built / "cells" / "command--0--roots-list--2025-11-25--roots.html").read_text("utf-8")
    assert "<script>window.__pwned" not in cell and "&lt;script&gt;window" in cell
    assert 'href="javascript:' not in cell
    roots = (built / "roots.html").read_text("utf-8")
    assert 'id="root-01"' in roots


def test_a_broken_link_fails_the_strict_build_cleanly_and_keeps_the_last_site(
    site_env: Path,
) -> None:
    render()
    assert mc("site").returncode == 0
    index = site_env / "site" / "build" / "index.html"
    before = index.read_bytes()
    page = site_env / "site" / "docs" / "legend.md"
    page.write_text(page.read_text("utf-8") + "\n[gone](no-such-page.md)\n", "utf-8")
    proc = mc("site")
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    # mkdocs notes the missing page; the site's own link check over every built page
    # (cell pages are not mkdocs' pages) is what fails the build, before it replaces the last.
    assert "broken link" in said and "no-such-page.md" in said
    assert "Traceback" not in proc.stderr
    assert index.read_bytes() == before  # the previous build is still there
    assert (site_env / "site" / "build" / "cells").is_dir()  # with its cell pages
    # ``.work`` holds the records of what was built (which cell pages need writing again).
    assert sorted(p.name for p in (site_env / "site").iterdir()) == [".work", "build", "docs"]


CELL = "command--0--roots-list--2025-11-25--roots"


def test_a_changed_cell_page_is_the_only_page_written_again(site_env: Path) -> None:
    render()
    assert mc("site").returncode == 0
    built = site_env / "site" / "build"
    other = built / "cells" / "ts-sdk--1.32.2--roots-list--2025-11-25--roots.html"
    other_before = other.stat().st_mtime_ns
    source = site_env / "site" / "docs" / "cells" / f"{CELL}.md"
    source.write_text(source.read_text("utf-8") + "\nA line added by the test.\n", "utf-8")
    proc = mc("site")
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "summary pages unchanged" in said and "cell pages: 1 written" in said, said
    page = (built / "cells" / f"{CELL}.html").read_text("utf-8")
    assert "A line added by the test." in page
    assert other.stat().st_mtime_ns == other_before  # kept, not written again
    # Nothing changed: nothing written.
    again = " ".join(mc("site").stdout.split())
    assert "summary pages unchanged" in again and "cell pages: 0 written" in again, again


def test_a_cell_page_has_the_look_of_the_site(site_env: Path) -> None:
    render()
    assert mc("site").returncode == 0
    built = site_env / "site" / "build"
    page = (built / "cells" / f"{CELL}.html").read_text("utf-8")
    summary = (built / "legend.html").read_text("utf-8")
    for shared in ('class="md-header', 'class="md-footer"', "assets/mcp-compare.css"):
        assert shared in page and shared in summary, shared
    assert "MCPCOMPARESHELL" not in page and "_shell" not in page
    title = re.search(r"<title>(.*?)</title>", page)
    # in words (issue 42): the implementation's name, what the scenario tests, the revision
    assert title and title.group(1).startswith("Command template 0 (roots declared) · "), title
    assert " · 2025-11-25 - " in title.group(1) and "roots-list" not in title.group(1), title
    toc = page[page.index('data-md-component="toc"') :]
    assert 'href="#wire-log"' in toc[: toc.index("</nav>")]  # its own headings, in the sidebar
    assert f"/cells/{CELL}.html" in page  # its own address, not the shell's
    assert not (built / "cells" / "_shell.html").exists()
    assert "_shell" not in (built / "sitemap.xml").read_text("utf-8")


def test_a_link_to_a_cell_page_that_is_gone_fails_the_build(site_env: Path) -> None:
    render()
    assert mc("site").returncode == 0
    (site_env / "site" / "docs" / "cells" / f"{CELL}.md").unlink()
    proc = mc("site")
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    assert "broken link" in said and f"cells/{CELL}.html" in said, said


def test_site_without_rendered_pages_says_what_to_run(site_env: Path) -> None:
    proc = mc("site")
    assert proc.returncode == 2
    assert "mcp-compare render" in proc.stderr


def test_serve_serves_the_built_site_on_localhost(site_env: Path) -> None:
    render()
    assert mc("site").returncode == 0
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "compare", "site", "--serve", "--port", str(port)],
        cwd=PROJECT_ROOT,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        body = b""
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=2) as r:
                    body = r.read()
                break
            except OSError:
                time.sleep(0.1)
        assert b"MCP, feature by feature" in body
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_hostile_client_run_by_the_engine_is_text_in_the_built_html(
    site_env: Path, hostile_results: Path
) -> None:
    shutil.copytree(hostile_results, site_env / "results", dirs_exist_ok=True)
    render()
    assert mc("site").returncode == 0
    pages = list((site_env / "site" / "build" / "cells").glob("command--cmd-*.html"))
    assert len(pages) == 1, pages
    page = pages[0].read_text("utf-8")
    body = page[page.index('<article class="md-content__inner') :]
    for tag in ("<script>window", "<img src=x", "<iframe", "<b>b</b>", 'href="javascript:'):
        assert tag not in body, tag
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in body
    assert "&lt;iframe src=javascript:window.__pwned=4&gt;" in body
    assert "<title>Command template cmd-" in page
    assert "<script>" not in page.split("<title>")[1][:200]


def test_a_changed_part_of_a_summary_page_needs_no_mkdocs_build(site_env: Path) -> None:
    render()
    assert mc("site").returncode == 0
    page = site_env / "site" / "docs" / "roots.md"
    text = page.read_text("utf-8")
    at = text.index("<!-- mc-part -->") + len("<!-- mc-part -->\n")
    page.write_text(text[:at] + "\nA part changed by the test.\n" + text[at:], "utf-8")
    proc = mc("site")
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "summary pages unchanged" in said, said
    built = (site_env / "site" / "build" / "roots.html").read_text("utf-8")
    assert "A part changed by the test." in built and "mc-part" not in built
    # Outside a part, the page itself changed: mkdocs builds again.
    page.write_text(page.read_text("utf-8").replace("# Roots", "# Roots again", 1), "utf-8")
    again = " ".join(mc("site").stdout.split())
    assert "summary pages rebuilt" in again, again
