"""The retry checks of an embedded elicitation (elicitation-retry at 2026-07-28), from
crafted transcripts: the requestState an embed step drew (its embed-armed note) is what the
retry must echo, and the retry needs an id of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios

from .test_judge import Tape

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN}
STATE = "mcpc1.00ff+/="


@pytest.fixture(scope="module")
def retry_scenario(pinned_spec: Path) -> Scenario:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        return next(s for s in load_scenarios() if s.id == "elicitation-retry")


def played(echoed: str | None, retry_id: int) -> Tape:
    """A modern call answered input_required with STATE, then a retry carrying ``echoed``."""
    tape = Tape()
    tape.note(event="embed-armed", index=0, key="answer", request_state=STATE)
    params: dict[str, Any] = {"name": "t", "arguments": {}, "_meta": META}
    tape.add("in", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    asked = {"answer": {"method": "elicitation/create", "params": {}}}
    waiting = {"resultType": "input_required", "inputRequests": asked, "requestState": STATE}
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "result": waiting})
    answer = {"answer": {"action": "accept", "content": {"answer": "x"}}}
    retry = {**params, "inputResponses": answer}
    if echoed is not None:
        retry["requestState"] = echoed
    tape.add("in", {"jsonrpc": "2.0", "id": retry_id, "method": "tools/call", "params": retry})
    return tape


@pytest.mark.parametrize(
    ("echoed", "retry_id", "state", "new_id"),
    [
        (STATE, 2, "exact", "new"),
        ("mcpc1.00ff%2B%2F%3D", 2, "altered", "new"),
        (None, 1, "missing", "reused"),
    ],
)
def test_the_retry_is_judged_against_the_state_the_embed_step_drew(
    tmp_path: Path,
    retry_scenario: Scenario,
    pinned_spec: Path,
    monkeypatch: pytest.MonkeyPatch,
    echoed: str | None,
    retry_id: int,
    state: str,
    new_id: str,
) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    checks = played(echoed, retry_id).judge(
        tmp_path, retry_scenario, MODERN, first_modern=MODERN, capabilities={}
    )["checks"]
    assert checks["request-state"]["outcome"] == state
    assert checks["new-id"]["outcome"] == new_id
