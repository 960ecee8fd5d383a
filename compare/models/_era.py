"""Where the handshake era ends, read from the pinned revisions' generated models.

Revisions up to some point open a session with ``initialize``; later ones carry protocol
metadata on every request instead. Which revision is the first of the new era is not typed
anywhere: it is the first pinned revision (in release order) whose generated models define no
``InitializeRequest``. The harness writes it into each cell's plan for the peer, and the judge
asks this same function, so pinning a revision that moves the boundary needs no code edit.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from compare.models._files import existing_module
from compare.pin._pins import release_order

#: How a generated module spells the handshake request's class (datamodel-code-generator).
_MARK = "class InitializeRequest("


@lru_cache(maxsize=64)
def _defines_initialize(path: Path, stamp: tuple[int, int]) -> bool:
    return _MARK in path.read_text(encoding="utf-8")


def has_initialize(revision: str) -> bool:
    """Whether the committed generated models of ``revision`` define ``InitializeRequest``.

    Read from the generated module's text (not imported), so it is cheap and works without the
    spec cache; a missing module is a clear error naming the command that makes it.
    """
    path, stat = existing_module(revision)
    return _defines_initialize(path, (stat.st_mtime_ns, stat.st_size))


def first_modern(revisions: Iterable[str] | None = None) -> str | None:
    """The first of ``revisions`` (default: every pinned one) without ``initialize``, in
    release order; None when every one still has the handshake."""
    if revisions is None:
        from compare.pin import load_pins

        revisions = load_pins().revision_names
    return next((r for r in sorted(revisions, key=release_order) if not has_initialize(r)), None)
