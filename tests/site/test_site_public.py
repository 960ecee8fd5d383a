"""The names other code may use from ``compare.site``; changing them is a contract change."""

from __future__ import annotations

import compare.site


def test_public_surface() -> None:
    assert sorted(compare.site.__all__) == [
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
    for name in compare.site.__all__:
        assert getattr(compare.site, name) is not None
