"""Load a revision's generated module by file path (they live outside the package) and
index its schema: which definition each ``method`` names, and which JSON-RPC envelope is
which — all read from the pinned schema, nothing typed by hand."""

from __future__ import annotations

import importlib.util
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from compare._errors import CompareError
from compare.models._files import existing_module, load_schema, module_name
from compare.models._schema import definitions, refs
from compare.pin._access import current_pins

if TYPE_CHECKING:
    # Only for the annotations: the schema index (what a scenario's checks read before a
    # cell starts) must not pay for importing pydantic; the models themselves do.
    from pydantic import BaseModel

#: One import at a time: ``lru_cache`` does not stop two threads (cells judged with --jobs 2)
#: from importing the same module at once, and the second ``sys.modules`` entry then hands
#: the first's classes a half-executed module ("`InitializeRequest` is not fully defined").
_IMPORTING = threading.Lock()


def _import(path: Path, state: tuple[int, int, int, int]) -> ModuleType:
    with _IMPORTING:
        return _import_once(path, state)


@lru_cache(maxsize=16)
def _import_once(path: Path, state: tuple[int, int, int, int]) -> ModuleType:
    name = f"_mcp_compare_models.{path.stem}_{abs(hash(state))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CompareError(f"cannot load generated models from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # pydantic resolves forward references through sys.modules
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        sys.modules.pop(name, None)
        raise CompareError(
            f"generated models {path} fail to import: {type(err).__name__}: {err}",
            hint="regenerate them with `mcp-compare models`",
        ) from None
    return module


def models_module(revision: str) -> ModuleType:
    """The generated module of ``revision`` (imported once per state of the file)."""
    current_pins().revision(revision)  # unknown revision → clear error
    path, stat = existing_module(revision)
    return _import(path, (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns))


def model_class(revision: str, definition: str) -> type[BaseModel]:
    """The generated class of schema definition ``definition`` in ``revision``."""
    from pydantic import BaseModel

    index = schema_index(revision)
    if definition not in index.definitions:
        close = [d for d in index.definitions if definition.lower() in d.lower()][:8]
        raise CompareError(
            f"revision {revision} has no schema definition {definition!r}",
            hint=f"similar: {', '.join(close)}" if close else "check the definition name",
        )
    found = getattr(models_module(revision), definition, None)
    if not (isinstance(found, type) and issubclass(found, BaseModel)):
        raise CompareError(
            f"{module_name(revision)} has no model for {definition!r}",
            hint="regenerate with `mcp-compare models`",
        )
    return found


@dataclass(frozen=True)
class SchemaIndex:
    """What the validator needs to know about one revision's schema."""

    revision: str
    definitions: frozenset[str]
    methods: dict[str, str]  # method → definition carrying it as a const
    envelopes: dict[str, str]  # request · notification · result · error → definition
    batches: bool  # JSONRPCMessage admits arrays (JSON-RPC batches, 2025-03-26 only)
    #: The JSON names of ``ClientCapabilities``' properties (what the generated model's
    #: fields are called on the wire), read without importing the models.
    client_capabilities: frozenset[str] = frozenset()
    #: The same for ``ServerCapabilities``.
    server_capabilities: frozenset[str] = frozenset()


def _method_map(defs: dict[str, Any]) -> dict[str, str]:
    """``method`` const → definition; when several carry one, prefer the one others refer to.

    (2026-07-28 has ``ClientNotification`` repeating ``notifications/cancelled`` inline; the
    definition that unions point at, ``CancelledNotification``, is the method's own type.)
    """
    referenced: set[str] = set()
    for body in defs.values():
        referenced |= refs(body)
    candidates: dict[str, list[str]] = {}
    for name, body in defs.items():
        method = body.get("properties", {}).get("method", {}) if isinstance(body, dict) else {}
        if isinstance(method, dict) and isinstance(method.get("const"), str):
            candidates.setdefault(method["const"], []).append(name)
    return {
        method: sorted(names, key=lambda n: (n not in referenced, n))[0]
        for method, names in sorted(candidates.items())
    }


def _leaves(defs: dict[str, Any], name: str, seen: frozenset[str] = frozenset()) -> list[str]:
    body = defs.get(name)
    if not isinstance(body, dict) or name in seen:
        return []
    members = body.get("anyOf") or body.get("oneOf")
    if isinstance(members, list):
        out: list[str] = []
        for member in members:
            for ref in sorted(refs(member)) if "$ref" in member else []:
                out += _leaves(defs, ref, seen | {name})
        return out
    return [name] if body.get("type") == "object" else []


def _envelopes(defs: dict[str, Any]) -> dict[str, str]:
    """Classify the members of ``JSONRPCMessage`` by the keys each one requires."""
    out: dict[str, str] = {}
    for leaf in _leaves(defs, "JSONRPCMessage"):
        required = set(defs[leaf].get("required", []))
        props = set(defs[leaf].get("properties", {}))
        if "method" in required:
            kind = "request" if "id" in required else "notification"
        elif "result" in required:
            kind = "result"
        elif "error" in required:
            kind = "error"
        else:
            continue
        if "jsonrpc" in props:
            out.setdefault(kind, leaf)
    return out


@lru_cache(maxsize=16)
def _index(revision: str, _schema_sha: str) -> SchemaIndex:
    rev = current_pins().revision(revision)
    _, defs = definitions(load_schema(rev))
    envelopes = _envelopes(defs)
    missing = {"request", "notification", "result", "error"} - set(envelopes)
    if missing:
        raise CompareError(
            f"{rev.schema}: cannot find the JSON-RPC envelope(s) {sorted(missing)} under "
            "JSONRPCMessage",
        )
    members = defs.get("JSONRPCMessage", {}).get("anyOf", [])
    batches = any(isinstance(m, dict) and m.get("type") == "array" for m in members)
    capabilities = defs.get("ClientCapabilities", {}).get("properties", {})
    offered = defs.get("ServerCapabilities", {}).get("properties", {})
    return SchemaIndex(
        revision,
        frozenset(defs),
        _method_map(defs),
        envelopes,
        batches,
        frozenset(capabilities),
        frozenset(offered),
    )


def schema_index(revision: str) -> SchemaIndex:
    """The index of ``revision``'s pinned schema (cached per pinned sha256)."""
    pins = current_pins()
    rev = pins.revision(revision)
    pinned = pins.file(rev.schema)
    return _index(revision, pinned.sha256 if pinned else "")
