"""The interop view (issue 42 item 2): per kind, each implementation's share of graded rows that
pass at the newest revision with a judged cell, per area and in all areas, how it moved since
the last run and since its previous version, and a link from every number to the rows behind
it. Built from the small data set, with rows and a previous run crafted for each question.

In the browser (Debian's Chromium, marked ``browser``), at the real site's width (eleven areas
and the total, implementations of every kind): at 1366 px no table is wider than its column;
at 390 px the page does not scroll sideways (the tables scroll inside their wrapper) and the
names stay in view; axe-core finds no serious or critical violation in light and dark.
``MCP_COMPARE_BROWSER_SITE=<built site folder>`` runs those on a real build.
"""

from __future__ import annotations

import copy
import functools
import html
import http.server
import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import mc
from site_data import DATED, HOSTILE_NAME, write_dataset
from test_site_browser import ARGS, CHROMIUM, _Quiet
from test_site_matrix_browser import AXE, SHIPPED

from compare import _paths
from compare._paths import PROJECT_ROOT
from compare.site import render
from compare.site._inputs import load_site_data
from compare.site._interop import InteropTable, Line, interop_html, interop_tables
from compare.site._links import Links
from compare.site._matrix import build_matrix
from compare.site._symbols import SymbolUse

TS = [f"results/ts-sdk/1.32.2/roots-list/{rev}~roots" for rev in DATED]


def _rows_json() -> Path:
    return _paths.build_dir() / "rows.json"


def _edit_rows(change: Any) -> None:
    path = _rows_json()
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def _verdicts(*verdicts: str) -> dict[str, Any]:
    """A ts-sdk column whose cells at the dated revisions say ``verdicts``, oldest first."""
    revs = dict(zip(DATED, TS, strict=True))
    chosen = list(revs.items())[: len(verdicts)]
    return {
        "state": "supported",
        "label": "supported",
        "version": "1.32.2",
        "revisions": {
            rev: {"cell": cell, "verdict": v}
            for (rev, cell), v in zip(chosen, verdicts, strict=True)
        },
        "evidence": [cell for _, cell in chosen],
    }


def _add_row(data: dict[str, Any], rid: str, column: dict[str, Any]) -> None:
    rows = data["areas"][0]["rows"]
    row = copy.deepcopy(rows[1])
    row["id"], row["status"] = rid, {"ts-sdk": column}
    rows.append(row)


def _links() -> Links:
    return Links(load_site_data(), SymbolUse())


def _tables(links: Links | None = None) -> list[InteropTable]:
    return interop_tables(links or _links())


def _line(tables: list[InteropTable], impl: str) -> Line:
    return next(line for t in tables for line in t.lines if line.impl == impl)


def test_the_share_counts_only_graded_rows_at_the_newest_revision(site_env: Path) -> None:
    assert len(DATED) >= 3

    def craft(data: dict[str, Any]) -> None:
        rows = data["areas"][0]["rows"]
        # ROOT-01: failed at the oldest revision, passes at the newest: supported.
        rows[0]["status"]["ts-sdk"] = _verdicts("fail", "pass", "pass")
        # Passed first, fails at the newest: graded, not supported.
        _add_row(data, "ROOT-03", _verdicts("pass", "pass", "fail"))
        # Passed first, only observed at the newest: not counted at all.
        _add_row(data, "ROOT-04", _verdicts("pass", "informational"))
        # Not run at the newest: the newest *judged* revision speaks (its square opens it).
        _add_row(data, "ROOT-05", _verdicts("non-strict", "pass", "not-run"))
        # Unstable at the newest: not counted.
        _add_row(data, "ROOT-06", _verdicts("pass", "unstable"))

    _edit_rows(craft)
    links = _links()
    tables = _tables(links)
    ts = _line(tables, "ts-sdk")
    roots = ts.squares["roots"].tally
    assert (roots.supported, roots.graded) == (2, 3)  # ROOT-01 and ROOT-05 of 01, 03, 05
    assert dict(roots.left_out) == {"informational": 1, "unstable": 1, "not-run": 1}
    assert roots.left_out_text() == "not counted: 1 observed, 1 unstable, 1 not run"
    total = ts.total.tally
    assert (total.supported, total.graded) == (2, 3)
    shown = interop_html(links, tables, links.data.areas)
    square = re.search(
        r'<td class="mc-iq"><a href="implementations/ts-sdk\.html[^>]*>.*?</td>', shown
    )
    assert square is not None
    text = html.unescape(square.group(0))
    assert ">2/3<" in text and "width:67%" in text
    assert "2 of 3 graded rows pass (67%)" in text
    assert "not counted: 1 observed, 1 unstable, 1 not run" in text


def test_nothing_graded_reads_a_dash_with_its_word(site_env: Path) -> None:
    def craft(data: dict[str, Any]) -> None:
        data["areas"][0]["rows"][0]["status"]["ts-sdk"] = _verdicts("informational")

    _edit_rows(craft)
    links = _links()
    tables = _tables(links)
    roots = _line(tables, "ts-sdk").squares["roots"].tally
    assert roots.graded == 0 and roots.empty_word == "nothing graded"
    py = _line(tables, "py-sdk")
    assert (py.squares["roots"].tally.supported, py.squares["roots"].tally.graded) == (0, 1)
    shown = html.unescape(interop_html(links, tables, links.data.areas))
    assert "nothing graded" in shown and "—" in shown


def test_tables_follow_the_kinds_and_leave_cited_ones_out(site_env: Path) -> None:
    tables = _tables()
    assert [t.kind for t in tables] == ["SDKs", "CLI clients"]
    impls = [line.impl for t in tables for line in t.lines]
    assert "mcpx" not in impls  # cited only: nothing measured
    # Sorted by the all-areas share: ts-sdk (1/1) before py-sdk (0/1).
    assert [line.impl for line in tables[0].lines] == ["ts-sdk", "py-sdk"]


def test_movement_since_a_crafted_previous_run(site_env: Path) -> None:
    assert all(line.total.since_run is None for t in _tables() for line in t.lines)
    before = build_matrix(load_site_data())
    for row in before["rows"]:
        if row["id"] == "ROOT-01":
            row["status"]["ts-sdk"]["state"] = "not-supported"  # it failed then
            del row["status"]["py-sdk"]  # not there then
    previous = _paths.build_dir() / "previous" / "matrix.json"
    previous.parent.mkdir(parents=True, exist_ok=True)
    previous.write_text(json.dumps(before), encoding="utf-8")
    tables = _tables()
    ts, py, cmd = (_line(tables, n) for n in ("ts-sdk", "py-sdk", "command"))
    move = ts.squares["roots"].since_run
    assert move is not None and move.shown == "+1" and move.trend == "up"
    assert move.before == (0, 1) and move.after == (1, 1)
    assert ts.total.since_run is not None and ts.total.since_run.shown == "+1"
    assert py.squares["roots"].since_run is not None
    assert py.squares["roots"].since_run.shown == "new"
    assert cmd.squares["roots"].since_run is not None
    assert cmd.squares["roots"].since_run.shown == "="
    render()
    page = html.unescape((_paths.site_dir() / "docs" / "interop.md").read_text("utf-8"))
    assert '<span class="mc-mv mc-mv-up">+1</span>' in page
    assert '<span class="mc-mv mc-mv-new">new</span>' in page
    assert "since the last run: +1 (by row state, 0 of 1 then, 1 of 1 now)" in page
    # A previous run that is not a matrix is named, never half-compared.
    previous.write_text('{"format": "no"}', encoding="utf-8")
    render()
    page = (_paths.site_dir() / "docs" / "interop.md").read_text("utf-8")
    assert "No move since the last run is shown" in page and "mc-mv mc-mv-" not in page


def test_movement_since_the_last_version_is_by_row_state(site_env: Path) -> None:
    tables = _tables()
    move = _line(tables, "ts-sdk").total.since_version
    assert move is not None  # rows.json history: 1.31.0 not supported, 1.32.2 supported
    assert (move.since, move.shown, move.before, move.after) == ("1.31.0", "+1", (0, 1), (1, 1))
    assert _line(tables, "py-sdk").total.since_version is None  # one version only
    render()
    page = html.unescape((_paths.site_dir() / "docs" / "interop.md").read_text("utf-8"))
    assert 'href="implementations/ts-sdk.html#history"' in page
    assert ">since 1.31.0: +1<" in page


def test_every_number_links_to_an_anchor_of_a_built_page(site_env: Path) -> None:
    _edit_rows(lambda data: data["implementations"][0].update(name=HOSTILE_NAME))
    render()
    docs = (_paths.site_dir() / "docs" / "interop.md").read_text("utf-8")
    assert "<script>" not in docs and "&#60;script&#62;" in docs  # a name is text
    proc = mc("site")
    assert proc.returncode == 0, proc.stderr  # the site's own link check passed too
    built = _paths.site_dir() / "build"
    page = (built / "interop.html").read_text("utf-8")
    tables = re.findall(r'<table class="mc-interop">.*?</table>', page, re.S)
    assert tables
    links = [html.unescape(h) for t in tables for h in re.findall(r'href="([^"]+)"', t)]
    numbers = [h for h in links if "#rows-" in h or h.endswith("#grid")]
    assert "implementations/ts-sdk.html#rows-roots" in numbers
    assert "implementations/ts-sdk.html#grid" in numbers
    for target in links:
        file, _, anchor = target.partition("#")
        found = built / file
        assert found.is_file(), target
        if anchor:
            assert f'id="{anchor}"' in found.read_text("utf-8"), target
    assert "data-search-exclude" in page.split('<table class="mc-interop">')[0][-200:]


def test_the_page_is_in_the_nav_after_home(site_env: Path) -> None:
    config = yaml.load(
        (PROJECT_ROOT / "site" / "mkdocs.yml").read_text("utf-8"), Loader=yaml.BaseLoader
    )
    assert config["nav"][:2] == [{"Home": "index.md"}, {"Interop": "interop.md"}]
    render()
    page = (_paths.site_dir() / "docs" / "interop.md").read_text("utf-8")
    assert '---\ntitle: "Interop"' in page
    assert "Results as of" in page  # dated
    assert "(mcpx) are left out" in page
    assert "No earlier run to compare with yet" in page


# In the browser -------------------------------------------------------------------------

REAL = os.environ.get("MCP_COMPARE_BROWSER_SITE", "")
#: The real site's areas (titles as long as the real ones: they set the columns' width).
AREAS = [
    ("roots", "Roots"),
    ("completion", "Completion"),
    ("elicitation", "Elicitation"),
    ("lifecycle", "Lifecycle and versioning"),
    ("logging", "Logging"),
    ("pagination", "Pagination and caching"),
    ("prompts", "Prompts"),
    ("resources", "Resources"),
    ("sampling", "Sampling"),
    ("tools", "Tools"),
    ("transports", "Transports"),
]
VERDICTS = ["pass", "pass", "fail", "non-strict", "informational", "pass", "unstable"]


def _eleven_areas(rows_json: Path) -> None:
    """Eleven areas of twelve rows, every third shipped implementation (each kind among them)
    with per-revision verdicts (the crafted cells stand behind them), so squares hold
    two-digit shares as the real ones do."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    template = data["areas"][0]["rows"][0]
    cells = [f"results/ts-sdk/1.32.2/roots-list/{rev}~roots" for rev in DATED]
    areas = []
    for a, (area, title) in enumerate(AREAS):
        rows = []
        for r in range(12):
            row = copy.deepcopy(template)
            row["id"] = f"{area[:4].upper()}-{r + 1:02d}"
            row.pop("status_query", None)
            for c, name in enumerate(SHIPPED[::3]):
                verdict = VERDICTS[(a + r + c) % len(VERDICTS)]
                row["status"][name] = {
                    "state": "supported",
                    "label": "supported",
                    "revisions": {
                        rev: {"cell": cell, "verdict": verdict}
                        for rev, cell in zip(DATED, cells, strict=True)
                    },
                    "evidence": cells,
                }
            rows.append(row)
        areas.append({"area": area, "title": title, "summary": "s", "file": "f", "rows": rows})
    data["areas"] = areas
    rows_json.write_text(json.dumps(data), encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if REAL:
        folder = Path(REAL)
        assert (folder / "interop.html").is_file(), f"no built interop page in {folder}"
        return folder
    root = tmp_path_factory.mktemp("interop")
    paths = write_dataset(root, hostile=False)
    _eleven_areas(paths["build"] / "rows.json")
    env = {
        "MCP_COMPARE_RESULTS": str(root / "results"),
        "MCP_COMPARE_BUILD": str(root / "build"),
        "MCP_COMPARE_SITE": str(root / "site"),
    }
    for step in (["render"], ["site"]):
        proc = mc(*step, env=env, timeout=900)
        assert proc.returncode == 0, f"mcp-compare {step[0]} failed:\n{proc.stderr}"
    return root / "site" / "build"


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


def _tab(chromium: Any, url: str, width: int, scheme: str = "light") -> Any:
    context = chromium.new_context(
        viewport={"width": width, "height": 768 if width > 600 else 844}, color_scheme=scheme
    )
    tab = context.new_page()
    tab.goto(f"{url}/interop.html", wait_until="load")
    return tab


_SIDEWAYS = "() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"


@pytest.mark.browser
def test_in_the_browser_no_table_is_wider_than_its_column_at_1366(chromium: Any, url: str) -> None:
    tab = _tab(chromium, url, 1366)
    found = tab.evaluate(
        """() => { const column = document.querySelector('article.md-content__inner');
          const right = column.getBoundingClientRect().right + 1;
          const tables = [...column.querySelectorAll('table.mc-interop')];
          return {tables: tables.length,
                  columns: tables.map(t => t.querySelectorAll('thead th').length),
                  wide: tables.filter(t => t.getBoundingClientRect().right > right)
                              .map(t => t.querySelector('caption').textContent),
                  scrolled: [...column.querySelectorAll('.mc-wrap')]
                              .filter(w => w.querySelector('table.mc-interop')
                                           && w.scrollWidth > w.clientWidth).length}; }"""
    )
    assert found["tables"] >= 2 and min(found["columns"]) >= 13, found  # 11 areas, total, name
    assert found["wide"] == [] and found["scrolled"] == 0, found
    assert tab.evaluate(_SIDEWAYS) <= 0
    # One number per square: "7/9" on one line, its bar under it.
    lines = tab.evaluate(
        """() => [...document.querySelectorAll('table.mc-interop .mc-top')]
              .filter(t => t.getClientRects().length > 1 || t.offsetHeight > 24).length"""
    )
    assert lines == 0
    tab.context.close()


@pytest.mark.browser
def test_in_the_browser_at_390_the_tables_scroll_inside_and_the_names_stay(
    chromium: Any, url: str
) -> None:
    tab = _tab(chromium, url, 390)
    assert tab.evaluate(_SIDEWAYS) <= 0
    moved = tab.evaluate(
        """() => { const wrap = document.querySelector('.mc-wrap:has(table.mc-interop)');
          const name = wrap.querySelector('tbody th[scope=row]');
          const before = name.getBoundingClientRect().left;
          wrap.scrollLeft = 400;
          return {scrolls: wrap.scrollWidth > wrap.clientWidth, scrolled: wrap.scrollLeft,
                  shift: Math.round(name.getBoundingClientRect().left - before)}; }"""
    )
    assert moved["scrolls"] and moved["scrolled"] > 0, moved
    assert moved["shift"] == 0, moved  # the first column is sticky
    tab.context.close()


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_in_the_browser_axe_finds_no_serious_violation(
    chromium: Any, url: str, scheme: str
) -> None:
    """On the page's own content: the site's header and tabs are checked on every page by
    ``test_site_reader_browser``."""
    assert AXE.is_file(), f"{AXE} missing: run `make testdeps`"
    tab = _tab(chromium, url, 1366, scheme)
    tab.add_script_tag(path=str(AXE))
    bad = tab.evaluate(
        """async () => (await axe.run('article.md-content__inner',
                                     {resultTypes: ['violations']})).violations
            .filter(v => v.impact === 'serious' || v.impact === 'critical')
            .map(v => ({id: v.id, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))"""
    )
    assert bad == [], json.dumps(bad, indent=1)
    tab.context.close()
