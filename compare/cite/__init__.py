"""Pipeline stage `cite`: verify ``path:line “quote”`` citations against pinned sources.

Public names other stages use: :func:`parse_citation`, :func:`verify`, :func:`check_all`,
:func:`lookup`, :data:`STATUSES`, and :func:`verify_refs` (citation strings in, results out,
for citations kept outside area files) with :func:`standalone_problem`.
"""

from compare.cite._check import Checked, Report, SourceCache, check_all, check_files
from compare.cite._fix import Fix, fix_moved
from compare.cite._lookup import Lookup, lookup
from compare.cite._parse import Citation, parse_citation
from compare.cite._refs import RefResult, standalone_problem, verify_refs
from compare.cite._sources import Source, clone_dir, open_source
from compare.cite._verify import STATUSES, Result, Status, normalise, verify

__all__ = [
    "STATUSES",
    "Checked",
    "Citation",
    "Fix",
    "Lookup",
    "RefResult",
    "Report",
    "Result",
    "Source",
    "SourceCache",
    "Status",
    "check_all",
    "check_files",
    "clone_dir",
    "fix_moved",
    "lookup",
    "normalise",
    "open_source",
    "parse_citation",
    "standalone_problem",
    "verify",
    "verify_refs",
]
