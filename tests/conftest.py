"""Fixtures shared by every stage's tests.

Tests never touch the checkout's own outputs: ``isolated`` points every location of
``compare._paths`` at a temporary folder. The offline spec source is ``../shared/mcp-spec``
(read in place, never copied into the project).

``pinned_spec`` pins that source once per session into a session cache (with the project's
real ``schemas/revisions.toml``, so every sha256 is checked) and points ``MCP_COMPARE_CACHE``
at it, so any test can call ``compare.pin.pinned_path()``. ``isolated`` gives each test its
own copy of that verified cache, so a test that tampers with it harms nobody else.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from compare._paths import PROJECT_ROOT

SHARED_SPEC = PROJECT_ROOT.parent / "shared" / "mcp-spec"


@pytest.fixture(scope="session")
def shared_spec() -> Path:
    """The offline spec source; its absence is a failure with a reason, not a skip."""
    if not (SHARED_SPEC / "MANIFEST.tsv").is_file():
        pytest.fail(f"offline spec source missing: expected {SHARED_SPEC}/MANIFEST.tsv")
    return SHARED_SPEC


@pytest.fixture(scope="session")
def pinned_spec(shared_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A session cache holding every pinned file, fetched from the offline source and verified.

    Yields the cache folder (the value of ``MCP_COMPARE_CACHE`` for the session).
    """
    from compare._errors import CompareError
    from compare.pin import fetch, load_pins

    cache = tmp_path_factory.mktemp("session-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(cache))
        patch.delenv("MCP_COMPARE_SCHEMAS", raising=False)
        try:
            fetch(load_pins(), str(shared_spec), lambda _message: None)
        except CompareError as err:
            pytest.fail(f"could not pin the offline spec for the test session: {err}")
        yield cache


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pinned_spec: Path) -> Iterator[Path]:
    """Point cache, results and build outputs at ``tmp_path`` for one test.

    The cache starts with a private copy of the session's verified spec files.
    """
    for name, sub in {
        "MCP_COMPARE_CACHE": "cache",
        "MCP_COMPARE_RESULTS": "results",
        "MCP_COMPARE_BUILD": "build",
    }.items():
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(name, str(tmp_path / sub))
    shutil.copytree(pinned_spec / "spec", tmp_path / "cache" / "spec")
    assert os.environ["MCP_COMPARE_CACHE"] == str(tmp_path / "cache")
    yield tmp_path
