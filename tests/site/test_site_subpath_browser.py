"""The site hosted under a sub-path (``https://host/mcp-compare/``), as a project page is:
the 404 page keeps its styles and links, the sitemap names pages that exist, and search finds
implementations and rows first, with cell pages out of its index.

``MCP_COMPARE_SITE_URL`` is what ``mkdocs.yml`` reads as ``site_url``; a small server here
serves the built folder under ``/mcp-compare/`` and answers a missing page with ``404.html``
and status 404, as static hosts do.
"""

from __future__ import annotations

import functools
import http.server
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from conftest import mc
from site_data import write_dataset
from test_site_browser import ARGS, CHROMIUM

pytestmark = pytest.mark.browser

PREFIX = "/mcp-compare/"
SITE_URL = f"https://example.test{PREFIX}"


class _Hosted(http.server.SimpleHTTPRequestHandler):
    """The built folder under ``PREFIX``; anything else, or a missing file, is the 404 page."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        root = Path(self.directory)
        rel = path.removeprefix(PREFIX) if path.startswith(PREFIX) else None
        if rel is not None and (root / (rel or "index.html")).is_file():
            self.path = "/" + (rel or "index.html")
            super().do_GET()
            return
        body = (root / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def hosted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    root = tmp_path_factory.mktemp("subpath")
    write_dataset(root, hostile=False)
    env = {
        "MCP_COMPARE_RESULTS": str(root / "results"),
        "MCP_COMPARE_BUILD": str(root / "build"),
        "MCP_COMPARE_SITE": str(root / "site"),
        "MCP_COMPARE_SITE_URL": SITE_URL,
    }
    for step in (["render"], ["site"]):
        proc = mc(*step, env=env)
        assert proc.returncode == 0, f"mcp-compare {step[0]} failed:\n{proc.stderr}"
    built = root / "site" / "build"
    handler = functools.partial(_Hosted, directory=str(built))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{PREFIX}", built
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def tab(hosted: tuple[str, Path]) -> Iterator[Any]:
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1366, "height": 768})
        finally:
            browser.close()


def test_the_404_page_keeps_its_styles_and_links_under_a_sub_path(
    tab: Any, hosted: tuple[str, Path]
) -> None:
    base, _ = hosted
    answer = tab.goto(f"{base}no/such/page.html", wait_until="networkidle")
    assert answer.status == 404
    styled = tab.evaluate(
        "() => [...document.styleSheets].some(s => (s.href || '').includes('/mcp-compare/assets/'))"
    )
    assert styled, "the 404 page did not load the site's styles from the sub-path"
    home = tab.evaluate("() => document.querySelector('a.md-header__button.md-logo').href")
    assert urlsplit(home).path.startswith(PREFIX), home


def test_the_sitemap_names_pages_that_exist_under_the_sub_path(hosted: tuple[str, Path]) -> None:
    _, built = hosted
    tree = ET.parse(built / "sitemap.xml")
    locs = [e.text or "" for e in tree.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]
    assert locs, "the sitemap is empty"
    for loc in locs:
        assert loc.startswith(SITE_URL), loc
        rel = loc.removeprefix(SITE_URL) or "index.html"
        assert (built / rel).is_file(), loc


def test_search_finds_the_implementation_first_and_leaves_cells_out(
    tab: Any, hosted: tuple[str, Path]
) -> None:
    base, built = hosted
    index = built / "search" / "search_index.json"
    assert index.stat().st_size < 3_000_000
    assert '"location":"cells/' not in index.read_text(encoding="utf-8").replace(" ", "")
    tab.goto(f"{base}index.html", wait_until="networkidle")
    box = tab.locator("input.md-search__input")
    box.click()
    box.press_sequentially("typescript sdk", delay=20)
    first = tab.locator(".md-search-result__item a").first
    first.wait_for(timeout=15000)
    assert "implementations/ts-sdk.html" in (first.get_attribute("href") or "")
