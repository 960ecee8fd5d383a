"""What a reader meets on the matrix pages, in Debian's Chromium: the home, every area and one
implementation page of each kind at 1366 × 768 and at 390 px, in light and dark mode.

Checked on each page: no table wider than its column at 1366 px (collapsed details opened
first), no sideways scroll of the page at 390 px, axe-core with no serious or critical
violation in the light and the dark scheme (the dark one chosen by the system preference,
which the site honours), every cell link reachable with Tab, each matrix square linking to
its newest cell, and the filters acting on every matrix with their state in the address.

By default the site is the small data set widened to the real one's size (``wide_site.py``),
built once for this module and ``test_site_matrix_browser``.
``MCP_COMPARE_BROWSER_SITE=<built site folder>`` runs the same checks on a real build instead
(every page of it); the screenshots of the reader pages are then
``artifacts/screenshots/reader-*.png``, the committed ones; from the small data set they are
``layout-*.png`` (not committed).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_site_browser import ARGS, CHROMIUM, SHOTS, _Quiet
from test_site_matrix_browser import AXE

from compare._paths import PROJECT_ROOT

pytestmark = pytest.mark.browser

REAL = os.environ.get("MCP_COMPARE_BROWSER_SITE", "")
#: Which kind of page each screenshot shows: the first implementation page of that group.
SHOT_KINDS = {"sdk": "SDKs", "cli": "CLI clients", "server": "Servers", "proxy": "Proxies"}


@pytest.fixture(scope="module")
def site(request: pytest.FixtureRequest) -> Path:
    if REAL:
        folder = Path(REAL)
        assert (folder / "index.html").is_file(), f"no built site in {folder}"
        return folder
    built: Path = request.getfixturevalue("wide_site")  # asked for here: a real build needs none
    return built


def _pages(site: Path) -> list[str]:
    """The home, every area page (from the Areas page's links) and one implementation page of
    each kind (SDK, CLI, server, proxy): the pages share their templates, so the first of a
    kind stands for the others, and the cost does not grow with the implementations (issue
    37). On a real build named by ``MCP_COMPARE_BROWSER_SITE``, every implementation page."""
    html = (site / "areas.html").read_text(encoding="utf-8")
    areas = sorted({p for p in _hrefs(html) if "/" not in p and p not in _TOP})
    if not REAL:  # the area pages share one template: the widened first stands for them
        areas = ["roots.html"]
    if REAL:
        impls = sorted(
            f"implementations/{p.name}"
            for p in (site / "implementations").glob("*.html")
            if p.name != "index.html"
        )
    else:
        impls = sorted(_first_of_each_kind(site).values())
    return ["index.html", "interop.html", *areas, *impls]


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


_TOP = {
    "index.html",
    "interop.html",
    "areas.html",
    "legend.html",
    "changes.html",
    "spec-changes.html",
}


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


_SIDEWAYS = "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"


@pytest.fixture(scope="module")
def walk(chromium: Any, url: str, site: Path) -> dict[str, dict[str, Any]]:
    """One walk at 1366 px (light) over every page looked at (``_pages``, the changes page and
    the roots page), each loaded once for what several tests read of it, where each test
    loaded them all again. Per page, first what is read of the page as it loads (squares,
    marks, the article's and the body's text), then, every ``details`` opened, the tables
    wider than their column and the sideways scroll."""
    context = _context(chromium, 1366)
    tab = context.new_page()
    seen: dict[str, dict[str, Any]] = {}
    for path in dict.fromkeys([*_pages(site), "changes.html", "roots.html"]):
        _go(tab, url, path)
        record = {
            "squares": tab.evaluate(_SQUARES),
            "marks": tab.evaluate(_MARKS_PER_SQUARE),
            "article": tab.locator("article").inner_text(),
            "body": tab.locator("body").inner_text(),
        }
        tab.evaluate(_OPEN_ALL)
        record["too_wide"] = tab.evaluate(_TOO_WIDE)
        record["sideways"] = tab.evaluate(_SIDEWAYS)
        seen[path] = record
    context.close()
    return seen


def test_no_table_is_wider_than_its_column_at_1366(
    walk: dict[str, dict[str, Any]], site: Path
) -> None:
    wide = {}
    for path in _pages(site):
        found, sideways = walk[path]["too_wide"], walk[path]["sideways"]
        if found:
            wide[path] = found
        assert sideways <= 0, f"{path} scrolls sideways by {sideways} px at 1366"
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


_SQUARES = """() => [...document.querySelectorAll('table.mc-answers td.mc-ans')]
  .map(td => { const a = td.querySelector('a');
    return {marks: td.querySelectorAll('.mc-mark').length, href: a.getAttribute('href'),
            title: a.getAttribute('title') || '',
            words: td.querySelector('.mc-w').textContent}; })"""


def test_each_square_holds_one_answer_and_opens_its_newest_judged_cell(
    walk: dict[str, dict[str, Any]], site: Path
) -> None:
    seen = 0
    for path in [p for p in _pages(site) if not p.startswith("implementations/")]:
        for square in walk[path]["squares"]:
            assert square["marks"] == 1, square
            target = square["href"].split("#")[0] or path
            assert (site / target).is_file(), square
            # The title names each revision's verdict; the square opens the newest judged one.
            strip = square["title"].rpartition(" (")[2].split(";")[0].rstrip(")")
            judged = [
                part.split(" ", 1)[0]
                for part in strip.split(", ")
                if " " in part and part.split(" ", 1)[1] not in ("not run", "n/a")
            ]
            if judged and "cells/" in square["href"]:
                assert f"--{judged[-1]}--" in square["href"], square
                seen += 1
    assert seen > 0, "no square with a judged cell was found"


def test_filters_act_on_every_page_that_has_them_and_live_in_the_address(
    chromium: Any, url: str, site: Path
) -> None:
    context = _context(chromium, 1366)
    tab = context.new_page()
    for path in _pages(site):
        _go(tab, url, path)
        boxes = tab.locator("input[data-mc-filter='rev']")
        grid = tab.locator("table.mc-grid td[data-rev]")
        if boxes.count() and grid.count():
            newest = boxes.nth(boxes.count() - 1).get_attribute("value")
            boxes.nth(boxes.count() - 1).uncheck()
            hidden = f"[data-rev='{newest}']"
            assert tab.evaluate(
                f'() => [...document.querySelectorAll("table {hidden}")].every('
                "e => getComputedStyle(e).display === 'none')"
            ), f"{path}: unticking {newest} left its columns showing"
            assert f"hide-rev={newest}" in tab.url, tab.url
            _go(tab, url, tab.url.removeprefix(url + "/"))
            assert not tab.locator(f"input[data-mc-filter='rev'][value='{newest}']").is_checked()
            assert not tab.locator(f"table {hidden}").first.is_visible()
        kinds = tab.locator("input[data-mc-filter='kind']")
        if kinds.count():
            kind = kinds.first.get_attribute("value")
            kinds.first.uncheck()
            tables = tab.locator(f".mc-answers-wrap[data-kind='{kind}']")
            assert tables.count() == 0 or not tables.first.is_visible(), path
            assert f"hide-kind={kind}" in tab.url
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_no_serious_violation_on_any_page(
    chromium: Any, url: str, site: Path, scheme: str
) -> None:
    assert AXE.is_file(), f"{AXE} missing: run `make testdeps`"
    context = _context(chromium, 1366, scheme)
    tab = context.new_page()
    found = {}
    pages = _pages(site)
    if scheme == "dark" and not REAL:
        # One page of each template: the dark palette is one stylesheet for all of them.
        pages = [p for p in pages if not p.startswith("implementations/")][:3] + pages[-1:]
    for path in pages:
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
                  'table.mc-answers a, table.mc-grid a[href*="cells/"]')];
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


# Five questions a reader brings to the site (issue 42), each answered from the home page in
# at most two clicks, with the answer on screen and no sideways scroll at 1366 px.


def _on_screen(tab: Any, selector: str) -> dict[str, Any]:
    """Scroll the element into view (downwards only is what a reader does) and say where it is."""
    el = tab.locator(selector).first
    el.scroll_into_view_if_needed()
    return dict(
        tab.evaluate(
            """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                        width: innerWidth, height: innerHeight,
                        sideways: document.scrollingElement.scrollLeft}; }""",
            selector,
        )
    )


def _visible_without_sideways_scroll(box: dict[str, Any]) -> bool:
    return (
        box["sideways"] == 0
        and box["left"] >= 0
        and box["right"] <= box["width"]
        and 0 <= box["top"] < box["height"]
    )


def _home(chromium: Any, url: str) -> Any:
    """A tab at 1366 px on the home page, where every reader question starts."""
    tab = _context(chromium, 1366).new_page()
    _go(tab, url, "index.html")
    return tab


def _roots_from_home(chromium: Any, url: str) -> Any:
    """The home page's tab after a click on its Roots link (click 1)."""
    tab = _home(chromium, url)
    tab.locator("#areas ~ ul a", has_text="Roots").first.click()
    return tab


def test_q1_does_the_typescript_sdk_answer_roots_list_and_since_which_revision(
    chromium: Any, url: str, site: Path
) -> None:
    tab = _roots_from_home(chromium, url)
    box = _on_screen(tab, "#root-01-ts-sdk")
    assert _visible_without_sideways_scroll(box), box
    square = tab.locator("td:has(> #root-01-ts-sdk)")
    words = square.inner_text()
    assert "yes" in words and "since 20" in words, words
    assert len(square.locator(".mc-mark").all()) == 1
    tab.context.close()


def test_q2_what_does_the_recording_behind_that_answer_show(
    chromium: Any, url: str, site: Path
) -> None:
    tab = _roots_from_home(chromium, url)
    tab.locator("#root-01-ts-sdk").click()  # click 2
    assert "/cells/" in tab.url
    title = tab.locator("h1").inner_text()
    assert "TypeScript SDK" in title and "roots-list" not in title, title
    verdict = tab.locator("article .admonition-title", has_text="Verdict").first
    assert verdict.is_visible(), "no verdict on the evidence page"
    # and the way back to the row it answers
    assert tab.locator("article a[href$='roots.html#root-01']").first.is_visible()
    tab.context.close()


def test_q3_which_program_passes_the_most_rows_of_an_area(
    chromium: Any, url: str, site: Path
) -> None:
    tab = _home(chromium, url)
    tab.locator("nav.mc-toc a[href='#areas-at-a-glance']").click()  # click 1
    box = _on_screen(tab, "table.mc-interop tbody tr")
    assert _visible_without_sideways_scroll(box), box
    # Each kind's table is sorted by its share: the first line is the answer.
    shares = tab.evaluate(
        """() => [...document.querySelector('table.mc-interop').querySelectorAll('tbody tr')]
            .map(tr => tr.lastElementChild.textContent)"""
    )
    assert shares, "no line in the first interop table"
    tab.context.close()


def test_q4_when_were_these_results_measured_and_against_which_spec(
    chromium: Any, url: str, site: Path
) -> None:
    tab = _home(chromium, url)
    dated = tab.get_by_text("Results as of", exact=False).first
    if not dated.count():
        dated = tab.get_by_text("No results yet", exact=False).first
    box = dated.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 768, box  # in the first screen
    text = dated.locator("xpath=..").inner_text()
    assert re.search(r"\d{4}-\d\d-\d\d", text) and "commit" in text, text
    tab.context.close()


def test_q5_what_changed_since_the_last_run_from_the_sites_navigation(
    chromium: Any, url: str, site: Path
) -> None:
    tab = _home(chromium, url)
    tab.get_by_role("link", name="What changed since the last run").first.click()  # click 1
    assert tab.url.endswith("changes.html"), tab.url
    assert tab.get_by_text("Results as of", exact=False).first.is_visible() or (
        tab.get_by_text("No results yet", exact=False).first.is_visible()
    )
    tab.context.close()


_MARKS_PER_SQUARE = """() => {
  const out = [];
  document.querySelectorAll('table.mc-answers td.mc-ans').forEach(td =>
    out.push(['answer', td.querySelectorAll('.mc-mark').length, td.className,
              (td.querySelector('.mc-mark') || {}).textContent]));
  document.querySelectorAll('table.mc-grid td[data-rev]').forEach(td =>
    out.push(['grid', td.querySelectorAll('[aria-hidden="true"]').length,
              (td.querySelector('a') || {}).className || '',
              (td.querySelector('[aria-hidden="true"]') || {}).textContent]));
  document.querySelectorAll('table.mc-interop td').forEach(td =>
    out.push(['interop', td.querySelectorAll('a').length <= 1 ? 1 : 2, '', '']));
  return out; }"""


def test_no_square_carries_more_than_one_mark_and_n_a_is_not_not_run(
    walk: dict[str, dict[str, Any]], site: Path
) -> None:
    marks: dict[str, set[str]] = {"n-a": set(), "not-run": set()}
    pages = _pages(site)
    for path in pages:
        for kind, count, cls, mark in walk[path]["marks"]:
            assert count == 1, (path, kind, cls)
            if "mc-ans-n-a" in cls or "mc-verdict-n-a" in cls:
                marks["n-a"].add(mark)
            elif "mc-ans-not-tested" in cls or "mc-verdict-none" in cls:
                marks["not-run"].add(mark)
    assert marks["not-run"], "no not-run square on the pages looked at"
    assert not marks["n-a"] & marks["not-run"], marks
    # The legend beside the first table shows both, with their different marks.
    legend = (site / "roots.html").read_text(encoding="utf-8")
    assert "mc-ans-n-a mc-key-mark" in legend and "mc-ans-not-tested mc-key-mark" in legend


def test_every_summary_page_is_dated(walk: dict[str, dict[str, Any]], site: Path) -> None:
    areas = [p for p in _pages(site) if "/" not in p and p != "index.html"]
    for path in ["index.html", "changes.html", *areas]:
        text = walk[path]["article"]
        assert re.search(r"(Results as of|No results yet).{0,400}\d{4}-\d\d-\d\d", text, re.S), path
    matrix = json.loads((site / "matrix.json").read_text(encoding="utf-8"))
    assert matrix.get("measured") is not None or matrix.get("tool"), sorted(matrix)


def test_no_page_shows_a_path_of_the_machine_it_was_built_on(
    walk: dict[str, dict[str, Any]], site: Path
) -> None:
    roots = {str(PROJECT_ROOT), str(site.parent.parent), "/tmp/pytest-of-"}
    for path in ("index.html", "roots.html"):  # what a reader sees, as the browser draws it
        text = walk[path]["body"]
        assert not [r for r in roots if r in text], path
    # Every built page, not only those looked at: no folder of this machine in any text.
    for page in site.rglob("*.html"):
        body = page.read_text(encoding="utf-8", errors="replace")
        assert not [r for r in roots if r in body], page


def test_interop_squares_hold_one_line_and_its_names_stay_at_390(
    chromium: Any, url: str, site: Path
) -> None:
    """Eleven areas and the total: each number on one line at 1366 px; at 390 px the table
    scrolls inside its wrapper and the implementation names stay in view (sticky)."""
    tab = _context(chromium, 1366).new_page()
    _go(tab, url, "interop.html")
    columns = tab.evaluate(
        "() => [...document.querySelectorAll('table.mc-interop')]"
        ".map(t => t.querySelectorAll('thead th').length)"
    )
    assert columns and min(columns) >= 13, columns  # name, eleven areas, all areas
    wrapped = tab.evaluate(
        """() => [...document.querySelectorAll('table.mc-interop .mc-top')]
              .filter(t => t.getClientRects().length > 1 || t.offsetHeight > 24).length"""
    )
    assert wrapped == 0
    tab.context.close()
    tab = _context(chromium, 390).new_page()
    _go(tab, url, "interop.html")
    moved = tab.evaluate(
        """() => { const wrap = document.querySelector('.mc-wrap:has(table.mc-interop)');
          const name = wrap.querySelector('tbody th[scope=row]');
          const before = name.getBoundingClientRect().left;
          wrap.scrollLeft = 400;
          return {scrolls: wrap.scrollWidth > wrap.clientWidth, scrolled: wrap.scrollLeft,
                  shift: Math.round(name.getBoundingClientRect().left - before)}; }"""
    )
    assert moved["scrolls"] and moved["scrolled"] > 0 and moved["shift"] == 0, moved
    tab.context.close()
