"""Walking a pinned JSON Schema: where its definitions sit and what a node refers to.

The models stage indexes a schema with these and the diff stage selects an area's
definitions with them; one copy keeps the two reading ``$ref`` and ``$defs`` alike.
"""

from __future__ import annotations

from typing import Any


def definitions(schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The definitions container's key (draft-07 ``definitions`` / 2020-12 ``$defs``) and body."""
    for key in ("$defs", "definitions"):
        found = schema.get(key)
        if isinstance(found, dict):
            return key, found
    return "$defs", {}


def refs(node: Any) -> set[str]:
    """Names of the definitions ``node`` refers to, at any depth."""
    out: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            out.add(ref.rsplit("/", 1)[-1])
        for value in node.values():
            out |= refs(value)
    elif isinstance(node, list):
        for value in node:
            out |= refs(value)
    return out
