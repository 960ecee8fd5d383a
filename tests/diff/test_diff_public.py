"""The names of ``compare.diff`` stay importable."""

from __future__ import annotations

import compare.diff as diff


def test_public_surface() -> None:
    for name in ("build_diff", "write_diff", "diff_path"):
        assert name in diff.__all__ and hasattr(diff, name), name
    assert diff.diff_path().name == "diff.json"
