"""The spec revisions, as the pins name them, for every test that needs a list of them.

Tests used to spell the revisions out ("2024-11-05", …, "draft") in a dozen places, so pinning a
new revision meant hand-editing test code. Everything here is read from
``schemas/revisions.toml`` through :func:`compare.pin.load_pins` (release order, ``draft``
last and marked unreleased) and from the committed generated models, so a new pin changes
these lists and nothing else.

Importable from any test module: pytest puts ``tests/`` on ``sys.path`` for ``tests/conftest.py``.
"""

from __future__ import annotations

from functools import cache

from compare.pin import load_pins


@cache
def _pinned() -> tuple[tuple[str, str], ...]:
    return tuple((r.name, r.status) for r in load_pins().revisions)


def revisions() -> list[str]:
    """Every pinned revision in release order (dated ones ascending, ``draft`` last)."""
    return [name for name, _ in _pinned()]


def released() -> list[str]:
    """The pinned revisions whose status is ``released``, in release order."""
    return [name for name, status in _pinned() if status == "released"]


def unreleased() -> list[str]:
    """The pinned revisions marked ``unreleased`` (the draft)."""
    return [name for name, status in _pinned() if status == "unreleased"]


@cache
def _has_initialize(revision: str) -> bool:
    # The committed generated module, so this works at collection time without the spec cache.
    from compare.models import module_path

    return "class InitializeRequest(" in module_path(revision).read_text(encoding="utf-8")


def initialize_era() -> list[str]:
    """Revisions whose schema still has ``initialize`` (the session handshake era)."""
    return [r for r in revisions() if _has_initialize(r)]


def after_initialize() -> list[str]:
    """Revisions without ``initialize`` (per-request metadata and ``InputRequiredResult``)."""
    return [r for r in revisions() if not _has_initialize(r)]


def latest_initialize_era() -> str:
    """The newest revision that still has ``initialize``."""
    return initialize_era()[-1]


def first_after_initialize() -> str:
    """The first revision without ``initialize``."""
    return after_initialize()[0]
