"""Everything done to an upstream schema before the generator sees it, in one place.

Two kinds of change, each with its reason:

* **Prose is stripped.** ``description`` (and ``$comment``/``examples``) carry the spec's
  own wording; the generated models are committed, and our code must not carry spec prose.
  Only schema *keywords* are removed — a property that happens to be named ``description``
  (``Tool.description``, ``BooleanSchema.description`` …) is kept.
* **Pre-patches** for schema defects. Each entry names the revisions it applies to, the
  JSON pointer it edits and why. A patch whose target is missing is an error, so a patch
  that an upstream fix made stale is noticed instead of silently doing nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from compare._errors import CompareError

#: Keywords holding prose rather than constraints.
PROSE_KEYWORDS = frozenset({"description", "$comment", "examples"})

#: Keywords whose value maps names to sub-schemas (their keys are names, not keywords).
_NAMED_SCHEMAS = frozenset({"properties", "patternProperties", "definitions", "$defs"})


def strip_prose(node: Any) -> Any:
    """A copy of a schema node without prose keywords, at any depth."""
    if isinstance(node, list):
        return [strip_prose(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in PROSE_KEYWORDS:
            continue
        if key in _NAMED_SCHEMAS and isinstance(value, dict):
            out[key] = {name: strip_prose(sub) for name, sub in value.items()}
        else:
            out[key] = strip_prose(value)
    return out


@dataclass(frozen=True)
class Patch:
    """One documented edit to an upstream schema."""

    revisions: tuple[str, ...]
    pointer: str
    reason: str
    apply: Callable[[dict[str, Any]], None]


#: The pre-patches. Keep each small, and say why it is needed. None is needed at the pinned
#: commit: every definition of every revision generates, imports and validates the messages
#: in tests/models as the schema says (checked when the pins were taken).
PATCHES: tuple[Patch, ...] = ()


def _resolve(schema: dict[str, Any], pointer: str) -> bool:
    node: Any = schema
    for part in pointer.lstrip("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def prepare(schema: dict[str, Any], revision: str) -> tuple[dict[str, Any], list[Patch]]:
    """The schema the generator is given: prose stripped, this revision's patches applied."""
    prepared: dict[str, Any] = strip_prose(copy.deepcopy(schema))
    applied: list[Patch] = []
    for patch in PATCHES:
        if revision not in patch.revisions:
            continue
        if not _resolve(prepared, patch.pointer):
            raise CompareError(
                f"pre-patch for {revision} at {patch.pointer} no longer applies: the target "
                "is gone from the schema",
                hint="review compare/models/_prepatch.py: drop or update the stale patch",
            )
        patch.apply(prepared)
        applied.append(patch)
    dangling = sorted(_dangling_refs(prepared, prepared))
    if dangling:
        # the generator would quietly turn these into untyped fields; refuse instead
        raise CompareError(
            f"schema of {revision} has unresolved $ref(s): {', '.join(dangling[:5])}",
            hint="a schema defect: add a documented pre-patch in compare/models/_prepatch.py",
        )
    return prepared, applied


def _dangling_refs(node: Any, root: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/") and not _resolve(root, ref[1:]):
            out.add(ref)
        for value in node.values():
            out |= _dangling_refs(value, root)
    elif isinstance(node, list):
        for value in node:
            out |= _dangling_refs(value, root)
    return out
