"""The symlink-race rule and the fs-aware fixture check on crafted server transcripts: every
outcome the swap check can name, read from the raw bytes of each raced answer, graded by the
shipped server-symlink-swap and server-odd-roots files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge._judge import judge_checks

from .test_enforce_rules import ServerTape

KNOWN = revisions()
OUTSIDE = "probe file: read, edit (dry run) and info probes name it\nplace: secret\n"
INSIDE = "probe file: read, edit (dry run) and info probes name it\nplace: app/inner\n"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


class RaceTape(ServerTape):
    def race(self, *answers: str | None) -> None:
        """One attempt per answer: its text, or None for no answer."""
        for attempt, text in enumerate(answers):
            self.next_id += 1
            rid = self.next_id
            sent = self.add("out", {"jsonrpc": "2.0", "id": rid, "method": "tools/call"})
            got = None
            if text is not None:
                error = text.startswith("denied")
                result = {"content": [{"type": "text", "text": text}], "isError": error}
                got = self.add("in", {"jsonrpc": "2.0", "id": rid, "result": result})
            self.note(event="race", label="race", attempt=attempt, id=rid, request=sent,
                      response=got, swapped_t=0.0, tool="read_file")  # fmt: skip

    def judge_with(self, tmp: Path, scenario: Scenario) -> dict[str, dict[str, Any]]:
        for i, record in enumerate(self.records, 1):
            record["n"] = i
        lines = "".join(json.dumps(r) + "\n" for r in self.records)
        (tmp / "transcript.jsonl").write_text(lines, encoding="utf-8")
        plan = {
            "revision": "2025-11-25",
            "capabilities": {"roots": {"listChanged": True}},
            "probe": {"places": {}, "baseline": "in-root"},
            "steps": scenario.steps,
        }
        checks, _facts = judge_checks(scenario, tmp, plan, KNOWN)
        return {c["id"]: c for c in checks}


@pytest.mark.parametrize(
    ("asks", "answers", "outcome", "verdict"),
    [
        (True, [INSIDE, "denied: outside", INSIDE], "not-reached", "pass"),
        (True, [INSIDE, OUTSIDE, "denied: outside"], "reached", "non-strict"),
        (False, [OUTSIDE, INSIDE], "never-asked", "not-exercised"),
        (False, [INSIDE, INSIDE], "never-asked", "not-exercised"),  # no boundary to race
        (True, ["denied: outside", "denied: outside"], "unpaired", "informational"),
        (True, [None, None], "no-answer", "informational"),
        (True, [], "no-file-tools", "not-exercised"),
    ],
)
def test_every_swap_outcome(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    asks: bool,
    answers: list[str | None],
    outcome: str,
    verdict: str,
) -> None:
    tape = RaceTape(asks=asks)
    tape.race(*answers)
    swap = tape.judge_with(tmp_path, scenarios["server-symlink-swap"])["swap"]
    assert (swap["outcome"], swap["verdict"]) == (outcome, verdict), swap["observed"]


def test_reached_cites_the_answers_that_hold_the_marker(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = RaceTape()
    tape.race(INSIDE, OUTSIDE, INSIDE, OUTSIDE)
    swap = tape.judge_with(tmp_path, scenarios["server-symlink-swap"])["swap"]
    assert swap["observed"].startswith("2 of 4 raced reads returned the outside file's marker")
    cited = [r for r in tape.records if r["n"] in swap["evidence"] and r["dir"] == "in"]
    assert len(cited) == 2 and all("place: secret" in r["raw"] for r in cited)
    assert not any("place: app/inner" in r["raw"] for r in cited)


def test_an_outside_folder_read_plainly_leaves_no_window_to_find(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """However the race fell, a server whose plain read of the outside folder worked is
    ``direct``: the outcome does not flip between plays with the luck of the swaps."""
    for answers in ([INSIDE, OUTSIDE], [INSIDE, INSIDE]):
        tape = RaceTape()
        tape.probe("before", "read", "in-root", "ok")
        tape.probe("before", "read", "secret", "ok", OUTSIDE)
        tape.race(*answers)
        checks = tape.judge_with(tmp_path, scenarios["server-symlink-swap"])
        assert checks["secret"]["verdict"] == "non-strict"  # the leak is graded there
        assert (checks["swap"]["outcome"], checks["swap"]["verdict"]) == (
            "direct",
            "informational",
        )
        assert "read@secret" in checks["swap"]["observed"]


def test_not_reached_says_how_many_attempts_never_proven_safe(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = RaceTape()
    tape.race(*[INSIDE] * 5)
    swap = tape.judge_with(tmp_path, scenarios["server-symlink-swap"])["swap"]
    assert swap["observed"] == "not reached in 5 attempts (5 inside)"
    assert "proves no more" in swap["reason"]


def test_the_fixture_check_forgives_our_own_fs_steps_only(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = RaceTape()
    tape.probe("first", "read", "in-root", "ok")
    tape.note(event="fs", op="mkdir", path="later", done=True)
    tape.note(event="fs", op="remove", path="outside", done=False, why="outside-workspace")
    tape.fixture(
        {"app/probe.txt": "a", "outside/canary.txt": "c"},
        {"app/probe.txt": "a", "later/probe.txt": "p", "outside/canary.txt": "changed"},
    )
    fixture = tape.judge_with(tmp_path, scenarios["server-odd-roots"])["fixture"]
    assert fixture["outcome"] == "changed"
    assert "outside/canary.txt" in fixture["observed"] and "later" not in fixture["observed"]
