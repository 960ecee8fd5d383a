"""Pipeline stage `rows`: the area files (ROOT-xx rows) and their computed columns.

Public names other stages use: :func:`compute` (the ``rows.json`` document),
:func:`lint_all`, :func:`area_files`, :func:`load_yaml`, :func:`placed_citations`,
:data:`AREAS_DIR`, :data:`SCHEMA_PATH`, :data:`STATE_LABELS`,
:data:`STATE_PROMISES`, :data:`CITED_STATES`.
"""

from compare._yaml import load_yaml
from compare.rows._citations import Placed, placed_citations
from compare.rows._compute import compute
from compare.rows._context import Known, gather
from compare.rows._lint import verify_area
from compare.rows._load import AREAS_DIR, SCHEMA_PATH, Issue, area_files, schema_issues
from compare.rows._run import lint_all, write_rows
from compare.rows._state import CITED_STATES, STATE_LABELS, STATE_PROMISES

__all__ = [
    "AREAS_DIR",
    "CITED_STATES",
    "SCHEMA_PATH",
    "STATE_LABELS",
    "STATE_PROMISES",
    "Issue",
    "Known",
    "Placed",
    "area_files",
    "compute",
    "gather",
    "lint_all",
    "load_yaml",
    "placed_citations",
    "schema_issues",
    "verify_area",
    "write_rows",
]
