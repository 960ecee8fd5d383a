"""The two entry points the CLI calls: lint only, or lint + compute + write ``rows.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare._atomic import write_json
from compare._paths import build_dir
from compare.rows._compute import compute
from compare.rows._context import Known, gather
from compare.rows._lint import lint_areas
from compare.rows._load import Issue


def lint_all(files: list[Path] | None = None, known: Known | None = None) -> list[Issue]:
    """Every lint issue in every area file (empty list: clean)."""
    return [issue for linted in lint_areas(files, known or gather()) for issue in linted.issues]


def write_rows(files: list[Path] | None = None, known: Known | None = None) -> dict[str, Any]:
    """Compute the rows and write ``build/rows.json`` atomically; returns the document."""
    document = compute(files, known)
    write_json(build_dir() / "rows.json", document)
    return document
