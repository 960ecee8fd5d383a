"""Checks already passed on exactly these inputs, so a command does not pass them again.

Every command that plays a cell loads its scenario, and loading one validated it against its
JSON Schema and looked up every quoted clause of its checks in the pinned spec pages: a
fifth of a second for one cell, more than any other part of the command outside the cell.
Both are pure functions of their inputs (the scenario's text, the schema, the common checks,
the sentences, the pins, and the code that checks), so a pass is recorded under the sha256
of all of them and a later command with the same inputs skips the check. Any changed input
is a new key; a failing check is never recorded, so it fails (and says why) every time.

A proof is a file ``<kind>-<key>.ok`` in ``proofs/`` beside the parsed-data cache
(:func:`compare._paths.yaml_cache_dir`) holding its own key: a file renamed from another
key, emptied or edited does not count. Writes are atomic (:mod:`compare._atomic`); a folder
that cannot be written costs the next command the check, nothing else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from compare import _atomic, _paths
from compare._errors import CompareError

#: Raise when what a proof means changes.
FORMAT = 1


def folder() -> Path:
    return _paths.yaml_cache_dir() / "proofs"


def sources_digest(label: str, sources: Iterable[Path]) -> bytes:
    """The sha256 of ``label`` and the files ``sources`` (an unreadable one by its name):
    the identity of the code a stored result came from."""
    digest = hashlib.sha256(f"{label}\0".encode())
    for source in sources:
        try:
            digest.update(source.read_bytes())
        except OSError:
            digest.update(f"unreadable {source}".encode())
        digest.update(b"\0")
    return digest.digest()


@cache
def code_identity(*sources: Path) -> bytes:
    """The sha256 of the checking code (memoised per process: it does not change while a
    command runs)."""
    return sources_digest(f"mcp-compare proof {FORMAT}", sources)


def key(kind: str, parts: Iterable[bytes]) -> str:
    """The proof's key: the kind and every input, each length-prefixed (so that moving bytes
    from one input to the next is a different key)."""
    digest = hashlib.sha256(kind.encode() + b"\0")
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _path(kind: str, proof: str) -> Path:
    return folder() / f"{kind}-{proof}.ok"


def holds(kind: str, proof: str) -> bool:
    """Whether the check ``kind`` passed before on the inputs of ``proof``."""
    try:
        return _path(kind, proof).read_text(encoding="ascii") == proof
    except (OSError, UnicodeDecodeError):
        return False


def record(kind: str, proof: str) -> None:
    """Record that the check ``kind`` passed on the inputs of ``proof`` (best effort)."""
    try:
        _atomic.write_text(_path(kind, proof), proof)
    except CompareError:
        return  # a folder that cannot be written: the next command checks again
