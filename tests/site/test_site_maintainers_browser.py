"""The maintainers' pages in Debian's Chromium: no sideways scroll of the page at 390 px (a wide
table scrolls inside its column, as on the reader pages), and axe-core with no serious or
critical violation at 1366 px in the light scheme, and in the dark one on the pages that hold
every kind of element the others do (the dark palette is one stylesheet for all of them).

Their tables carry long identifiers (location variables, file paths, schema keys); one
written as a plain code span with no break point made the page scroll sideways on a phone.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_site_browser import ARGS, CHROMIUM, _Quiet
from test_site_matrix_browser import AXE

from compare.site._maintainers import PAGES

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def url(small_site: Path) -> Iterator[str]:
    """The maintainers' pages of the small site the browser module reads too
    (``small_site.py``): they are read from the target, scenario and schema files, so any
    data set shows them in full."""
    handler = functools.partial(_Quiet, directory=str(small_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/maintainers"
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


def _element_kinds(page: Any) -> set[str]:
    """The kinds of element a page shows, as the stylesheet colours them."""
    kinds = "a, code, pre, table, th, td, h1, h2, h3, blockquote, kbd, .admonition, details"
    found: list[str] = page.evaluate(
        f"[...document.querySelectorAll('article :is({kinds})')]"
        ".map(e => e.classList.contains('admonition') ? 'admonition' : e.tagName)"
    )
    return set(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_maintainers_page_scrolls_sideways_on_a_phone_or_fails_axe(
    url: str, chromium: Any, scheme: str
) -> None:
    """Light: every page at both widths. Dark: axe at 1366 px on as few pages as together
    show every kind of element any page shows, since widths and layout do not change with the
    scheme and the dark colours are one stylesheet."""
    if not AXE.is_file():
        pytest.fail(f"axe-core not found at {AXE}: run `make testdeps`")
    problems = []
    slugs = [slug for slug, _, _ in PAGES]
    widths = (390, 1366) if scheme == "light" else (1366,)
    for width in widths:
        context = chromium.new_context(
            viewport={"width": width, "height": 844}, color_scheme=scheme
        )
        try:
            page = context.new_page()
            if scheme == "dark":  # the pages that first show each kind, in PAGES order
                shown: set[str] = set()
                chosen = []
                for slug in slugs:
                    page.goto(f"{url}/{slug}.html")
                    kinds = _element_kinds(page)
                    if kinds - shown:
                        chosen.append(slug)
                        shown |= kinds
                assert chosen, "no maintainers' page shows any element"
                slugs = chosen
            for slug in slugs:
                page.goto(f"{url}/{slug}.html")
                if width == 390:
                    wide = page.evaluate("document.documentElement.scrollWidth")
                    if wide > width:
                        problems.append(f"{slug}: {wide} px wide at {width} px")
                    continue
                page.add_script_tag(path=str(AXE))
                found = page.evaluate(
                    "async () => (await axe.run()).violations"
                    ".filter(v => ['serious', 'critical'].includes(v.impact))"
                    ".map(v => v.id + ' ' + v.nodes.map(n => n.target.join(' ')).join('; '))"
                )
                problems += [f"{slug}: axe {rule} ({scheme})" for rule in found]
        finally:
            context.close()
    assert problems == [], "\n".join(problems)
