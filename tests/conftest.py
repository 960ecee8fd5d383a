"""Fixtures shared by every stage's tests.

Tests never touch the checkout's own outputs: ``isolated`` points every location of
``compare._paths`` at a temporary folder. The offline spec source is ``../shared/mcp-spec``
(read in place, never copied into the project).
"""

from __future__ import annotations

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


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point cache, results, build and site outputs at ``tmp_path`` for one test."""
    for name, sub in {
        "MCP_COMPARE_CACHE": "cache",
        "MCP_COMPARE_RESULTS": "results",
        "MCP_COMPARE_BUILD": "build",
    }.items():
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(name, str(tmp_path / sub))
    yield tmp_path
