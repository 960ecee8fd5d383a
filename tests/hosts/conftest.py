"""The real SDK clients, installed once per session by the project's own installer."""

from __future__ import annotations

from pathlib import Path

import pytest

from compare import _paths
from compare.install import install_tools


@pytest.fixture(scope="session")
def tools() -> Path:
    """The project's tools folder with every pinned client installed (idempotent, real)."""
    install_tools()
    return _paths.tools_dir()
