"""client-pages from crafted transcripts: the cursors the peer handed out against those the
client sent back, on the raw values (a cursor re-encoded by the client is one we never wrote).
Every outcome the rule names is reached, and each is graded by the client-pages scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_judge import Tape

CURSORS = ["mcpc.tools.1+/=", "mcpc.tools.2+/="]


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture
def scenario(shipped_scenarios: dict[str, Scenario]) -> Scenario:
    return shipped_scenarios["client-pages"]


def listed(sent: list[Any]) -> Tape:
    """The client's tools/list requests, each with the cursor in ``sent`` (None: none), and
    our pages: three tools, one a page."""
    tape = Tape()
    tape.handshake({})
    for rid, cursor in enumerate(sent, 1):
        params = {} if cursor is None else {"cursor": cursor}
        tape.add("in", {"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params})
        index = 0 if cursor is None else (CURSORS.index(cursor) + 1 if cursor in CURSORS else -1)
        if index < 0:
            tape.add(
                "out", {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "x"}}
            )
            continue
        result: dict[str, Any] = {"tools": [{"name": f"t{index}", "inputSchema": {}}]}
        if index < len(CURSORS):
            result["nextCursor"] = CURSORS[index]
        tape.add("out", {"jsonrpc": "2.0", "id": rid, "result": result})
    return tape


@pytest.mark.parametrize(
    ("sent", "outcome", "verdict"),
    [
        ([None, CURSORS[0], CURSORS[1]], "all-pages", "pass"),
        ([None], "first-page-only", "non-strict"),
        ([None, None], "first-page-only", "non-strict"),
        ([None, CURSORS[0]], "some-pages", "non-strict"),
        ([None, "mcpc.tools.1%2B%2F%3D"], "altered-cursor", "fail"),
        ([], "not-listed", "not-exercised"),
    ],
)
def test_the_cursors_sent_back_are_read_against_ours(
    tmp_path: Path, scenario: Scenario, sent: list[Any], outcome: str, verdict: str
) -> None:
    got = listed(sent).judge(tmp_path, scenario)["checks"]["tools-pages"]
    assert (got["outcome"], got["verdict"]) == (outcome, verdict)


def test_a_list_answered_whole_has_nothing_to_follow(tmp_path: Path, scenario: Scenario) -> None:
    tape = Tape()
    tape.handshake({})
    tape.add("in", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    got = tape.judge(tmp_path, scenario)["checks"]["tools-pages"]
    assert (got["outcome"], got["verdict"]) == ("one-page", "informational")
