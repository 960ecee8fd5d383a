"""Parsed data files kept on disk by the sha256 of their text, so each text is parsed once.

A command reads every target and scenario file (a run checks them all before it plays a
cell), and the pure-Python YAML 1.2 loader took longer over them than the cell itself. What
the loader makes of a text depends only on that text and on the loader, so the result is
stored as ``<key>.json`` in :func:`compare._paths.yaml_cache_dir`, the key being the sha256
of the text and of the loader's identity (the source of :mod:`compare._yaml`, of this module
and of ruamel.yaml's ``__init__``, which names its version): an edited file, an edited
loader or another ruamel.yaml is a new key, and the old entry is simply never asked for
again.

An entry is read as data, never trusted:

* it is JSON (read with the standard library's parser, which runs no code), a first line
  ``{"format", "key", "sha256"}`` and then the payload the checksum covers;
* it must name the key it is stored under and match its checksum, and the payload must be
  a plain tree (mappings with string keys, lists, strings, numbers, booleans, null) whose
  shared nodes point at places that exist;
* anything else — garbage, a truncated or edited entry, one copied from another key — is
  ignored and rebuilt from the text.

Only values that JSON holds exactly are stored: a tree with a date, bytes, a set or a key
that is not a string is parsed every time. A node reached through several aliases
(``&name`` / ``*name``) is stored once with the places that share it, so the value read back
shares it too. Writes go to a temporary file renamed over the entry; a cache that cannot be
written (a read-only folder, a full disk) costs the next command a parse, nothing else.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from compare import _paths, _proofs

#: The layout of an entry; raise it when the layout changes.
FORMAT = 1
_MAX_ENTRY_BYTES = 64 * 2**20

#: Where an alias (a second reference to a node) sits: (path of the place, path of the node).
Link = tuple[list[str | int], list[str | int]]


def folder() -> Path:
    """Where the entries are: ``<cache>/yaml`` unless ``MCP_COMPARE_YAML_CACHE`` moves it."""
    return _paths.yaml_cache_dir()


@cache
def _loader_identity() -> bytes:
    here = Path(__file__).resolve().parent
    sources = [here / "_yaml.py", here / "_yaml_cache.py"]
    spec = find_spec("ruamel.yaml")
    if spec is not None and spec.origin:
        sources.append(Path(spec.origin))
    return _proofs.sources_digest(f"mcp-compare yaml cache {FORMAT}", sources)


def key(text: str) -> str:
    """The entry key of ``text`` as the current loader parses it."""
    return hashlib.sha256(_loader_identity() + text.encode("utf-8", "surrogatepass")).hexdigest()


class _Unstorable(Exception):
    """The value holds something JSON cannot carry exactly."""


def _encode(value: Any) -> tuple[Any, list[Link]]:
    """A JSON-ready copy of ``value`` (a second reference to a node left as null) and the
    links that restore the sharing."""
    first: dict[int, list[str | int]] = {}
    links: list[Link] = []

    def walk(node: Any, path: list[str | int]) -> Any:
        kind = type(node)
        if kind is str or kind is bool or node is None:
            return node
        if kind is int:
            return node
        if kind is float:
            if not math.isfinite(node):
                raise _Unstorable("a float JSON cannot carry")
            return node
        if kind is not dict and kind is not list:
            raise _Unstorable(kind.__name__)
        seen = first.get(id(node))
        if seen is not None:
            links.append((path, seen))
            return None
        first[id(node)] = path
        if kind is list:
            return [walk(item, [*path, index]) for index, item in enumerate(node)]
        out: dict[str, Any] = {}
        for name, item in node.items():
            if type(name) is not str:
                raise _Unstorable("a mapping key that is not a string")
            out[name] = walk(item, [*path, name])
        return out

    return walk(value, []), links


def _plain(node: Any) -> bool:
    """Whether ``node`` (read back from JSON) is a plain tree of the kinds ``_encode`` writes."""
    kind = type(node)
    if kind is dict:
        return all(_plain(item) for item in node.values())
    if kind is list:
        return all(_plain(item) for item in node)
    if kind is float:
        return math.isfinite(node)
    return kind is str or kind is int or kind is bool or node is None


def _at(root: Any, path: list[Any]) -> tuple[Any, Any]:
    """The container holding the place ``path`` and the place's key or index in it."""
    if not isinstance(path, list) or not path:
        raise ValueError("a link names no place")
    node = root
    for step in path[:-1]:
        node = _child(node, step)
    last = path[-1]
    _child(node, last)  # the place must exist
    return node, last


def _child(node: Any, step: Any) -> Any:
    if type(node) is dict and type(step) is str and step in node:
        return node[step]
    if type(node) is list and type(step) is int and 0 <= step < len(node):
        return node[step]
    raise ValueError("a link names a place the value does not have")


def _decode(payload: Any) -> Any:
    if not (isinstance(payload, list) and len(payload) == 2 and isinstance(payload[1], list)):
        raise ValueError("not [value, links]")
    value, links = payload
    if not _plain(value):
        raise ValueError("not a plain tree")
    # Every place and node is found in the tree as stored, before any link is made, so no
    # path runs through a shared node. (A node that would contain itself once linked is
    # refused by the loader's own check, which every value passes, stored or parsed.)
    joins = []
    for link in links:
        if not (isinstance(link, list) and len(link) == 2):
            raise ValueError("a link is not [place, node]")
        parent, place = _at(value, link[0])
        holder, name = _at(value, link[1])
        target = holder[name]
        if parent[place] is not None or type(target) not in (dict, list):
            raise ValueError("a link does not join a null place to a node")
        joins.append((parent, place, target))
    for parent, place, target in joins:
        parent[place] = target
    return value


def load(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when a sound entry for ``text`` is stored, else ``(False, None)``."""
    name = key(text)
    try:
        with open(folder() / f"{name}.json", "rb") as stream:
            data = stream.read(_MAX_ENTRY_BYTES + 1)
    except OSError:
        return False, None
    try:
        head, _, body = data.partition(b"\n")
        header = json.loads(head)
        if not (
            isinstance(header, dict)
            and header.get("format") == FORMAT
            and header.get("key") == name
            and header.get("sha256") == hashlib.sha256(body).hexdigest()
        ):
            return False, None
        return True, _decode(json.loads(body))
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError included
        return False, None


def store(text: str, value: Any) -> bool:
    """Keep ``value`` as what ``text`` parses to; False when it is not stored (a value JSON
    does not carry exactly, or a cache folder that cannot be written)."""
    try:
        encoded, links = _encode(value)
    except (_Unstorable, RecursionError):
        return False
    name = key(text)
    # ASCII escapes: a lone surrogate (``"\ud800"`` in a file) is kept exactly, as UTF-8 cannot.
    body = json.dumps([encoded, links], separators=(",", ":")).encode()
    header = {"format": FORMAT, "key": name, "sha256": hashlib.sha256(body).hexdigest()}
    data = json.dumps(header).encode() + b"\n" + body
    if len(data) > _MAX_ENTRY_BYTES:
        return False
    where = folder()
    try:
        where.mkdir(parents=True, exist_ok=True)
        # No fsync: an entry torn by a crash fails its checksum and is rebuilt.
        handle, temporary = tempfile.mkstemp(prefix=f".{name}.", dir=where)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.replace(temporary, where / f"{name}.json")
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True
