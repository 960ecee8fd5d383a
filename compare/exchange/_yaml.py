"""Checking the exchange stage's data files (targets, scenarios) against their JSON Schemas.

The files are read with the project's one YAML 1.2 loader (:mod:`compare._yaml`). A data
file's value that passed its schema once is not checked again while the value, the schema
and the validator are the same (``remember``, :mod:`compare._proofs`): a command that plays
one cell then needs neither the validation nor the import of ``jsonschema``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from compare import _proofs
from compare._errors import CompareError
from compare._yaml import load_yaml

__all__ = ["check_schema", "check_schema_value", "load_yaml", "schema_proof"]


@cache
def _schema(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def check_schema(value: object, schema_path: Path, source: Path, *, remember: bool = False) -> None:
    """Validate ``value`` against a JSON Schema file; the error names the file and the key.
    ``remember``: a data file's value, checked once per value, schema and validator."""
    check_schema_value(value, _schema(schema_path), source, schema_path.name, remember=remember)


@cache
def _validator_identity() -> bytes:
    """This module and the validator's own modules, by content: another jsonschema that
    checks differently is another identity. (Its version would say less, and asking the
    package metadata for it costs more than reading the files.)"""
    spec = find_spec("jsonschema")
    library = sorted(Path(spec.origin).parent.glob("*.py")) if spec and spec.origin else []
    return _proofs.code_identity(Path(__file__), *library)


def schema_proof(value: object, schema: dict[str, Any]) -> str | None:
    """The key under which a pass of ``value`` against ``schema`` is recorded
    (:mod:`compare._proofs`, kind ``schema``): for a checker that reports issues itself
    instead of raising, as the rows lint does."""
    return _proof(value, schema)


def _proof(value: object, schema: dict[str, Any]) -> str | None:
    """The proof key of ``value`` under ``schema`` (None for a value JSON cannot hold
    exactly, which is then checked every time)."""
    try:
        text = json.dumps([value, schema], sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return _proofs.key("schema", [_validator_identity(), text.encode("utf-8", "surrogatepass")])


def check_schema_value(
    value: object,
    schema: dict[str, Any],
    source: Path,
    schema_name: str = "the JSON Schema",
    *,
    remember: bool = False,
) -> None:
    """Validate ``value`` against ``schema``; the error names the file and the key."""
    proof = _proof(value, schema) if remember else None
    if proof is not None and _proofs.holds("schema", proof):
        return
    import jsonschema

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
    if proof is not None:
        _proofs.record("schema", proof)
