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


@pytest.mark.parametrize(
    ("meta", "want"),
    [
        ({"progressToken": "t-1"}, ("carried", "informational")),
        ({"progressToken": 7, "other": 1}, ("carried", "informational")),
        ({"other": 1}, ("absent", "informational")),
        (None, ("absent", "informational")),
    ],
)
def test_whether_a_clients_call_asks_for_progress_is_recorded(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    meta: dict[str, Any] | None,
    want: tuple[str, str],
) -> None:
    tape = Tape()
    tape.handshake({}, version="2025-11-25")
    params: dict[str, Any] = {"name": "mcp-compare-slow", "arguments": {"steps": 2}}
    if meta is not None:
        params["_meta"] = meta
    tape.add("in", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params})
    got = tape.judge(tmp_path, shipped_scenarios["client-progress"])["checks"]["token-sent"]
    assert (got["outcome"], got["verdict"]) == want, got


def test_a_client_that_never_called_is_not_tested(
    tmp_path: Path, shipped_scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({}, version="2025-11-25")
    got = tape.judge(tmp_path, shipped_scenarios["client-progress"])["checks"]["token-sent"]
    assert (got["outcome"], got["verdict"]) == ("not-sent", "not-exercised"), got
