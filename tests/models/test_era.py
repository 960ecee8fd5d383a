"""The era boundary comes from the pins and the generated models, never from a constant.

A crafted models folder (``MCP_COMPARE_SCHEMAS``) and a crafted list of pinned revisions stand
for a spec where the handshake lasts one revision longer: the boundary must move with them,
and with it what ``is_modern`` says (the peer and the judge share that one function).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import _revisions
import pytest

from compare._errors import CompareError
from compare.models import first_modern, has_initialize, module_path
from compare.peer import is_modern

#: A generated module of a revision that still has the handshake (the marker is all it reads).
WITH_INIT = "class InitializeRequest(BaseModel):\n    pass\n"
WITHOUT_INIT = "class ServerDiscoverRequest(BaseModel):\n    pass\n"


def test_the_boundary_of_the_real_pins_is_the_first_revision_without_initialize() -> None:
    boundary = first_modern()
    assert boundary == _revisions.first_after_initialize()
    assert not is_modern(_revisions.latest_initialize_era(), boundary)
    assert all(is_modern(r, boundary) for r in _revisions.after_initialize())


@pytest.fixture
def crafted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Pins where the first revision without initialize comes one later than today's."""
    real_first = _revisions.first_after_initialize()
    later = "2099-01-01"
    models = tmp_path / "schemas" / "models"
    models.mkdir(parents=True)
    for rev in _revisions.initialize_era():
        shutil.copy(module_path(rev), models / module_path(rev).name)
    monkeypatch.setenv("MCP_COMPARE_SCHEMAS", str(tmp_path / "schemas"))
    module_path(real_first).write_text(WITH_INIT, encoding="utf-8")
    module_path(later).write_text(WITHOUT_INIT, encoding="utf-8")
    module_path("draft").write_text(WITHOUT_INIT, encoding="utf-8")
    return [*_revisions.initialize_era(), real_first, later, "draft"]


def test_a_later_boundary_in_the_pins_changes_what_is_modern(crafted: list[str]) -> None:
    real_first = _revisions.first_after_initialize()
    boundary = first_modern(crafted)
    assert boundary == "2099-01-01"
    assert has_initialize(real_first)
    assert not is_modern(real_first, boundary)  # modern with today's pins, not with these
    assert is_modern("2099-01-01", boundary) and is_modern("draft", boundary)


def test_the_boundary_follows_release_order_not_the_order_given(crafted: list[str]) -> None:
    assert first_modern(list(reversed(crafted))) == "2099-01-01"


def test_no_revision_past_the_handshake_means_nothing_is_modern(crafted: list[str]) -> None:
    boundary = first_modern(_revisions.initialize_era())
    assert boundary is None
    assert not any(is_modern(r, boundary) for r in [*crafted, "2026-07-28", "draft"])


def test_a_revision_without_generated_models_is_a_clear_error(crafted: list[str]) -> None:
    with pytest.raises(CompareError, match="mcp-compare models"):
        first_modern(["2000-01-01", *crafted])
