"""A pinned revision's schema, for the rules that read facts from it (the error codes it
defines, the content blocks a tool result may hold, the ``_meta`` keys it names), loaded once
per revision and read the way the models stage reads it."""

from __future__ import annotations

from functools import cache
from typing import Any


@cache
def revision_schema(revision: str) -> dict[str, Any] | None:
    """The pinned schema of ``revision``, or None for a revision the pins do not hold."""
    from compare.models._files import load_schema
    from compare.pin import load_pins

    rev = next((r for r in load_pins().revisions if r.name == revision), None)
    return load_schema(rev) if rev is not None else None


def revision_definitions(revision: str) -> dict[str, Any]:
    """The definitions of ``revision``'s schema ({} for a revision the pins do not hold)."""
    from compare.models import definitions

    schema = revision_schema(revision)
    return definitions(schema)[1] if schema is not None else {}
