"""Cells are judged in threads (``run --jobs N``): the first use of a revision's models from
several threads at once must import the generated module once. Two imports under the same
``sys.modules`` name let one thread's classes resolve their forward references against the
other's half-executed module; seen as a cell in error, "`InitializeRequest` is not fully
defined; you should define `RequestId`" (one ``run --jobs 2`` in four).
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

from compare.models import _load


def test_concurrent_first_use_imports_the_module_once(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _load._import_once.cache_clear()
    real = _load._import_once.__wrapped__
    calls: list[int] = []

    def slow_once(path: Path, state: tuple[int, int, int, int]) -> ModuleType:
        calls.append(1)
        return real(path, state)

    monkeypatch.setattr(_load, "_import_once", _load.lru_cache(maxsize=16)(slow_once))
    start = threading.Barrier(4)
    got: list[ModuleType] = []

    def first_use() -> None:
        start.wait()
        got.append(_load.models_module("2025-11-25"))

    threads = [threading.Thread(target=first_use) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len({id(m) for m in got}) == 1
    own = [c for c in vars(got[0]).values() if isinstance(c, type) and issubclass(c, BaseModel)]
    classes = [c for c in own if c.__module__ == got[0].__name__]
    assert classes and all(c.__pydantic_complete__ for c in classes)
