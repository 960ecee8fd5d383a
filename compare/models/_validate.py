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
        issues = _issues(err)
    if any(i.type == "int_type" for i in issues):
        # JSON Schema counts a number with a zero fraction (3.0) as an integer, which strict
        # pydantic does not: the schema is the judge, so such numbers are read as integers
        # and the text validated again. Every other strict rule still holds.
        integral = _integral_text(raw)
        if integral is not None and integral != raw:
            try:
                return cls.model_validate_json(integral, strict=True), []
            except ValidationError as err:
                return None, _issues(err)
    return None, issues


def _as_number(text: str) -> float | int:
    value = float(text)
    return int(value) if value.is_integer() else value


def _integral_text(raw: str) -> str | None:
    """``raw`` with every integral JSON number (3.0, 1e2) written as an integer; None when it is
    not JSON (the strict parse already reported that)."""
    try:
        return json.dumps(
            json.loads(raw, parse_float=_as_number), ensure_ascii=False, allow_nan=False
        )
    except ValueError:  # not JSON, or a number beyond a float's range
        return None


def _envelope_kind(value: dict[str, Any]) -> Kind | None:
    if "method" in value:
        return "request" if "id" in value else "notification"
    if "result" in value:
        return "result"
    if "error" in value:
        return "error"
    return None


def _validate_object(value: dict[str, Any], text: str, revision: str) -> Validation:
    index = schema_index(revision)
    method = value.get("method") if isinstance(value.get("method"), str) else None
    kind = _envelope_kind(value)
    if kind is None:
        issue = Issue("", "none of method, result or error is present", "envelope_shape")
        return Validation(False, "invalid-envelope", errors=[issue], raw=text)
    envelope = index.envelopes[kind]
    model, errors = _validate_json(model_class(revision, envelope), text)
    if errors:
        return Validation(False, "invalid-envelope", None, errors, text, method, envelope)
    definition = index.methods.get(method) if method else None
    if definition is None:
        return Validation(True, kind, model, [], text, method, envelope)
    typed, errors = _validate_json(model_class(revision, definition), text)
    return Validation(not errors, kind, typed, errors, text, method, definition)


def _validate_batch(items: list[Any], raw: str, revision: str) -> Validation:
    """A JSON-RPC batch (2025-03-26): every element validated as a line of its own.

    Elements are re-encoded for validation only; ``raw`` stays the evidence. ``kind`` and
    ``method`` are the first element's; ``model`` is ``None``.
    """
    if not items:
        issue = Issue("", "an empty batch is not a JSON-RPC message", "envelope_type")
        return Validation(False, "invalid-envelope", errors=[issue], raw=raw)
    results: list[Validation] = []
    for item in items:
        if isinstance(item, dict):
            text = json.dumps(item, ensure_ascii=False)
            results.append(_validate_object(item, text, revision))
        else:
            issue = Issue("", "a batch element is a JSON object", "envelope_type")
            results.append(Validation(False, "invalid-envelope", errors=[issue]))
    errors = [
        Issue(f"{i}.{e.loc}" if e.loc else str(i), e.msg, e.type)
        for i, result in enumerate(results)
        for e in result.errors
    ]
    first = results[0]
    return Validation(not errors, first.kind, None, errors, raw, first.method, first.definition)


def validate_line(raw: str, revision: str) -> Validation:
    """Validate one raw JSON-RPC line (no trailing newline needed) as ``revision`` says.

    Steps: parse JSON; tell the envelope by its keys (``method`` with/without ``id``,
    ``result``, ``error``); validate the envelope definition; then, for a method the revision
    defines, the method's own definition, whose model is returned. ``kind`` is
    ``invalid-envelope`` when the line is JSON but not a valid JSON-RPC message of the
    revision. A batch (a JSON array) is valid only where the revision's schema admits one.
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
    if isinstance(value, list) and index.batches:
        return _validate_batch(value, raw, revision)
    if not isinstance(value, dict):
        what = "array (batch)" if isinstance(value, list) else type(value).__name__
        issue = Issue("", f"a JSON-RPC message is a JSON object, got {what}", "envelope_type")
        return Validation(False, "invalid-envelope", errors=[issue], raw=raw)
    result = _validate_object(value, raw, revision)
    return result


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
