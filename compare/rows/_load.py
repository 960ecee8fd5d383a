"""Reading area files: YAML 1.2 (safe), then the published JSON Schema.

YAML 1.2 matters here: a 1.1 loader turns an unquoted ``no`` or ``on`` into a boolean, and
area files are full of short words. Schema problems come back as lint issues (with a fix
tip) rather than exceptions, so one run reports every problem in a file at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from compare import _paths, _proofs
from compare._errors import CompareError
from compare.exchange._yaml import schema_proof

HERE = Path(__file__).resolve().parent
#: The checkout's areas; ``MCP_COMPARE_AREAS`` (``compare._paths.areas_dir``) moves them.
AREAS_DIR = HERE / "areas"
SCHEMA_PATH = HERE / "area.schema.json"


@dataclass(frozen=True)
class Issue:
    """One lint finding: where, what is wrong, and how to fix it."""

    file: str
    where: str
    message: str
    tip: str
    #: "error" fails the command; "warning" is shown and recorded (``--strict`` fails on it).
    severity: str = "error"

    def as_dict(self) -> dict[str, str]:
        return {
            "file": self.file,
            "where": self.where,
            "message": self.message,
            "tip": self.tip,
            "severity": self.severity,
        }


def area_files(directory: Path | None = None) -> list[Path]:
    """Every ``<area>.yaml`` in the areas folder (``MCP_COMPARE_AREAS``), in name order."""
    folder = directory or _paths.areas_dir()
    files = sorted(folder.glob("*.yaml"))
    if not files:
        raise CompareError(f"no area files in {folder}", "add <area>.yaml (see area.schema.json)")
    return files


@cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return schema


@cache
def _validator() -> Draft202012Validator:
    Draft202012Validator.check_schema(_schema())
    return Draft202012Validator(_schema())


def _tip(error: ValidationError) -> str:
    kind = error.validator
    if kind == "enum":
        allowed: Any = error.validator_value
        return "use one of: " + ", ".join(str(v) for v in allowed)
    if kind == "required":
        return "add the missing field (every row carries all detail fields; see area.schema.json)"
    if kind == "additionalProperties":
        return "remove or rename the unknown field (allowed fields are in area.schema.json)"
    if kind == "pattern":
        return f"the value must match {error.validator_value}"
    if kind in {"minLength", "minItems"}:
        return "fill it in: empty values are not allowed"
    if kind == "type":
        return (
            f"give a value of type {error.validator_value} (quote it if YAML guessed another type)"
        )
    return "see compare/rows/area.schema.json for the expected shape"


def schema_issues(data: Any, file: str) -> list[Issue]:
    """Every way ``data`` breaks the published schema, as lint issues with tips. An area
    that passed before with the same value, schema and validator passes without being
    checked again (``compare._proofs``): the check was a tenth of a warm ``rows``."""
    proof = schema_proof(data, _schema())
    if proof is not None and _proofs.holds("schema", proof):
        return []
    issues = []
    for error in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.path))):
        where = "/".join(str(part) for part in error.path) or "(top)"
        issues.append(Issue(file, where, error.message, _tip(error)))
    if not issues and proof is not None:
        _proofs.record("schema", proof)
    return issues


def query_checks(query: dict[str, Any]) -> list[str]:
    """The check ids a status query names: one string, or a list when a row rests on several."""
    check = query.get("check")
    if isinstance(check, str):
        return [check]
    if isinstance(check, list):
        return [str(one) for one in check]
    return []


def area_diff(diff: dict[str, Any] | None, area: object) -> dict[str, Any] | None:
    """The part of ``build/diff.json`` an area's rows refer to, in the top-level shape.

    The diff holds one section per area under ``areas`` (the first one also at the top level);
    a row's items are looked up in its own area's section, so two areas may both have a
    ``ClientCapabilities`` field without seeing each other's. An area the diff has no section
    for (its file has no ``schema`` key) gets no items, and its rows say so. A diff written
    before there were sections is used whole.
    """
    if diff is None:
        return None
    sections = diff.get("areas")
    if not isinstance(sections, dict):
        return diff
    name = area.get("area") if isinstance(area, dict) else None
    section = sections.get(name) if isinstance(name, str) else None
    if not isinstance(section, dict):
        return {**diff, "area": name, "items": {}, "changes": [], "deprecation": {}}
    return {**diff, **section}
