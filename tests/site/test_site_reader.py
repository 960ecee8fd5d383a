"""Issue 25: what a reader meets — one word per state, n/a apart from "not run", reader text
without build facts, schema-only changes marked as such, each square's newest judged cell,
revision pages that list only the area's items, search that leaves cell pages out."""

from __future__ import annotations

import html
import json
from pathlib import Path

from compare.site import render
from compare.site._revision_view import own_items
from compare.site._strip import Mark, newest
from compare.site._text import reader_text, schema_only, schema_only_change
from compare.site._words import word


def _docs(root: Path, rel: str) -> str:
    return (root / "site" / "docs" / rel).read_text(encoding="utf-8")


def test_verdicts_and_row_states_that_mean_the_same_print_one_word() -> None:
    assert word("verdict", "pass") == word("status", "supported") == "pass"
    assert word("verdict", "fail") == word("status", "not-supported") == "fail"
    assert word("verdict", "informational") == word("status", "observed") == "observed"
    assert word("verdict", "not-run") == word("status", "not-run") == "not run"
    assert word("verdict", "some-new-verdict") == "some new verdict"  # never blank


def test_no_build_path_or_machine_fact_in_a_citation_detail() -> None:
    """The cite stage says where its cache lived; a reader needs only what is missing."""
    said = reader_text(
        "source unavailable: no clone of dezren39/nix at /tmp/x/.cache/repos/dezren39/nix"
        " (and no network)"
    )
    assert said == "source unavailable: no copy of the source of dezren39/nix"
    why = reader_text("with no package on any registry these machines reach")
    assert "machines" not in why and why.endswith("this comparison installs from")


def test_envelope_fields_and_refs_are_schema_only_and_a_new_field_is_not() -> None:
    refactor = [
        "ListRootsRequest.id appears in 2025-11-25",
        "ListRootsRequest.jsonrpc appears in 2025-11-25",
        "ref: None → RequestParams (from 2025-06-18 to 2025-11-25)",
        "ListRootsRequest.params._meta is gone in 2025-11-25 (present in 2025-06-18)",
    ]
    assert schema_only(refactor)
    assert not schema_only([*refactor, "Root._meta appears in 2025-06-18"])
    assert not schema_only([])


def test_a_field_that_moved_under_a_new_ref_is_schema_only_on_the_revision_page() -> None:
    ref = {
        "item": "ListRootsRequest.params",
        "change": "ref",
        "detail": "ref: None → RequestParams",
    }
    gone = {
        "item": "ListRootsRequest.params._meta",
        "change": "removed",
        "detail": "ListRootsRequest.params._meta is gone in 2025-11-25 (present in 2025-06-18)",
    }
    new = {"item": "Root._meta", "change": "added", "detail": "Root._meta appears in 2025-06-18"}
    assert schema_only_change(gone, [ref, gone]) and schema_only_change(ref, [ref, gone])
    assert not schema_only_change(gone, [gone])  # no $ref beside it: the field really went
    assert not schema_only_change(new, [ref, new])


def test_a_square_opens_the_newest_judged_cell_not_a_later_not_run_one() -> None:
    cell = object()
    found = [
        Mark("a", "pass", cell),  # type: ignore[arg-type]
        Mark("b", "fail", cell),  # type: ignore[arg-type]
        Mark("c", "not-run", cell),  # type: ignore[arg-type]
        Mark("d", "", None),
    ]
    assert newest(found) == found[1]
    assert newest([found[2], found[3]]) == found[2]  # only "not run": the newest of those
    assert newest([found[3]]) is None


def test_a_row_played_against_servers_is_n_a_for_a_client_not_not_run(site_env: Path) -> None:
    rows_path = site_env / "build" / "rows.json"
    data = json.loads(rows_path.read_text(encoding="utf-8"))
    data["areas"][0]["rows"][0]["status_query"] = {"scenario": "server-asks"}
    data["areas"][0]["rows"][1]["status_query"] = {"scenario": "roots-list"}
    rows_path.write_text(json.dumps(data), encoding="utf-8")
    render()
    area = html.unescape(_docs(site_env, "roots.md"))
    # No client has a ROOT-01 square at all (its only other row, not run, leaves them named
    # under the tables instead); the row stays where it can apply: the cited column.
    assert 'id="root-01-ts-sdk"' not in area and 'id="root-02-ts-sdk"' not in area
    assert "No result in this area for: Python SDK, TypeScript SDK" in area
    assert 'id="root-01-mcpx"' in area
    page = html.unescape(_docs(site_env, "implementations/ts-sdk.md"))
    na = page[page.index("rows that cannot apply to it (n/a)") :].split("\n\n")[0]
    assert "ROOT-01" in na and "ROOT-02" not in na
    grid = page[page.index('<table class="mc-grid">') :].split("</table>")[0]
    assert "roots.html#root-01" not in grid  # not a line of "not run" squares either


def test_cell_pages_are_out_of_the_search_index_and_pages_are_weighted(site_env: Path) -> None:
    render()
    cells = sorted((site_env / "site" / "docs" / "cells").glob("*.md"))
    assert cells and all("search:\n  exclude: true" in p.read_text("utf-8") for p in cells)
    assert "search:\n  boost: 4" in _docs(site_env, "implementations/ts-sdk.md")
    assert "search:\n  boost: 3" in _docs(site_env, "roots.md")


def test_revision_pages_list_the_area_items_not_what_carries_them() -> None:
    items = {
        "ListRootsRequest": {"revisions": {"r": {"present": True, "role": "core"}}},
        "ListRootsRequest.params": {"revisions": {"r": {"present": True}}},
        "CallToolRequestParams": {"revisions": {"r": {"present": True, "role": "embedder"}}},
        "CallToolRequestParams.name": {"revisions": {"r": {"present": True}}},
        "RequestParams": {"revisions": {"r": {"present": True, "role": "referenced"}}},
        "RootsListChangedNotification": {"revisions": {"r": {"present": True}}},
    }
    assert own_items(items) == {
        "ListRootsRequest",
        "ListRootsRequest.params",
        "RootsListChangedNotification",
    }


def test_spec_changes_page_says_what_each_revision_changed_per_area(site_env: Path) -> None:
    render()
    page = html.unescape(_docs(site_env, "spec-changes.md"))
    assert page.startswith('---\ntitle: "What changed between spec revisions"')
    assert "RootsListChangedNotification" in page and "no longer defined" in page
    changes = _docs(site_env, "changes.md")
    assert "# What changed since the last run of the comparison" in changes
