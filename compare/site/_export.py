"""``mcp-compare export``: the matrix as ``build/matrix.json``, checked against its schema.

Before an export replaces a *different* matrix, the old one is kept as
``build/previous/matrix.json``: that is the previous run the "what changed" page compares with.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compare import _atomic, _paths
from compare.site._inputs import load_site_data
from compare.site._matrix import dumps, matrix_of, validate_matrix


def export(out: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """Write the matrix (validated first) and return where it went and the document."""
    matrix = matrix_of(load_site_data())
    validate_matrix(matrix)
    default = _paths.build_dir() / "matrix.json"
    path = out or default
    text = dumps(matrix).encode("utf-8")
    if path == default and path.is_file():
        old = path.read_bytes()
        if old != text and not _same_document(old, matrix):
            _atomic.write_bytes(_paths.build_dir() / "previous" / "matrix.json", old)
    _atomic.write_bytes(path, text)
    return path, matrix


def _same_document(old: bytes, matrix: dict[str, Any]) -> bool:
    """Whether ``old`` (bytes that differ from the new text) holds the same document, only
    written another way (an older version's indentation, say): no change to keep."""
    try:
        same: bool = json.loads(old) == matrix
    except ValueError:
        return False
    return same
