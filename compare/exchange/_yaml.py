"""Loading the exchange stage's data files (targets, scenarios) with one strict loader.

ruamel.yaml's pure safe loader speaks YAML 1.2, so ``no``/``on`` stay strings; duplicate keys
and syntax errors become a :class:`CompareError` naming the file, never a traceback.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from compare._errors import CompareError


def load_yaml(path: Path) -> Any:
    """Parse one YAML file into plain Python values."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CompareError(
            f"cannot read {path}: {err}", "check the file exists and is UTF-8"
        ) from None
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as err:
        raise CompareError(
            f"{path}: not valid YAML: {str(err).splitlines()[0]}",
            "fix the syntax (YAML 1.2; duplicate keys are rejected)",
        ) from None


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
