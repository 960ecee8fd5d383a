"""Fixtures the judge's tests share."""

from __future__ import annotations

from pathlib import Path

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios


@pytest.fixture(scope="module")
def shipped_scenarios(pinned_spec: Path) -> dict[str, Scenario]:
    """The shipped scenario files by id, loaded against the pinned spec (their refs resolve
    to its lines)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        return {s.id: s for s in load_scenarios()}
