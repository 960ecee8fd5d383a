"""What a reader meets on the matrix pages, in Debian's Chromium: the home, every area and one
implementation page of each kind at 1366 × 768 and at 390 px, in light and dark mode.

Checked on each page: no table wider than its column at 1366 px (collapsed details opened
first), no sideways scroll of the page at 390 px, axe-core with no serious or critical
violation in the light and the dark scheme (the dark one chosen by the system preference,
which the site honours), every cell link reachable with Tab, each matrix square linking to
its newest cell, and the filters acting on every matrix with their state in the address.

By default the site is built from the small data set widened to the real one's size (as
``test_site_matrix_browser`` does). ``MCP_COMPARE_BROWSER_SITE=<built site folder>`` runs
the same checks on a real build instead (every page of it); the screenshots of the reader
pages are then ``artifacts/screenshots/reader-*.png``, the committed ones; from the small
data set they are ``layout-*.png`` (not committed).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import mc
from site_data import write_dataset
from test_site_browser import ARGS, CHROMIUM, SHOTS, _Quiet
from test_site_matrix_browser import AXE, _widen

pytestmark = pytest.mark.browser

REAL = os.environ.get("MCP_COMPARE_BROWSER_SITE", "")
#: Which kind of page each screenshot shows: the first implementation page of that group.
SHOT_KINDS = {"sdk": "SDKs", "cli": "CLI clients", "server": "Servers", "proxy": "Proxies"}


def _with_queries(rows_json: Path) -> None:
    """Give the widened rows the status queries real rows have (a client-side scenario for
    most, a server-side one for one), so n/a and the revision windows show."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    for i, row in enumerate(data["areas"][0]["rows"]):
        row["status_query"] = {"scenario": "server-asks" if i == 2 else "roots-list"}
    rows_json.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if REAL:
        folder = Path(REAL)
        assert (folder / "index.html").is_file(), f"no built site in {folder}"
        return folder
    root = tmp_path_factory.mktemp("reader")
    paths = write_dataset(root, hostile=False)
    _widen(paths["build"] / "rows.json")
    _with_queries(paths["build"] / "rows.json")
    env = {
        "MCP_COMPARE_RESULTS": str(root / "results"),
        "MCP_COMPARE_BUILD": str(root / "build"),
        "MCP_COMPARE_SITE": str(root / "site"),
    }
    for step in (["render"], ["site"]):
        proc = mc(*step, env=env)
        assert proc.returncode == 0, f"mcp-compare {step[0]} failed:\n{proc.stderr}"
    return root / "site" / "build"


def _pages(site: Path) -> list[str]:
    """The home, every area page (from the Areas page's links) and one implementation page of
    each kind (SDK, CLI, server, proxy): the pages share their templates, so the first of a
    kind stands for the others, and the cost does not grow with the implementations (issue
    37). On a real build named by ``MCP_COMPARE_BROWSER_SITE``, every implementation page."""
    html = (site / "areas.html").read_text(encoding="utf-8")
    areas = sorted({p for p in _hrefs(html) if "/" not in p and p not in _TOP})
    if REAL:
        impls = sorted(
            f"implementations/{p.name}"
            for p in (site / "implementations").glob("*.html")
            if p.name != "index.html"
        )
    else:
        impls = sorted(_first_of_each_kind(site).values())
    return ["index.html", *areas, *impls]


def _first_of_each_kind(site: Path) -> dict[str, str]:
    """kind -> the first implementation page listed under that kind's heading."""
    out: dict[str, str] = {}
    listing = (site / "implementations" / "index.html").read_text(encoding="utf-8")
    for key, title in SHOT_KINDS.items():
        start = listing.find(f">{title}<")
        if start < 0:
            continue
        section = listing[start:].split("<h2", 1)[0]
        first = next(
            (h for h in _hrefs(section) if h not in ("index.html",) and not h.startswith("..")),
            None,
        )
        if first:
            out[key] = f"implementations/{first}"
    return out


_TOP = {"index.html", "areas.html", "legend.html", "changes.html", "spec-changes.html"}


def _hrefs(html: str) -> list[str]:
    import re

    return [h.split("#")[0] for h in re.findall(r'href="([a-z0-9.-]+\.html)[^"]*"', html)]


@pytest.fixture(scope="module")
def url(site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(site))
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


def _context(chromium: Any, width: int, scheme: str = "light", js: bool = True) -> Any:
    height = 768 if width > 600 else 844
    return chromium.new_context(
        viewport={"width": width, "height": height}, color_scheme=scheme, java_script_enabled=js
    )


def _go(tab: Any, url: str, path: str) -> None:
    tab.goto(f"{url}/{path}", wait_until="load")


_OPEN_ALL = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"

_TOO_WIDE = """() => {
  const column = document.querySelector('article.md-content__inner');
  const limit = column.getBoundingClientRect().right + 1;
  return [...column.querySelectorAll('table')]
    .filter(t => t.getBoundingClientRect().right > limit)
    .map(t => ({cls: t.className, width: Math.round(t.getBoundingClientRect().width),
                column: Math.round(column.clientWidth),
                first: (t.querySelector('th') || {}).textContent}));
}"""


def test_no_table_is_wider_than_its_column_at_1366(chromium: Any, url: str, site: Path) -> None:
    context = _context(chromium, 1366)
    tab = context.new_page()
    wide = {}
    for path in _pages(site):
        _go(tab, url, path)
        tab.evaluate(_OPEN_ALL)
        found = tab.evaluate(_TOO_WIDE)
        if found:
            wide[path] = found
        sideways = tab.evaluate(
            "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
        )
        assert sideways <= 0, f"{path} scrolls sideways by {sideways} px at 1366"
    context.close()
    assert wide == {}, json.dumps(wide, indent=1)


def test_no_page_scrolls_sideways_at_390(chromium: Any, url: str, site: Path) -> None:
    context = _context(chromium, 390)
    tab = context.new_page()
    sideways = {}
    for path in _pages(site):
        _go(tab, url, path)
        tab.evaluate(_OPEN_ALL)
        extra = tab.evaluate(
            "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"
        )
        if extra > 0:
            sideways[path] = extra
    context.close()
    assert sideways == {}, f"pages that scroll sideways at 390 px (by px): {sideways}"


_SQUARES = """() => [...document.querySelectorAll('table.mc-status a')]
  .filter(a => a.querySelector('.mc-strip'))
  .map(a => { const marks = [...a.querySelectorAll('.mc-m[data-rev]')];
    const withCell = marks.filter(m => m.dataset.href);
    const judged = withCell.filter(m => m.dataset.judged !== undefined);
    return {href: a.getAttribute('href'), marks: marks.map(m => m.dataset.rev),
            cells: (judged.length ? judged : withCell).map(m => [m.dataset.rev, m.dataset.href]),
            framed: marks.filter(m => m.classList.contains('mc-new'))
                         .map(m => m.dataset.rev)}; })"""


def test_each_square_opens_its_newest_judged_cell(chromium: Any, url: str, site: Path) -> None:
    context = _context(chromium, 1366)
    tab = context.new_page()
    seen = 0
    for path in [p for p in _pages(site) if not p.startswith("implementations/")]:
        _go(tab, url, path)
        revisions = tab.evaluate(
            "() => [...document.querySelectorAll('input[data-mc-filter=rev]')].map(i => i.value)"
        )
        for square in tab.evaluate(_SQUARES):
            assert square["marks"] == revisions, square  # one mark per revision, in order
            newest_rev, newest_href = square["cells"][-1]
            assert square["href"] == newest_href, square
            assert square["framed"] == [newest_rev], square
            assert f"--{newest_rev}" in newest_href, square  # the cell page of that revision
            assert (site / newest_href).is_file(), newest_href
            seen += 1
    context.close()
    assert seen > 0, "no matrix square with a cell was found"


def test_filters_act_on_every_matrix_and_live_in_the_address(
    chromium: Any, url: str, site: Path
) -> None:
    context = _context(chromium, 1366)
    tab = context.new_page()
    for path in _pages(site):
        _go(tab, url, path)
        boxes = tab.locator("input[data-mc-filter='rev']")
        assert boxes.count() >= 2, f"{path}: no revision filter"
        marks = tab.locator("table.mc-status .mc-m[data-rev], table.mc-grid td[data-rev]")
        if marks.count() == 0:
            continue  # an implementation with no row that applies to it
        newest = boxes.nth(boxes.count() - 1).get_attribute("value")
        boxes.nth(boxes.count() - 1).uncheck()
        hidden = f"[data-rev='{newest}']"
        assert tab.evaluate(
            f'() => [...document.querySelectorAll("table {hidden}")].every('
            "e => getComputedStyle(e).display === 'none')"
        ), f"{path}: unticking {newest} left its marks or columns showing"
        assert f"hide-rev={newest}" in tab.url, tab.url
        # Every square now opens the newest cell among the revisions still shown.
        for square in tab.evaluate(_SQUARES):
            shown = [c for c in square["cells"] if c[0] != newest]
            if shown:
                assert square["href"] == shown[-1][1], (path, square)
        kinds = tab.locator("input[data-mc-filter='kind']")
        if kinds.count():
            kind = kinds.first.get_attribute("value")
            kinds.first.uncheck()
            rows = tab.locator(f"table.mc-status tbody tr[data-kind='{kind}']")
            assert not rows.first.is_visible(), f"{path}: kind {kind} still shows"
            assert f"hide-kind={kind}" in tab.url
        # The address alone restores the view: a shared link shows what its sender saw.
        _go(tab, url, tab.url.removeprefix(url + "/"))
        assert not tab.locator(f"input[data-mc-filter='rev'][value='{newest}']").is_checked()
        assert not tab.locator(f"table {hidden}").first.is_visible()
    context.close()
    bare = _context(chromium, 1366, js=False).new_page()
    _go(bare, url, "index.html?hide-rev=draft")
    assert not bare.locator("[data-mc-filters]").first.is_visible()
    assert bare.locator("table.mc-status .mc-m[data-rev='draft']").first.is_visible()
    bare.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_any_page(
    chromium: Any, url: str, site: Path, scheme: str
) -> None:
    assert AXE.is_file(), f"{AXE} missing: run `make testdeps`"
    context = _context(chromium, 1366, scheme)
    tab = context.new_page()
    found = {}
    for path in _pages(site):
        _go(tab, url, path)
        want = "slate" if scheme == "dark" else "default"
        assert tab.get_attribute("body", "data-md-color-scheme") == want, path
        tab.evaluate(_OPEN_ALL)
        tab.add_script_tag(path=str(AXE))
        bad = tab.evaluate(
            """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
                .filter(v => v.impact === 'serious' || v.impact === 'critical')
                .map(v => ({id: v.id, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))"""
        )
        if bad:
            found[path] = bad
    context.close()
    assert found == {}, json.dumps(found, indent=1)


#: How far Tab is pressed on each page before the remaining square links are asked directly.
TAB_WALK = 150


def test_tab_reaches_every_cell_link(chromium: Any, url: str, site: Path) -> None:
    """On one page of each template that draws matrices or grids (home, an area, one
    implementation of each kind): each link of a matrix square or grid square takes focus.
    The squares come from one generator, so more pages of a kind add time, not cover: every
    page pressed Tab through took a minute, and grew with every area."""
    context = _context(chromium, 1366)
    tab = context.new_page()
    for path in _shot_pages(site).values():
        _go(tab, url, path)
        count = tab.evaluate(
            """() => { const a = [...document.querySelectorAll(
                  'table.mc-status a, table.mc-grid a[href*="cells/"]')];
                  a.forEach((x, i) => x.dataset.mcIdx = String(i));
                  window.__mcSeen = new Set();
                  document.addEventListener('focusin', e => {
                    if (e.target.dataset && e.target.dataset.mcIdx !== undefined)
                      window.__mcSeen.add(e.target.dataset.mcIdx); });
                  return a.length; }"""
        )
        if not count:
            continue
        last = tab.evaluate(
            "() => document.querySelectorAll('a, input, button, [tabindex]').length"
        )
        # Tab through the page's start (a focus trap shows there), then ask every square link
        # the walk did not reach to take focus and sit in the tab order: the cost stays flat
        # as columns are added, where a walk of every element grew with each one.
        for _ in range(min(last + 20, TAB_WALK)):
            tab.keyboard.press("Tab")
        missed = tab.evaluate(
            """() => [...document.querySelectorAll('[data-mc-idx]')]
                  .filter(x => !window.__mcSeen.has(x.dataset.mcIdx))
                  .filter(x => { x.focus(); return document.activeElement !== x
                                 || x.tabIndex < 0 || x.offsetParent === null; })
                  .map(x => x.getAttribute('href'))"""
        )
        assert missed == [], f"{path}: {len(missed)} of {count} cell links take no focus"
    context.close()


def _shot_pages(site: Path) -> dict[str, str]:
    """home, an area, and the first implementation page of each kind that has one."""
    out = {"home": "index.html"}
    areas = [p for p in _pages(site) if "/" not in p and p != "index.html"]
    if areas:
        out["area"] = areas[0]
    return out | _first_of_each_kind(site)


def test_screenshots_of_the_reader_pages(chromium: Any, url: str, site: Path) -> None:
    prefix = "reader" if REAL else "layout"
    SHOTS.mkdir(parents=True, exist_ok=True)
    pages = _shot_pages(site)
    assert {"home", "area", "sdk"} <= set(pages), pages
    for mode, (width, scheme) in {
        "light": (1366, "light"),
        "dark": (1366, "dark"),
        "390": (390, "light"),
    }.items():
        context = _context(chromium, width, scheme)
        tab = context.new_page()
        for name, path in pages.items():
            _go(tab, url, path)
            target = SHOTS / f"{prefix}-{name}-{mode}.png"
            tab.screenshot(path=str(target))
            assert target.stat().st_size > 1000
        context.close()
