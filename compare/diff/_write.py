"""Where the diff is stored, written atomically so a failed run keeps the previous one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare import _atomic, _paths


def diff_path() -> Path:
    """``build/diff.json``."""
    return _paths.build_dir() / "diff.json"


def write_diff(diff: dict[str, Any]) -> Path:
    """Write ``diff`` to ``build/diff.json`` and return the path."""
    path = diff_path()
    _atomic.write_json(path, diff)
    return path
