"""The two entry points the CLI calls: lint only, or lint + compute + write ``rows.json``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare._atomic import write_json
from compare._errors import CompareError
from compare._paths import build_dir
from compare.rows._compute import compute, verify_area
from compare.rows._context import Known, gather
from compare.rows._lint import lint_file
from compare.rows._load import Issue, area_files, load_yaml


def lint_all(files: list[Path] | None = None, known: Known | None = None) -> list[Issue]:
    """Every lint issue in every area file (empty list: clean)."""
    known = known or gather()
    issues: list[Issue] = []
    for path in files or area_files():
        try:
            area = load_yaml(path)
        except CompareError:
            area = None  # lint_file reports it with its fix
        verified = verify_area(area) if isinstance(area, dict) else {}
        issues += lint_file(path, known, verified)
    return issues


def write_rows(files: list[Path] | None = None, known: Known | None = None) -> dict[str, Any]:
    """Compute the rows and write ``build/rows.json`` atomically; returns the document."""
    document = compute(files, known)
    write_json(build_dir() / "rows.json", document)
    return document
