"""Outputs moved out of the checkout for a test: cache, results and build under one folder,
the cache holding a private copy of the session's verified spec files. Shared by the
``isolated`` fixture (one test) and by module fixtures that build something once for
several tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

#: Each moved location: its variable and its folder under the test's root.
MOVED = {
    "MCP_COMPARE_CACHE": "cache",
    "MCP_COMPARE_RESULTS": "results",
    "MCP_COMPARE_BUILD": "build",
}


def isolate(root: Path, patch: pytest.MonkeyPatch, pinned_spec: Path) -> None:
    """Point cache, results and build at folders under ``root`` (through ``patch``), the cache
    starting with a copy of ``pinned_spec``'s spec files."""
    for name, sub in MOVED.items():
        (root / sub).mkdir()
        patch.setenv(name, str(root / sub))
    shutil.copytree(pinned_spec / "spec", root / "cache" / "spec")
