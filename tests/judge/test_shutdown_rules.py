"""stdio-shutdown from crafted cells: how a client ended the stdio server it started, read from
our peer's notes (its stdin closing, a signal, its exit) and the client's process facts, as
client-shutdown grades it. Between them the cases reach every outcome the rule names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario
from compare.judge._judge import judge_checks

from .test_judge import KNOWN, WS, Tape

DONE_BY_CLIENT = "stdin closed before step 1 completed"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def shutdown(
    tmp: Path, scenario: Scenario, events: list[dict[str, Any]], process: dict[str, Any] | None
) -> dict[str, Any]:
    """The shutdown-order check of a cell whose client completed the handshake, after which
    our peer noted ``events`` in order (its last window opened before them)."""
    tape = Tape()
    tape.handshake({}, "2025-11-25")
    tape.note(event="step", index=1, step={"observe_s": 8.0, "label": "ending"})
    for event in events:
        tape.note(**event)
    (tmp / "transcript.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in tape.records), encoding="utf-8"
    )
    plan = {"revision": "2025-11-25", "answer_revision": "2025-11-25", "workspace": WS}
    checks, _facts = judge_checks(scenario, tmp, plan, KNOWN, process)
    return next(c for c in checks if c["id"] == "shutdown-order")


SELF = {"ended_by": "self", "exit_code": 0, "ends": "self", "leftover_killed": 0}
CLOSED = {"event": "stdin-closed"}
TERM = {"event": "signal", "signal": "SIGTERM"}
EXIT = {"event": "exit"}


def done(reason: str) -> dict[str, Any]:
    return {"event": "done", "reason": reason}


@pytest.mark.parametrize(
    ("events", "process", "outcome", "verdict"),
    [
        ([CLOSED, done(DONE_BY_CLIENT), EXIT], SELF, "stdin-first", "pass"),
        # a SIGTERM after the stdin closed is the next step of the order, not a fault
        ([CLOSED, done(DONE_BY_CLIENT), TERM, EXIT], SELF, "stdin-first", "pass"),
        ([TERM, done("peer received SIGTERM"), EXIT], SELF, "signal-first", "non-strict"),
        ([], SELF, "killed", "non-strict"),
        ([], {**SELF, "leftover_killed": 1}, "left-running", "non-strict"),
        # the window passed: our server closed first, and what came after it is not the order
        ([done("steps complete"), TERM, EXIT], SELF, "server-ended", "not-exercised"),
        # a client the harness ended: the signal came from the harness, with the group
        ([TERM, done("peer received SIGTERM"), EXIT], {**SELF, "ended_by": "harness"},
         "harness-ended", "not-exercised"),
        ([CLOSED, done(DONE_BY_CLIENT), EXIT], None, "not-recorded", "not-exercised"),
    ],
)  # fmt: skip
def test_the_order_is_read_from_what_reached_our_server_before_it_was_done(
    tmp_path: Path,
    shipped_scenarios: dict[str, Scenario],
    events: list[dict[str, Any]],
    process: dict[str, Any] | None,
    outcome: str,
    verdict: str,
) -> None:
    check = shutdown(tmp_path, shipped_scenarios["client-shutdown"], events, process)
    assert (check["outcome"], check["verdict"]) == (outcome, verdict)
    if verdict == "non-strict":
        assert "the client **SHOULD** initiate shutdown by" in check["refs"][0]["quote"]
    if outcome in ("stdin-first", "signal-first"):
        assert check["evidence"], "the peer's note of what reached it is the evidence"
