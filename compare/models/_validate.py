"""Validate raw JSON-RPC lines and JSON values against a revision's generated models.

The raw text is evidence: it is parsed once and validated as JSON (``model_validate_json``)
in strict mode — JSON types are not coerced (``"true"`` is not a boolean) and URLs must obey
URL syntax — and it is handed back untouched in :attr:`Validation.raw`. A model's URL fields
are *normalised* by pydantic (``FILE:///a/../b`` becomes ``file:///b``), so judge encodings on
``raw``, never on the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from compare.models._load import model_class, schema_index

Kind = Literal["request", "notification", "result", "error", "invalid-json", "invalid-envelope"]


@dataclass(frozen=True)
class Issue:
    """One validation problem: where (dotted path), what, and pydantic's error type."""

    loc: str
    msg: str
    type: str


@dataclass
class Validation:
    """The outcome of validating one line or value."""

    ok: bool
    kind: Kind
    model: BaseModel | None = None
    errors: list[Issue] = field(default_factory=list)
    raw: str | None = None
    method: str | None = None
    definition: str | None = None


def _issues(err: ValidationError, prefix: str = "") -> list[Issue]:
    out = []
    for item in err.errors(include_url=False):
        loc = ".".join(str(part) for part in item["loc"])
        if prefix:
            loc = f"{prefix}.{loc}" if loc else prefix
        out.append(Issue(loc, item["msg"], item["type"]))
    return out


def _validate_json(cls: type[BaseModel], raw: str) -> tuple[BaseModel | None, list[Issue]]:
    try:
        return cls.model_validate_json(raw, strict=True), []
    except ValidationError as err:
        return None, _issues(err)


def _envelope_kind(value: dict[str, Any]) -> Kind | None:
    if "method" in value:
        return "request" if "id" in value else "notification"
    if "result" in value:
        return "result"
    if "error" in value:
        return "error"
    return None


def validate_line(raw: str, revision: str) -> Validation:
    """Validate one raw JSON-RPC line (no trailing newline needed) as ``revision`` says.

    Steps: parse JSON; tell the envelope by its keys (``method`` with/without ``id``,
    ``result``, ``error``); validate the envelope definition; then, for a method the revision
    defines, the method's own definition, whose model is returned. ``kind`` is
    ``invalid-envelope`` when the line is JSON but not a valid JSON-RPC message of the
    revision.
    """
    index = schema_index(revision)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as err:
        return Validation(
            False, "invalid-json", errors=[Issue("", str(err), "json_invalid")], raw=raw
        )
    except RecursionError:
        issue = Issue("", "nested deeper than the JSON parser's recursion limit", "json_too_deep")
        return Validation(False, "invalid-json", errors=[issue], raw=raw)
    if not isinstance(value, dict):
        what = "array (batch)" if isinstance(value, list) else type(value).__name__
        issue = Issue("", f"a JSON-RPC message is a JSON object, got {what}", "envelope_type")
        return Validation(False, "invalid-envelope", errors=[issue], raw=raw)
    method = value.get("method") if isinstance(value.get("method"), str) else None
    kind = _envelope_kind(value)
    if kind is None:
        issue = Issue("", "none of method, result or error is present", "envelope_shape")
        return Validation(False, "invalid-envelope", errors=[issue], raw=raw)
    envelope = index.envelopes[kind]
    model, errors = _validate_json(model_class(revision, envelope), raw)
    if errors:
        return Validation(False, "invalid-envelope", None, errors, raw, method, envelope)
    definition = index.methods.get(method) if method else None
    if definition is None:
        return Validation(True, kind, model, [], raw, method, envelope)
    typed, errors = _validate_json(model_class(revision, definition), raw)
    return Validation(not errors, kind, typed, errors, raw, method, definition)


def validate_as(value: object, definition: str, revision: str) -> Validation:
    """Validate a JSON value (e.g. a response's ``result``) as schema ``definition``.

    The value is encoded to JSON and validated as JSON, so the same strict rules apply as to
    a whole line. ``kind`` is ``request``/``notification`` for a definition that carries a
    method, else ``result``.
    """
    index = schema_index(revision)
    cls = model_class(revision, definition)
    method = next((m for m, n in index.methods.items() if n == definition), None)
    kind: Kind = "result"
    if method is not None:
        kind = "notification" if method.startswith("notifications/") else "request"
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        issue = Issue("", f"not a JSON value: {err}", "json_invalid")
        return Validation(False, "invalid-json", errors=[issue], definition=definition)
    model, errors = _validate_json(cls, text)
    return Validation(not errors, kind, model, errors, None, method, definition)
