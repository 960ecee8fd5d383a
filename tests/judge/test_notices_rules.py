"""client-notifications from crafted transcripts: the notifications a 2026-07-28 client sends,
recorded on every client cell of that revision (wire-client-notifications), and left alone for a
client that opened an older revision's session with initialize."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_judge import Tape

MODERN = "2026-07-28"


def _sent(methods: list[str], handshake: bool = False) -> Tape:
    tape = Tape()
    if handshake:
        tape.handshake({}, version="2025-11-25")
    for method in methods:
        tape.add("in", {"jsonrpc": "2.0", "method": method, "params": {}})
    return tape


@pytest.mark.parametrize(
    ("methods", "handshake", "want"),
    [
        (["notifications/cancelled"], False, "cancelled-only"),
        (["notifications/cancelled", "notifications/initialized"], False, "others"),
        (["notifications/roots/list_changed"], False, "others"),
        ([], False, "none"),
        (["notifications/initialized"], True, "legacy"),
    ],
)
def test_the_notifications_of_a_2026_client_are_recorded(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    methods: list[str],
    handshake: bool,
    want: str,
) -> None:
    got: dict[str, Any] = _sent(methods, handshake).judge(
        tmp_path, shipped_scenarios["mrtr"], MODERN
    )["checks"]["wire-client-notifications"]
    assert got["outcome"] == want, got
    verdict = "not-exercised" if want == "legacy" else "informational"
    assert got["verdict"] == verdict
    if want == "others":
        assert "notifications/cancelled" not in got["observed"].split(":", 1)[1]
