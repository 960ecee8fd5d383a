"""Pipeline stage `diff`: where each area's schema items exist, per revision.

:func:`build_diff` derives everything from the area files, the pinned schemas and the areas'
pages; :func:`write_diff` stores it as ``build/diff.json`` (its shape: ``diff.schema.json``).
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.diff._build import FORMAT, build_diff
    from compare.diff._write import diff_path, diff_shape, write_diff

__all__ = ["FORMAT", "build_diff", "diff_path", "diff_shape", "write_diff"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
