"""Pipeline stage `site`: the pages implementers read, the built site, and ``matrix.json``.

pin → models → diff → exchange → rows → cite → **site**. Public names other code uses:
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.site._build import Built, build_site, serve_site
    from compare.site._escape import Md, esc
    from compare.site._export import export
    from compare.site._matrix import build_matrix, matrix_schema, validate_matrix
    from compare.site._render import check, render

__all__ = [
    "Built",
    "Md",
    "build_matrix",
    "build_site",
    "check",
    "esc",
    "export",
    "matrix_schema",
    "render",
    "serve_site",
    "validate_matrix",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
