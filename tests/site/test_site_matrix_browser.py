"""The matrix pages in Debian's Chromium at 1366 × 768: layout, contrast, keyboard, filters.

The site is the widened one ``wide_site.py`` describes (shared with
``test_site_reader_browser``, built once): at least 27 implementation columns (every real
target but the ``command`` template, plus cited ones) and 17 rows in Roots, with every row
state present, so the width check measures the real worst case.
axe-core comes from ``tests/site/npm`` (pinned, installed by ``make testdeps``).
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_site_browser import ARGS, CHROMIUM, SHOTS, _Quiet
from wide_site import COLUMNS

from compare._paths import PROJECT_ROOT

pytestmark = pytest.mark.browser

AXE = PROJECT_ROOT / "tests" / "site" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
PAGES = {
    "home": "index.html",
    "area": "roots.html",
    "implementation": "implementations/ts-sdk.html",
}


@pytest.fixture(scope="module")
def url(wide_site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(wide_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make chromium`")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def _open(chromium: Any, url: str, path: str, scheme: str = "light", js: bool = True) -> Any:
    context = chromium.new_context(viewport={"width": 1366, "height": 768}, java_script_enabled=js)
    tab = context.new_page()
    tab.problems = []
    tab.on("pageerror", lambda e: tab.problems.append(str(e)))
    tab.goto(f"{url}/{path}", wait_until="networkidle")
    if scheme == "dark":  # the reader's way: the header's palette toggle
        tab.locator("label[title='Switch to dark mode']").click()
        tab.wait_for_selector("body[data-md-color-scheme='slate']")
        tab.wait_for_timeout(400)  # Material fades colours in
    return tab


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("which", ["home", "area"])
def test_matrix_pages_fit_the_window(chromium: Any, url: str, which: str, scheme: str) -> None:
    tab = _open(chromium, url, PAGES[which], scheme)
    if which == "area":
        # One answer per square: every measured program is a column of exactly one table,
        # and each table's columns are cut to fit, so none scrolls sideways at 1366 px.
        heads = tab.evaluate(
            "() => [...document.querySelectorAll('table.mc-answers')].map("
            "t => [...t.querySelectorAll('thead th')].slice(1).map(th => th.textContent))"
        )
        names = [n for head in heads for n in head]
        assert len(names) == len(set(names)) >= COLUMNS - 4, names
        assert max(len(head) for head in heads) <= 9
        squares = tab.evaluate(
            "() => [...document.querySelectorAll('table.mc-answers td.mc-ans')].map("
            "td => td.querySelectorAll('.mc-mark').length)"
        )
        assert squares and set(squares) == {1}
        # The header row stays put: scrolled into a long table, its names are still on screen,
        # right under the site's header.
        tab.evaluate(
            "() => { const t = [...document.querySelectorAll('table.mc-answers')]"
            ".sort((a, b) => b.rows.length - a.rows.length)[0];"
            " window.scrollTo(0, t.getBoundingClientRect().top + scrollY + t.offsetHeight / 2); }"
        )
        stuck = tab.evaluate(
            """() => { const h = document.querySelector('.md-header').getBoundingClientRect();
                const t = [...document.querySelectorAll('table.mc-answers')]
                  .sort((a, b) => b.rows.length - a.rows.length)[0];
                const th = t.querySelector('thead th').getBoundingClientRect();
                return {header: h.bottom, th: th.top}; }"""
        )
        assert abs(stuck["th"] - stuck["header"]) <= 4, stuck
        tab.evaluate("() => window.scrollTo(0, 0)")
    box = tab.evaluate(
        """() => ({scroll: document.scrollingElement.scrollWidth,
                  client: document.scrollingElement.clientWidth, width: innerWidth,
                  tables: [...document.querySelectorAll('table.mc-answers, table.mc-interop')]
                    .map(t => { const r = t.getBoundingClientRect();
                                return {cls: t.className, left: r.left, right: r.right}; })})"""
    )
    assert box["scroll"] <= box["client"], box
    assert box["tables"], "no table on the page"
    for table in box["tables"]:
        assert table["left"] >= 0 and table["right"] <= box["width"], table
    tab.screenshot(path=str(_shots() / f"{which}-{scheme}.png"))
    assert tab.problems == []
    tab.context.close()


def _shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS


# axe-core on these pages, light and dark: test_site_reader_browser.py, on every matrix page.


# Every link of the answer tables takes focus: test_site_reader_browser's Tab test, which reads
# the area page's tables with the grids.


def test_filters_hide_kinds_and_revisions_and_need_no_script(chromium: Any, url: str) -> None:
    tab = _open(chromium, url, PAGES["area"])
    sdk = tab.locator(".mc-answers-wrap[data-kind='sdk']")
    assert sdk.count() >= 1 and sdk.first.is_visible()
    tab.locator("input[data-mc-filter='kind'][value='sdk']").uncheck()
    assert not sdk.first.is_visible()
    assert tab.locator(".mc-answers-wrap[data-kind='server']").first.is_visible()
    assert tab.locator("input[data-mc-filter='rev']").count() == 0  # one answer per square
    assert tab.problems == []
    tab.context.close()
    impl = _open(chromium, url, PAGES["implementation"])
    rev = impl.locator("table.mc-grid thead th[data-rev]").first
    name = rev.get_attribute("data-rev")
    impl.locator(f"input[data-mc-filter='rev'][value='{name}']").uncheck()
    assert not rev.is_visible()
    assert not impl.locator(f"table.mc-grid td[data-rev='{name}']").first.is_visible()
    impl.context.close()
    # Without JavaScript: no filter boxes to click, and every table shows.
    bare = _open(chromium, url, PAGES["area"] + "?hide-kind=sdk", js=False)
    assert not bare.locator("[data-mc-filters]").is_visible()
    assert bare.locator(".mc-answers-wrap[data-kind='sdk']").first.is_visible()
    bare.context.close()


def test_every_matrix_link_opens_a_built_page(chromium: Any, url: str, wide_site: Path) -> None:
    """The matrices are raw HTML, which mkdocs neither rewrites nor checks: check here."""
    for which in ("home", "area"):
        tab = _open(chromium, url, PAGES[which])
        hrefs = tab.evaluate(
            "() => [...document.querySelectorAll("
            "'table.mc-answers a, table.mc-interop a, table.mc-matrix a')].map(a => a.href)"
        )
        assert hrefs
        for href in set(hrefs):
            page, _, anchor = href.removeprefix(url + "/").partition("#")
            assert (wide_site / page).is_file(), href
            if anchor:
                html = (wide_site / page).read_text(encoding="utf-8")
                assert f'id="{anchor}"' in html, href
        tab.context.close()
