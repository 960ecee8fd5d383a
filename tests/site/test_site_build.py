"""``mcp-compare site``: the real ``mkdocs build --strict`` with the Material theme."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import mc

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


def test_a_broken_link_fails_the_strict_build_cleanly(site_env: Path) -> None:
    render()
    page = site_env / "site" / "docs" / "legend.md"
    page.write_text(page.read_text("utf-8") + "\n[gone](no-such-page.md)\n", "utf-8")
    proc = mc("site")
    assert proc.returncode == 2
    said = " ".join(proc.stderr.split())
    assert "mkdocs build --strict failed" in said and "no-such-page.md" in said
    assert "Traceback" not in proc.stderr


def test_site_without_rendered_pages_says_what_to_run(site_env: Path) -> None:
    proc = mc("site")
    assert proc.returncode == 2
    assert "mcp-compare render" in proc.stderr
