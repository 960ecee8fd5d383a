"""The interop view (issue 42 item 2): per kind, each implementation's share of graded rows that
pass at the newest revision with a judged cell, per area and in all areas, how it moved since
the last run and since its previous version, and a link from every number to the rows behind
it. Built from the small data set, with rows and a previous run crafted for each question.

In the browser, at the real site's width (eleven areas and the total), the page is one of
``test_site_reader_browser``'s: no table wider than its column at 1366 px, no sideways scroll
at 390 px with the names in view, axe-core in light and dark.
"""

from __future__ import annotations

import copy
import html
import json
import re
from pathlib import Path
from typing import Any

import yaml
from conftest import mc
from site_data import DATED, HOSTILE_NAME

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
