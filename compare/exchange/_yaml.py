"""Checking the exchange stage's data files (targets, scenarios) against their JSON Schemas.

The files are read with the project's one YAML 1.2 loader (:mod:`compare._yaml`).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema

from compare._errors import CompareError
from compare._yaml import load_yaml

__all__ = ["check_schema", "check_schema_value", "load_yaml"]


@cache
def _schema(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def check_schema(value: object, schema_path: Path, source: Path) -> None:
    """Validate ``value`` against a JSON Schema file; the error names the file and the key."""
    check_schema_value(value, _schema(schema_path), source, schema_path.name)


def check_schema_value(
    value: object, schema: dict[str, Any], source: Path, schema_name: str = "the JSON Schema"
) -> None:
    """Validate ``value`` against ``schema``; the error names the file and the key."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        first = errors[0]
        where = ".".join(str(p) for p in first.absolute_path) or "(top level)"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise CompareError(
            f"{source}: key {where}: {first.message}{more}",
            f"see {schema_name} for the format",
        )
