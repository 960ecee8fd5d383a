"""Results read once per pipeline run instead of once per stage.

``rows``, ``cite --check``, ``render`` and ``export`` each read every cell's verdict (and the
last two every site input): seconds each, paid three or four times by one ``mcp-compare
compare``. Nothing those stages do changes the results folder, so the pipeline opens a
:func:`shared` scope around them and the readers that ask :func:`remember` get the first
stage's reading. Outside a scope (a stage run as its own command, a test) every call reads
afresh, as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Hashable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_scope: dict[Hashable, Any] | None = None


@contextlib.contextmanager
def shared() -> Iterator[None]:
    """Within this block, :func:`remember` keeps what it read; after it, all is forgotten."""
    global _scope
    outer = _scope
    _scope = {} if outer is None else outer
    try:
        yield
    finally:
        _scope = outer


def forget() -> None:
    """Drop what the open scope kept (a stage that writes what others read calls it)."""
    if _scope is not None:
        _scope.clear()


def remember(key: Hashable, make: Callable[[], T]) -> T:
    """``make()``, or inside a :func:`shared` scope the value an earlier call with ``key``
    made."""
    if _scope is None:
        return make()
    if key not in _scope:
        _scope[key] = make()
    value: T = _scope[key]
    return value
