"""Describe definitions and their fields, one revision at a time, as plain records.

A record says whether the thing exists and, if so, what the schema says of it: whether it is
required, its JSON type, the definition it refers to, the type or reference of its array
items, a ``const`` and a ``format`` — plus the line of schema.json that declares it, so every
cell of the diff can be cited.
"""

from __future__ import annotations

import json
from typing import Any

Record = dict[str, Any]

#: The attributes compared between revisions, in the order changes are reported.
COMPARED = ("required", "type", "ref", "items", "const", "format")


def _ref_name(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _type(node: dict[str, Any], defs: dict[str, Any]) -> str | None:
    kind = node.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if isinstance(kind, str):
        return kind
    if "anyOf" in node or "oneOf" in node:
        return "union"
    if "const" in node:
        return type(node["const"]).__name__.replace("str", "string")
    target = _ref_name(node)
    if target and isinstance(defs.get(target), dict):
        return _type(defs[target], {})  # one step: the referenced definition's own type
    return None


def describe(node: dict[str, Any], defs: dict[str, Any]) -> Record:
    """What the schema says about one definition or property node."""
    items = node.get("items")
    item_desc: str | None = None
    if isinstance(items, dict):
        item_desc = _ref_name(items) or _type(items, defs)
    const = node.get("const")
    return {
        "type": _type(node, defs),
        "ref": _ref_name(node),
        "items": item_desc,
        "const": json.dumps(const) if const is not None else None,
        "format": node.get("format") if isinstance(node.get("format"), str) else None,
    }


def fields(
    definition: str,
    body: dict[str, Any],
    defs: dict[str, Any],
    base: tuple[str, ...],
    only: str | None = None,
) -> dict[str, tuple[tuple[str, ...], Record]]:
    """Every field below a definition: item name → (key path in the schema, record).

    Inline objects are descended into (``ListRootsRequest.params._meta``), so are inline
    array items (``X.list[]``); references are recorded, not expanded — the referenced
    definition is an item of its own when it belongs to the area.
    """
    out: dict[str, tuple[tuple[str, ...], Record]] = {}

    def walk(node: dict[str, Any], name: str, path: tuple[str, ...]) -> None:
        props = node.get("properties")
        if isinstance(props, dict):
            required = node.get("required", [])
            for key, sub in props.items():
                if only is not None and name == definition and key != only:
                    continue
                if not isinstance(sub, dict):
                    continue
                item = f"{name}.{key}"
                sub_path = (*path, "properties", key)
                out[item] = (sub_path, {"required": key in required, **describe(sub, defs)})
                walk(sub, item, sub_path)
        items = node.get("items")
        if isinstance(items, dict) and isinstance(items.get("properties"), dict):
            walk(items, f"{name}[]", (*path, "items"))

    walk(body, definition, base)
    return out
