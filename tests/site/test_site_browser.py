"""The built site in Debian's Chromium, driven by Playwright (no browser download).

The site is built from the small data set plus one real cell: the engine's ``command`` target
driving ``hostile_client.py``, so the cell page shows what a hostile client really sent (one
build, shared with the maintainers' browser module: ``small_site.py``).
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_client import HOSTILE_NAME, HOSTILE_URI

from compare._paths import PROJECT_ROOT

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = PROJECT_ROOT / "artifacts" / "screenshots"

pytestmark = pytest.mark.browser


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def built_site(small_site: Path) -> Path:
    """The small site with the hostile client's cell (``small_site.py``), which the
    maintainers' browser module reads too."""
    return small_site


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: run `make chromium` (apt-get install chromium)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        chromium = play.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.problems = []
    tab.on("console", lambda m: m.type == "error" and tab.problems.append(m.text))
    tab.on("pageerror", lambda e: tab.problems.append(str(e)))
    try:
        yield tab
    finally:
        context.close()


def _shot(page: Any, name: str, full: bool = True) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / name
    page.screenshot(path=str(path), full_page=full)
    assert path.stat().st_size > 1000
    return path


def test_home_page_loads_without_console_errors(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/index.html", wait_until="networkidle")
    assert "MCP, feature by feature" in page.inner_text("h1")
    assert page.locator("table").count() >= 2
    _shot(page, "home.png")
    assert page.problems == []


@pytest.mark.parametrize(
    ("query", "expect"),
    [
        ("roots/list", "roots/list"),  # a method name
        ("ROOT-02", "ROOT-02"),  # a row id
        ("TypeScript SDK", "TypeScript SDK"),  # an implementation by the name readers know
    ],
)
def test_search_finds_a_method_a_row_and_an_implementation(
    page: Any, base_url: str, query: str, expect: str
) -> None:
    page.goto(f"{base_url}/index.html", wait_until="networkidle")
    box = page.locator("input.md-search__input")
    box.click()
    box.press_sequentially(query, delay=20)
    results = page.locator(".md-search-result__item")
    results.first.wait_for(timeout=15000)
    assert results.count() > 0
    # Found: in a result's text, or as a section of a page the result folds under "N more on
    # this page" (the row id's own section, whose link names its anchor).
    wanted = expect.lower()
    page.wait_for_function(
        """(w) => { const r = document.querySelector('.md-search-result');
            return r && (r.innerText.toLowerCase().includes(w)
              || [...r.querySelectorAll('a')].some(a => a.href.toLowerCase().endsWith('#' + w)
                   || a.textContent.toLowerCase().includes(w))); }""",
        arg=wanted,
        timeout=15000,
    )
    if query == "roots/list":
        _shot(page, "search-roots-list.png", full=False)
    page.keyboard.press("Escape")
    assert page.problems == []


def test_row_anchor_scrolls_the_row_into_view(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/roots.html#root-02", wait_until="networkidle")
    box = page.evaluate(
        "() => { const r = document.getElementById('root-02').getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, scrolled: window.scrollY, h: innerHeight}; }"
    )
    assert box["scrolled"] > 0, "the page did not scroll to the anchor"
    assert 0 <= box["top"] < box["h"] and box["bottom"] <= box["h"]
    assert "ROOT-02" in page.inner_text("#root-02")
    _shot(page, "roots-root-02.png", full=False)
    page.goto(f"{base_url}/roots.html#root-01", wait_until="networkidle")
    top = page.evaluate("() => document.getElementById('root-01').getBoundingClientRect().top")
    assert 0 <= top < 800
    assert page.problems == []


def test_hostile_cell_page_shows_the_content_as_text(
    page: Any, base_url: str, built_site: Path
) -> None:
    cells = sorted((built_site / "cells").glob("command--*.html"))
    assert len(cells) == 1, cells
    page.goto(f"{base_url}/cells/{cells[0].name}", wait_until="networkidle")
    text = page.inner_text("article")
    assert HOSTILE_NAME in text  # clientInfo.name, shown verbatim as text
    assert HOSTILE_URI in text  # the root URI, in the checks and the wire log
    assert page.evaluate("() => window.__pwned === undefined"), "hostile script ran"
    assert page.locator("article script, article iframe, article img[onerror]").count() == 0
    assert page.locator("article a[href^='javascript:']").count() == 0
    _shot(page, "hostile-cell.png")
    assert page.problems == []


def test_search_results_show_hostile_text_as_text(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/index.html", wait_until="networkidle")
    box = page.locator("input.md-search__input")
    box.click()
    # Cell pages are out of the index; the hostile client's initialize, as it sent it, is on
    # its implementation page.
    box.press_sequentially("initialize as sent", delay=20)
    page.locator(".md-search-result__item").first.wait_for(timeout=15000)
    results = page.locator(".md-search-result")
    assert "<script>window.__pwned=1</script>" in results.inner_text()  # as text
    assert results.locator("script, img, iframe, a[href^='javascript:']").count() == 0
    assert page.evaluate("() => window.__pwned === undefined"), "hostile script ran"
    _shot(page, "search-hostile.png", full=False)
    assert page.problems == []
