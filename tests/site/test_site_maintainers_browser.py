"""The maintainers' pages in Debian's Chromium: no sideways scroll of the page at 390 px (a wide
table scrolls inside its column, as on the reader pages), and axe-core with no serious or
critical violation at 1366 px in the light and the dark scheme.

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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_maintainers_page_scrolls_sideways_on_a_phone_or_fails_axe(
    url: str, chromium: Any, scheme: str
) -> None:
    if not AXE.is_file():
        pytest.fail(f"axe-core not found at {AXE}: run `make testdeps`")
    problems = []
    for width in (390, 1366):
        context = chromium.new_context(
            viewport={"width": width, "height": 844}, color_scheme=scheme
        )
        try:
            page = context.new_page()
            for slug, _, _ in PAGES:
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
