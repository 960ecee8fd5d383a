"""``mcp-compare site``: the real ``mkdocs build --strict`` with the Material theme.

One render and build of the small data set (with the hostile crafted cell and a real cell the
engine played with the hostile client) is made once for the module (``built``): a full build
is most of each test's time, and the tests that only read the site read that one. A test that
changes pages or builds again works on its own copy of that build (``copy_of_built``), so what
it changes is seen by no other test.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import mc
from site_data import write_dataset

from compare._paths import PROJECT_ROOT


@dataclass(frozen=True)
class Built:
    """A rendered and built site: its folder (results, build data, cache and site under it),
    the locations the command line reads, and what its first ``mcp-compare site`` said."""

    root: Path
    env: dict[str, str]
    first: subprocess.CompletedProcess[str]

    @property
    def site(self) -> Path:
        return self.root / "site"


def _env(root: Path) -> dict[str, str]:
    """Every location ``compare._paths`` reads, under ``root`` (as ``isolated`` sets them)."""
    return {
        "MCP_COMPARE_CACHE": str(root / "cache"),
        "MCP_COMPARE_RESULTS": str(root / "results"),
        "MCP_COMPARE_BUILD": str(root / "build"),
        "MCP_COMPARE_SITE": str(root / "site"),
    }


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path, hostile_results: Path
) -> Built:
    """The small data set with its hostile crafted cell, plus the hostile client's real cell,
    rendered and built once. Tests only read it."""
    root = tmp_path_factory.mktemp("site-build")
    write_dataset(root)
    shutil.copytree(hostile_results, root / "results", dirs_exist_ok=True)
    shutil.copytree(pinned_spec / "spec", root / "cache" / "spec")
    env = _env(root)
    proc = mc("render", env=env)
    assert proc.returncode == 0, f"mcp-compare render failed:\n{proc.stderr}"
    return Built(root, env, mc("site", env=env))


@pytest.fixture
def copy_of_built(built: Built, tmp_path: Path) -> Built:
    """A test's own copy of the built site, to change and build again. ``cp -a`` keeps the
    files' times and the hard links between the build and its records (as the build left
    them), but not their inode numbers, which the record of the cell pages holds: the first
    build of a copy writes every cell page again, and no mkdocs build (its key is the pages'
    bytes)."""
    assert built.first.returncode == 0, built.first.stderr
    root = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(built.root), str(root)], check=True)
    return Built(root, _env(root), built.first)


def test_strict_build_produces_the_site(built: Built) -> None:
    proc = built.first
    assert proc.returncode == 0, proc.stderr
    out = built.site / "build"
    pages = list(out.rglob("*.html"))
    assert (out / "index.html").is_file() and (out / "search" / "search_index.json").is_file()
    assert len(pages) >= len(list((built.site / "docs").rglob("*.md")))
    assert re.search(r"built \d+ HTML pages in [\d.]+ s", " ".join(proc.stdout.split()))
    cell = (out / "cells" / "command--0--roots-list--2025-11-25--roots.html").read_text("utf-8")
    assert "<script>window.__pwned" not in cell and "&lt;script&gt;window" in cell
    assert 'href="javascript:' not in cell
    roots = (out / "roots.html").read_text("utf-8")
    assert 'id="root-01"' in roots


def test_a_broken_link_fails_the_strict_build_cleanly_and_keeps_the_last_site(
    copy_of_built: Built,
) -> None:
    site = copy_of_built.site
    index = site / "build" / "index.html"
    before = index.read_bytes()
    page = site / "docs" / "legend.md"
    page.write_text(page.read_text("utf-8") + "\n[gone](no-such-page.md)\n", "utf-8")
    proc = mc("site", env=copy_of_built.env)
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    # mkdocs notes the missing page; the site's own link check over every built page
    # (cell pages are not mkdocs' pages) is what fails the build, before it replaces the last.
    assert "broken link" in said and "no-such-page.md" in said
    assert "Traceback" not in proc.stderr
    assert index.read_bytes() == before  # the previous build is still there
    assert (site / "build" / "cells").is_dir()  # with its cell pages
    # ``.work`` holds the records of what was built (which cell pages need writing again).
    assert sorted(p.name for p in site.iterdir()) == [".work", "build", "docs"]


CELL = "command--0--roots-list--2025-11-25--roots"


def test_a_changed_cell_page_is_the_only_page_written_again(copy_of_built: Built) -> None:
    env, site = copy_of_built.env, copy_of_built.site
    # The copy's first build writes every cell page again (new inode numbers): after it the
    # records are those of a site just built, as when this test built its own.
    settle = mc("site", env=env)
    assert settle.returncode == 0, settle.stderr
    built = site / "build"
    other = built / "cells" / "ts-sdk--1.32.2--roots-list--2025-11-25--roots.html"
    other_before = other.stat().st_mtime_ns
    source = site / "docs" / "cells" / f"{CELL}.md"
    source.write_text(source.read_text("utf-8") + "\nA line added by the test.\n", "utf-8")
    proc = mc("site", env=env)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "summary pages unchanged" in said and "cell pages: 1 written" in said, said
    page = (built / "cells" / f"{CELL}.html").read_text("utf-8")
    assert "A line added by the test." in page
    assert other.stat().st_mtime_ns == other_before  # kept, not written again
    # Nothing changed: nothing written.
    again = " ".join(mc("site", env=env).stdout.split())
    assert "summary pages unchanged" in again and "cell pages: 0 written" in again, again


def test_a_cell_page_has_the_look_of_the_site(built: Built) -> None:
    assert built.first.returncode == 0, built.first.stderr
    out = built.site / "build"
    page = (out / "cells" / f"{CELL}.html").read_text("utf-8")
    summary = (out / "legend.html").read_text("utf-8")
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
    assert not (out / "cells" / "_shell.html").exists()
    assert "_shell" not in (out / "sitemap.xml").read_text("utf-8")


def test_a_link_to_a_cell_page_that_is_gone_fails_the_build(copy_of_built: Built) -> None:
    (copy_of_built.site / "docs" / "cells" / f"{CELL}.md").unlink()
    proc = mc("site", env=copy_of_built.env)
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    assert "broken link" in said and f"cells/{CELL}.html" in said, said


def test_site_without_rendered_pages_says_what_to_run(site_env: Path) -> None:
    proc = mc("site")
    assert proc.returncode == 2
    assert "mcp-compare render" in proc.stderr


def test_serve_serves_the_built_site_on_localhost(built: Built) -> None:
    assert built.first.returncode == 0, built.first.stderr
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "compare", "site", "--serve", "--port", str(port)],
        cwd=PROJECT_ROOT,
        env={**os.environ, **built.env},
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


def test_hostile_client_run_by_the_engine_is_text_in_the_built_html(built: Built) -> None:
    assert built.first.returncode == 0, built.first.stderr
    pages = list((built.site / "build" / "cells").glob("command--cmd-*.html"))
    assert len(pages) == 1, pages
    page = pages[0].read_text("utf-8")
    body = page[page.index('<article class="md-content__inner') :]
    for tag in ("<script>window", "<img src=x", "<iframe", "<b>b</b>", 'href="javascript:'):
        assert tag not in body, tag
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in body
    assert "&lt;iframe src=javascript:window.__pwned=4&gt;" in body
    assert "<title>Command template cmd-" in page
    assert "<script>" not in page.split("<title>")[1][:200]


def test_a_changed_part_of_a_summary_page_needs_no_mkdocs_build(copy_of_built: Built) -> None:
    env, site = copy_of_built.env, copy_of_built.site
    page = site / "docs" / "roots.md"
    text = page.read_text("utf-8")
    at = text.index("<!-- mc-part -->") + len("<!-- mc-part -->\n")
    page.write_text(text[:at] + "\nA part changed by the test.\n" + text[at:], "utf-8")
    proc = mc("site", env=env)
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())
    assert "summary pages unchanged" in said, said
    built = (site / "build" / "roots.html").read_text("utf-8")
    assert "A part changed by the test." in built and "mc-part" not in built
    # Outside a part, the page itself changed: mkdocs builds again.
    page.write_text(page.read_text("utf-8").replace("# Roots", "# Roots again", 1), "utf-8")
    again = " ".join(mc("site", env=env).stdout.split())
    assert "summary pages rebuilt" in again, again
