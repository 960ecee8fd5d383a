"""The names other stages import from ``compare.rows`` and ``compare.cite`` stay put."""

from __future__ import annotations

import compare.cite
import compare.rows


def test_rows_public_surface() -> None:
    assert {
        "compute",
        "lint_all",
        "area_files",
        "load_yaml",
        "placed_citations",
        "AREAS_DIR",
        "SCHEMA_PATH",
        "STATE_LABELS",
        "write_rows",
    } <= set(compare.rows.__all__)
    assert all(hasattr(compare.rows, name) for name in compare.rows.__all__)


def test_cite_public_surface() -> None:
    assert {"parse_citation", "verify", "verify_refs", "fix_one", "lookup", "STATUSES"} <= set(
        compare.cite.__all__
    )
    assert all(hasattr(compare.cite, name) for name in compare.cite.__all__)
    assert compare.cite.STATUSES == (
        "verified",
        "verified-normalised",
        "moved",
        "ambiguous",
        "mismatch",
        "unavailable",
    )


def test_the_citation_walk_and_record_are_the_rows_stage() -> None:
    # cite verifies strings; the stage that owns the area files walks them and writes
    # citations.json, so cite needs nothing from rows (tests/test_import_graph.py).
    assert {"check_citations", "checked_document", "fix_moved"} <= set(compare.rows.__all__)
    assert not {"check_all", "check_files", "fix_moved"} & set(compare.cite.__all__)
