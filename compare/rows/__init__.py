"""Pipeline stage `rows`: the area files (ROOT-xx rows), their computed columns and citations.

Public names other stages use: :func:`compute` (the ``rows.json`` document),
:func:`lint_all`, :func:`area_files`, :func:`load_yaml`, :func:`placed_citations`,
:data:`AREAS_DIR`, :data:`SCHEMA_PATH`, :data:`STATE_LABELS`,
:data:`STATE_PROMISES`, :data:`CITED_STATES`. The rows stage also owns the run's citation
record: :func:`check_citations` walks the area files and the scenarios' refs, verifies each
citation once through ``compare.cite`` and writes ``build/citations.json``;
:func:`checked_document` is what ``cite --check`` reads, :func:`fix_moved` what ``cite --fix``
calls.
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare._yaml import load_yaml
    from compare.rows._citations import Placed, placed_citations
    from compare.rows._citecheck import (
        check_area_files,
        check_citations,
        check_scenario_refs,
        checked_document,
    )
    from compare.rows._compute import compute
    from compare.rows._context import Known, gather
    from compare.rows._evidence import Checked, Report, document_failed
    from compare.rows._fix import Fix, fix_moved
    from compare.rows._load import AREAS_DIR, SCHEMA_PATH, Issue, area_files, schema_issues
    from compare.rows._run import lint_all, write_rows
    from compare.rows._state import CITED_STATES, STATE_LABELS, STATE_PROMISES

__all__ = [
    "AREAS_DIR",
    "CITED_STATES",
    "SCHEMA_PATH",
    "STATE_LABELS",
    "STATE_PROMISES",
    "Checked",
    "Fix",
    "Issue",
    "Known",
    "Placed",
    "Report",
    "area_files",
    "check_area_files",
    "check_citations",
    "check_scenario_refs",
    "checked_document",
    "compute",
    "document_failed",
    "fix_moved",
    "gather",
    "lint_all",
    "load_yaml",
    "placed_citations",
    "schema_issues",
    "write_rows",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
