"""Which schema definitions and fields belong to an area — found, not listed.

The input is the area file's ``schema`` key: a feature name (``roots``) and, optionally,
definitions to add by name (``extra_items``, role ``listed``: a result that has neither a
method nor a property named after the feature, e.g. sampling's ``CreateMessageResult``).
From the feature name:

* **core** definitions carry a method whose path has a segment of that name
  (``roots/list``, ``notifications/roots/list_changed``) or *require* a property of that
  name (the roots list result);
* **partial** definitions merely *offer* an optional property of that name
  (``ClientCapabilities``): only that property's subtree belongs to the area;
* **owned** definitions are referenced by the area and by nothing else (``Root``);
* **embedders** reach a core definition through references (2026-07-28's
  ``InputRequest`` → ``InputRequests`` → ``InputRequiredResult``, and the request params
  that carry ``inputResponses``). The walk up stops at JSON-RPC messages (a ``method``
  const or a ``jsonrpc`` property) and at top-level unions nothing refers to
  (``ServerResult``, ``ClientRequest``), which would otherwise pull in the whole protocol.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from compare.models import definitions, refs


def _method(body: dict[str, Any]) -> str | None:
    method = body.get("properties", {}).get("method", {})
    const = method.get("const") if isinstance(method, dict) else None
    return const if isinstance(const, str) else None


def _is_message(body: dict[str, Any]) -> bool:
    return _method(body) is not None or "jsonrpc" in body.get("properties", {})


def _is_union(body: dict[str, Any]) -> bool:
    return ("anyOf" in body or "oneOf" in body) and "properties" not in body


@dataclass(frozen=True)
class Selection:
    """The area's definitions: ``full`` ones list every field, ``partial`` ones one subtree.

    ``roles`` says why each is in: core, listed, owned, embedder, partial or referenced (a
    definition a field of the area points at, listed one level deep so its own changes show
    too).
    """

    full: frozenset[str]
    partial: dict[str, str]  # definition → the property that makes it relevant
    roles: dict[str, str]


def _field_refs(node: Any) -> set[str]:
    """References made by properties (not by union alternatives) under ``node``."""
    out: set[str] = set()
    if isinstance(node, dict):
        for sub in (node.get("properties") or {}).values():
            out |= refs(sub)
        items = node.get("items")
        if isinstance(items, dict):
            out |= _field_refs(items)
    return out


def select(schema: dict[str, Any], feature: str | None, extra: Iterable[str] = ()) -> Selection:
    """The area of one revision's schema that ``feature`` and the ``extra`` names select."""
    _, defs = definitions(schema)
    referrers: dict[str, set[str]] = {}
    for name, body in defs.items():
        for target in refs(body):
            referrers.setdefault(target, set()).add(name)

    core: set[str] = set()
    partial: dict[str, str] = {}
    for name, body in defs.items():
        if not isinstance(body, dict):
            continue
        method = _method(body)
        props = body.get("properties", {})
        if feature is None:
            continue
        carries_method = bool(method and feature in method.split("/"))
        requires_it = feature in props and feature in body.get("required", [])
        if carries_method or requires_it:
            core.add(name)
        elif feature in props:
            partial[name] = feature

    roles = {name: "core" for name in core} | {name: "partial" for name in partial}
    for name in extra:  # listed by the area file; walked from like core ones
        if isinstance(defs.get(name), dict) and name not in core:
            core.add(name)
            partial.pop(name, None)
            roles[name] = "listed"
    full = set(core)
    changed = True
    while changed:  # owned: referenced only from within the area
        changed = False
        for name in sorted(set().union(*(refs(defs[n]) for n in full)) - full):
            users = referrers.get(name, set())
            if name in defs and users and users <= full:
                full.add(name)
                roles[name] = "owned"
                changed = True

    frontier = sorted(core)
    while frontier:  # embedders: walk up the references
        nxt: list[str] = []
        for name in frontier:
            for user in sorted(referrers.get(name, set())):
                body = defs.get(user, {})
                if user in full or _is_message(body):
                    continue
                if _is_union(body) and not referrers.get(user):
                    continue
                full.add(user)
                roles[user] = "embedder"
                nxt.append(user)
        frontier = nxt
    for name in full:
        partial.pop(name, None)
    pointed: set[str] = set()
    for name in full:
        pointed |= _field_refs(defs[name])
    for name, prop in partial.items():
        pointed |= refs((defs[name].get("properties") or {}).get(prop))
    for name in sorted(pointed - full - set(partial)):
        if name in defs:
            full.add(name)
            roles[name] = "referenced"
    return Selection(frozenset(full), partial, roles)
