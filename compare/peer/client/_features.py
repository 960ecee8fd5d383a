"""What the scripted client declares and answers: the plan's ``features``, in the host plan's shape.

The SDK hosts read ``features`` (``roots``, ``elicitation``, ``sampling``) from their host plan;
the scripted client reads the same shape, so a server scenario asks for a client feature the
way a client scenario does, with no code that names an area:

- ``roots``: ``folders`` are the roots at the start, in order: an absolute folder (its root
  is ``Path.as_uri()`` and the folder's base name) or a root object, listed as written (a bad
  root sent on purpose); ``named`` maps the names a ``set_roots`` step uses to such entries;
  ``list_changed`` (when present) is declared as ``listChanged``. A host plan's ``changes``
  (signal files) have no use here: the scripted client changes its roots at its own
  ``set_roots`` steps.
- ``elicitation``: ``form`` / ``url`` declare those modes (each an empty object when true);
  every ``elicitation/create`` is answered with ``answer``.
- ``sampling``: every ``sampling/createMessage`` is answered with ``answer``.

A feature that is absent is neither declared nor answered: its request gets -32601 (plain) or
is left out of the retry (embedded). ``answer`` serves both ways a request comes: as a
JSON-RPC request before 2026-07-28 and inside an ``InputRequiredResult`` from then on, so the
two eras answer from one place. The harness computes the plan's ``capabilities`` (what the
judge reads as declared) with :func:`declared` too, so declaring is written once.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: The methods a request can be answered for, and the feature each needs (None: none).
ANSWERS: dict[str, str | None] = {
    "roots/list": "roots",
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "ping": None,
}


def declared(features: dict[str, Any]) -> dict[str, Any]:
    """The client capabilities these features declare (the handshake's or ``_meta``'s)."""
    caps: dict[str, Any] = {}
    roots = features.get("roots")
    if isinstance(roots, dict):
        caps["roots"] = (
            {"listChanged": bool(roots["list_changed"])} if "list_changed" in roots else {}
        )
    elicitation = features.get("elicitation")
    if isinstance(elicitation, dict):
        caps["elicitation"] = {mode: {} for mode in ("form", "url") if elicitation.get(mode)}
    if isinstance(features.get("sampling"), dict):
        caps["sampling"] = {}
    return caps


def root_of(entry: Any) -> Any:
    """The root for one ``folders`` entry: a folder's URI and base name, or the object as is."""
    if isinstance(entry, str):
        from pathlib import Path  # only when a folder is named: start-up stays lean otherwise

        # name before uri: the order the judge's plan (written with sorted keys) always gave
        return {"name": os.path.basename(entry), "uri": Path(entry).as_uri()}
    return entry


def initial_roots(features: dict[str, Any]) -> list[Any]:
    roots = features.get("roots")
    return [root_of(e) for e in roots.get("folders", [])] if isinstance(roots, dict) else []


def named_roots(features: dict[str, Any], names: list[Any]) -> list[Any]:
    """The roots a ``set_roots`` step names: ``named`` entries, or root objects as written.
    Without the roots feature there are none (nothing answers roots/list then)."""
    roots = features.get("roots")
    if not isinstance(roots, dict):
        return []
    named = roots.get("named") or {}
    return [root_of(named[n]) if isinstance(n, str) else n for n in names]


def answer(features: dict[str, Any], roots: list[Any], method: Any) -> dict[str, Any] | None:
    """The result for a request of ``method``, or None when we do not answer it (the method
    is one we know no answer for, or its feature is not in the plan)."""
    if not isinstance(method, str) or method not in ANSWERS:
        return None
    feature = ANSWERS[method]
    if feature is None:
        return {}
    spec = features.get(feature)
    if not isinstance(spec, dict):
        return None
    if feature == "roots":
        return {"roots": list(roots)}
    given = spec.get("answer")
    return dict(given) if isinstance(given, dict) else None
