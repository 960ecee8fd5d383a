"""The names other stages import from ``compare.models`` stay importable."""

from __future__ import annotations

import dataclasses
import inspect

import compare.models as models


def test_public_surface() -> None:
    for name in ("validate_line", "validate_as", "Validation", "Issue"):
        assert name in models.__all__ and hasattr(models, name), name
    assert list(inspect.signature(models.validate_line).parameters) == ["raw", "revision"]
    assert list(inspect.signature(models.validate_as).parameters) == [
        "value",
        "definition",
        "revision",
    ]
    fields = {f.name for f in dataclasses.fields(models.Validation)}
    assert {"ok", "model", "errors", "raw", "kind", "method"} <= fields
    assert {f.name for f in dataclasses.fields(models.Issue)} == {"loc", "msg", "type"}
