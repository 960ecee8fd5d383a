"""Where the generated models live, and the pinned schema they are made from.

Its own module so that reading the models (validation, the era boundary) never imports the
generator, which only ``mcp-compare models`` runs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from compare import _paths
from compare._errors import CompareError
from compare.pin import pinned_text
from compare.pin._pins import Revision


def models_dir() -> Path:
    """``schemas/models/``: the committed generated modules."""
    return _paths.schemas_dir() / "models"


def module_name(revision: str) -> str:
    """``2025-06-18`` → ``rev_2025_06_18``; ``draft`` → ``rev_draft``."""
    return "rev_" + revision.replace("-", "_")


def module_path(revision: str, folder: Path | None = None) -> Path:
    """Where the generated module of ``revision`` lives."""
    return (folder or models_dir()) / f"{module_name(revision)}.py"


def existing_module(revision: str) -> tuple[Path, os.stat_result]:
    """The committed generated module of ``revision`` and its stat (readers cache by it); a
    missing module is a clear error naming the command that makes it."""
    path = module_path(revision)
    try:
        return path, path.stat()
    except FileNotFoundError:
        raise CompareError(
            f"no generated models for {revision}: {path} is missing",
            hint="run `mcp-compare models`",
        ) from None


def load_schema(revision: Revision) -> dict[str, Any]:
    """The pinned, verified schema of a revision, parsed."""
    try:
        data = json.loads(pinned_text(revision.schema))
    except json.JSONDecodeError as err:
        raise CompareError(f"{revision.schema} is not valid JSON: {err}") from None
    if not isinstance(data, dict):
        raise CompareError(f"{revision.schema} is not a JSON object")
    return data
