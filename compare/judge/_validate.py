"""The judge's door to the models stage (``compare.models``), kept in one place.

A check that cannot validate — the models are not generated, or the stage is missing — is
reported as not run with the reason, never as a pass.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

_WARMING: set[str] = set()
_WARMING_LOCK = threading.Lock()


class NotJudged(Exception):
    """Raised when a check cannot be evaluated; the message says why ("not run, because …")."""


def _models() -> Any:
    try:
        import compare.models as models

        models.validate_line  # noqa: B018 - probe the contract's names
        models.validate_as  # noqa: B018
    except (ImportError, AttributeError) as err:
        raise NotJudged(f"not run, because the models stage is unavailable ({err})") from None
    return models


def warm(revision: str) -> None:
    """Start importing ``revision``'s models on a background thread, once per process.

    A cell's client runs for a few hundred milliseconds on another core while this process
    only waits for it; building the revision's pydantic classes (about 0.1 s) in that wait
    takes it off the end of a single ``mcp-compare run``. The judge's own import waits for
    this one (``compare.models`` imports one module at a time), and any failure is left for
    that import to report: a warm-up says nothing.
    """
    with _WARMING_LOCK:
        if revision in _WARMING:
            return
        _WARMING.add(revision)

    def load() -> None:
        with contextlib.suppress(Exception):  # the judge's own import reports it
            _models().models_module(revision)

    threading.Thread(target=load, name=f"warm-models-{revision}", daemon=True).start()


def _summary(result: Any) -> tuple[bool, list[str]]:
    errors = [f"{getattr(e, 'loc', '')}: {getattr(e, 'msg', e)}" for e in result.errors]
    return bool(result.ok), errors


def validate_line(raw: str, revision: str) -> tuple[bool, list[str]]:
    """Validate one raw wire line at ``revision``: (ok, error strings)."""
    from compare._errors import CompareError

    try:
        return _summary(_models().validate_line(raw, revision))
    except CompareError as err:
        raise NotJudged(f"not run, because validation failed to start: {err.message}") from None


def validate_as(value: object, definition: str, revision: str) -> tuple[bool, list[str]]:
    """Validate a JSON value as a named definition at ``revision``: (ok, error strings)."""
    from compare._errors import CompareError

    try:
        return _summary(_models().validate_as(value, definition, revision))
    except CompareError as err:
        raise NotJudged(f"not run, because validation failed to start: {err.message}") from None
