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
    assert {"parse_citation", "verify", "check_all", "fix_moved", "lookup", "STATUSES"} <= set(
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
