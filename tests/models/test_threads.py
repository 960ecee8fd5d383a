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


def test_warm_loads_a_revision_on_a_thread_and_a_bad_revision_quietly(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compare.judge import _validate

    _load._import_once.cache_clear()
    monkeypatch.setattr(_validate, "_WARMING", set())
    started: list[threading.Thread] = []
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        started.append(thread)
        real_start(thread)

    with monkeypatch.context() as patched:
        patched.setattr(threading.Thread, "start", start)
        _validate.warm("2025-11-25")
        _validate.warm("2025-11-25")  # once per process and revision
        _validate.warm("1999-01-01")  # not pinned: the judge's own import will say so
    assert [t.name for t in started] == ["warm-models-2025-11-25", "warm-models-1999-01-01"]
    for thread in started:
        assert thread.daemon
        thread.join(timeout=60)
    info = _load._import_once.cache_info()
    assert info.currsize == 1
    _load.models_module("2025-11-25")
    assert _load._import_once.cache_info().hits == info.hits + 1  # the warmed module, reused
