"""The matrix pages in Debian's Chromium at 1366 × 768: layout, contrast, keyboard, filters.

The site is built from the small data set widened to the size of the real one: 27
implementation columns (every real target but the ``command`` template, plus cited ones) and
17 rows, with every row state present, so the width check measures the real worst case.
axe-core comes from ``tests/site/npm`` (pinned, installed by ``make testdeps``).
Screenshots go to ``artifacts/screenshots/``.
"""

from __future__ import annotations

import copy
import functools
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import mc
from site_data import write_dataset
from test_site_browser import ARGS, CHROMIUM, SHOTS, _Quiet

from compare._paths import PROJECT_ROOT
from compare.exchange._targets import load_targets

pytestmark = pytest.mark.browser

AXE = PROJECT_ROOT / "tests" / "site" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
STATES = ["supported", "non-strict", "partial", "not-supported", "observed", "error", "not-run"]
#: The ``command`` templates (a client or server named on the command line) are no column.
SHIPPED = [t.id for t in load_targets() if "command" not in (t.id, t.kind, t.id[-7:])]
#: Every shipped target is a column (each has a page with its matrix), plus a few cited ones,
#: and never fewer than the 27 the real roots matrix had when this layout was measured.
COLUMNS, ROWS = max(27, len(SHIPPED) + 4), 17
PAGES = {
    "home": "index.html",
    "area": "roots.html",
    "implementation": "implementations/ts-sdk.html",
}


def _widen(rows_json: Path) -> None:
    """Fill rows.json to COLUMNS implementation columns (every shipped target among them) and
    17 rows, every state used."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    area = data["areas"][0]
    names = SHIPPED
    cited = [f"cited-{n}" for n in range(COLUMNS)]
    first = area["rows"][0]["status"]
    extra = [n for n in names + cited if n not in first][: COLUMNS - len(first)]
    for name in extra:
        if name.startswith("cited-"):
            data["implementations"].append(
                {"id": name, "name": name, "kind": "cited", "version": None}
            )
    template = area["rows"][1]
    while len(area["rows"]) < ROWS:
        row = copy.deepcopy(template)
        row["id"] = f"ROOT-{len(area['rows']) + 1:02d}"
        row["difference"] = f"layout row {row['id']} with a difference of ordinary length"
        area["rows"].append(row)
    for r, row in enumerate(area["rows"]):
        for c, name in enumerate(extra):
            state = "cited" if name.startswith("cited-") else STATES[(r + c) % len(STATES)]
            row["status"][name] = {
                "state": state,
                "label": state,
                "reason": "not run, because this layout test has no cell for it",
                **({"cited_state": "supported"} if state == "cited" else {}),
            }
    rows_json.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def wide_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("matrix")
    paths = write_dataset(root, hostile=False)
    _widen(paths["build"] / "rows.json")
    env = {
        "MCP_COMPARE_RESULTS": str(root / "results"),
        "MCP_COMPARE_BUILD": str(root / "build"),
        "MCP_COMPARE_SITE": str(root / "site"),
    }
    for step in (["render"], ["site"]):
        proc = mc(*step, env=env)
        assert proc.returncode == 0, f"mcp-compare {step[0]} failed:\n{proc.stderr}"
    return root / "site" / "build"


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
