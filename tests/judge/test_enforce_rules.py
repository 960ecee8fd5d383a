"""The enforcement rules on crafted server transcripts: every outcome each rule can name.

A transcript here is what the scripted client would write in a server cell: our initialize
and the server's answer, the server's roots/list, then one step note pair per probe call with
the server's tools/call response, and the fixture hashes before and after. The real scenario
files grade them, so a change of grading shows up here as well as on the site.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge._judge import judge_checks

KNOWN = revisions()
PLACES = {
    "in-root": {"path": "app", "real": "app", "expect": "allowed"},
    "outside": {"path": "outside", "real": "outside", "expect": "refused"},
    "traversal": {"path": "app/../outside-dotdot", "real": "outside-dotdot", "expect": "refused"},
    "old": {"path": "old", "real": "old", "expect": "allowed"},
    "adopted": {"path": "{beside}", "real": "../ws-beside", "expect": "allowed"},
}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


class ServerTape:
    """A server cell's transcript: ``out`` is ours, ``in`` is the server's."""

    def __init__(self, asks: bool = True) -> None:
        self.records: list[dict[str, Any]] = []
        self.next_id = 10
        self.note(event="step", index=-1, step={"request": "initialize", "label": "initialize"})
        self.add("out", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        n = self.add("in", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}})
        self.note(event="step-done", index=-1, label="initialize", outcome="ok", id=1, evidence=n)
        self.add("out", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        if asks:
            self.ask()

    def add(self, direction: str, message: Any) -> int:
        n = len(self.records) + 1
        raw = json.dumps(message, ensure_ascii=False)
        self.records.append({"n": n, "t": n / 1000, "dir": direction, "raw": raw})
        return n

    def note(self, **fields: Any) -> int:
        n = len(self.records) + 1
        self.records.append({"n": n, "t": n / 1000, "dir": "note", "raw": json.dumps(fields)})
        return n

    def ask(self) -> None:
        self.add("in", {"jsonrpc": "2.0", "id": 900 + len(self.records), "method": "roots/list"})

    def change(self, label: str) -> None:
        self.note(event="step", index=5, step={"set_roots": [], "label": label})
        n = self.add("out", {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        self.note(event="step-done", index=5, label=label, outcome="ok", evidence=n)

    def probe(self, step: str, op: str, place: str, reply: str, text: str = "") -> None:
        """One probe call; ``reply`` is ok, tool-error, rpc-error or none (no answer)."""
        label = f"{step}:{op}:{place}"
        self.next_id += 1
        rid = self.next_id
        spec = {"probe": op, "place": place, "tool": f"{op}_file", "label": label}
        spec["expect"] = PLACES.get(place, {}).get("expect", "")  # as the scripted client notes
        self.note(event="step", index=3, step=spec)
        self.add("out", {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {}})
        if reply == "none":
            self.note(event="step-done", index=3, label=label, outcome="timeout", id=rid)
            return
        content = [{"type": "text", "text": text or reply}]
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": rid}
        if reply == "rpc-error":
            body["error"] = {"code": -32603, "message": text or "boom"}
        else:
            body["result"] = {"content": content, "isError": reply == "tool-error"}
        n = self.add("in", body)
        self.note(event="step-done", index=3, label=label, outcome="ok", id=rid, evidence=n)

    def fixture(self, before: dict[str, str], after: dict[str, str]) -> None:
        self.records.insert(0, {"n": 0, "t": 0, "dir": "note", "raw": json.dumps(
            {"event": "fixture-before", "files": before})})  # fmt: skip
        self.note(event="fixture-after", files=after)

    def judge(
        self, tmp: Path, scenario: Scenario, steps: list[dict[str, Any]] | None = None
    ) -> dict[str, dict[str, Any]]:
        for i, record in enumerate(self.records, 1):
            record["n"] = i
        lines = "".join(json.dumps(r) + "\n" for r in self.records)
        (tmp / "transcript.jsonl").write_text(lines, encoding="utf-8")
        plan = {
            "revision": "2025-11-25",
            "capabilities": {"roots": {"listChanged": True}},
            "probe": {"places": PLACES, "baseline": "in-root"},
            "steps": steps or [],
        }
        checks, _facts = judge_checks(scenario, tmp, plan, KNOWN)
        return {c["id"]: c for c in checks}


OPS = ("read", "list", "write")


def _enforcement(tape: ServerTape, outside: str, inside: str = "ok") -> None:
    for op in OPS:
        tape.probe("probes", op, "in-root", inside)
        tape.probe("probes", op, "outside", outside, "Access denied - outside")
        tape.probe("probes", op, "traversal", outside, "Access denied - outside")


@pytest.mark.parametrize(
    ("outside", "inside", "asks", "outcome", "verdict"),
    [
        ("tool-error", "ok", True, "refused", "pass"),
        ("ok", "ok", True, "allowed", "non-strict"),
        ("ok", "ok", False, "never-asked", "not-exercised"),
        ("tool-error", "tool-error", True, "unpaired", "informational"),
        ("rpc-error", "rpc-error", True, "unpaired", "informational"),
        ("none", "none", True, "no-answer", "error"),
    ],
)
def test_outside_probes_are_graded_by_pairing(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    outside: str,
    inside: str,
    asks: bool,
    outcome: str,
    verdict: str,
) -> None:
    tape = ServerTape(asks=asks)
    _enforcement(tape, outside, inside)
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert (checks["outside"]["outcome"], checks["outside"]["verdict"]) == (outcome, verdict)
    # traversal reached as well as the plain sibling is the same behaviour, graded once there
    folded = ("follows", "informational") if outcome == "allowed" else (outcome, verdict)
    assert (checks["traversal"]["outcome"], checks["traversal"]["verdict"]) == folded
    if outcome in ("refused", "allowed"):
        # the evidence is the probes' own request and response lines
        assert len(checks["outside"]["evidence"]) == 2 * len(OPS)


def test_one_allowed_operation_among_refusals_is_a_leak(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    for op in OPS:
        tape.probe("probes", op, "in-root", "ok")
        tape.probe("probes", op, "outside", "ok" if op == "list" else "tool-error")
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["outside"]["outcome"] == "allowed"
    observed = checks["outside"]["observed"]
    assert "1/3" in observed and "list@outside" in observed


def test_a_write_seen_on_disk_is_allowed_whatever_the_reply_said(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    for op in OPS:
        tape.probe("probes", op, "in-root", "ok")
        tape.probe("probes", op, "outside", "tool-error")
    tape.fixture(
        {"outside/probe.txt": "a", "outside/canary.txt": "c"},
        {"outside/probe.txt": "a", "outside/canary.txt": "c", "outside/new-probes-write.txt": "w"},
    )
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["outside"]["outcome"] == "allowed"
    assert "on disk: outside/new-probes-write.txt" in checks["outside"]["observed"]
    assert checks["fixture"]["outcome"] == "intact"


def test_probes_without_hashes_are_not_hashed(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    _enforcement(tape, "tool-error")
    assert tape.judge(tmp_path, scenarios["server-enforcement"])["fixture"]["outcome"] == (
        "not-hashed"
    )


def test_a_changed_canary_is_reported(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    tape = ServerTape()
    _enforcement(tape, "tool-error")
    tape.fixture({"outside/canary.txt": "c"}, {"outside/canary.txt": "CHANGED"})
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["fixture"]["outcome"] == "changed"
    assert "outside/canary.txt" in checks["fixture"]["observed"]


def test_fixture_not_hashed_and_no_file_tools(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    tape.note(event="probe-skipped", label="probes", operation="read", why="no-tool")
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["fixture"]["outcome"] == "no-probes"
    assert checks["outside"]["outcome"] == "no-file-tools"
    assert checks["in-root"]["outcome"] == "no-file-tools"


@pytest.mark.parametrize(("inside", "outcome"), [("ok", "allowed"), ("tool-error", "failed")])
def test_inside_probes(
    tmp_path: Path, scenarios: dict[str, Scenario], inside: str, outcome: str
) -> None:
    tape = ServerTape()
    _enforcement(tape, "tool-error", inside)
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["in-root"]["outcome"] == outcome


def test_a_removed_root_still_reachable_is_stale(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """Refusal is paired across steps: the same operation worked at the same place before."""
    for old_after, outcome in (("ok", "allowed"), ("tool-error", "refused")):
        tape = ServerTape()
        for op in OPS:
            tape.probe("before", op, "in-root", "ok")
            tape.probe("before", op, "old", "ok")
        tape.change("changed")
        tape.ask()
        for op in OPS:
            tape.probe("removed", op, "in-root", "ok")
            tape.probe("removed", op, "old", old_after)
        out = tmp_path / outcome
        out.mkdir()
        checks = tape.judge(out, scenarios["server-stale"])
        assert checks["removed"]["outcome"] == outcome
        assert checks["kept"]["outcome"] == "allowed"
        assert checks["refresh"]["outcome"] == "asked-again"


def test_a_round_the_server_never_asked_for_is_not_refreshed(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    for op in OPS:
        tape.probe("scheme", op, "in-root", "ok")
        tape.probe("scheme", op, "outside", "tool-error")
    tape.change("changed")  # no roots/list follows
    for op in OPS:
        tape.probe("malformed", op, "in-root", "ok")
        tape.probe("malformed", op, "outside", "tool-error")
    checks = tape.judge(tmp_path, scenarios["server-bad-roots"])
    assert checks["scheme-outside"]["outcome"] == "refused"
    assert checks["malformed-outside"]["outcome"] == "not-refreshed"
    assert checks["malformed-good"]["outcome"] == "not-refreshed"


def test_skipped_probes_after_silence_are_not_answers(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape()
    tape.probe("probes", "read", "in-root", "none")
    tape.note(event="probe-skipped", label="probes:read:outside", why="server-silent")
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["outside"]["outcome"] == "no-answer"
    assert checks["in-root"]["outcome"] == "no-answer"


def _refresh_round(tape: ServerTape, inside: dict[str, str], outside: str) -> None:
    """Probes before a change (all fine), the change, the server's ask, probes after it."""
    for op in OPS:
        tape.probe("before", op, "in-root", "ok")
        tape.probe("before", op, "outside", "tool-error", "Access denied")
    tape.change("changed")
    tape.ask()
    for op in OPS:
        tape.probe("after", op, "in-root", inside[op], "Access denied")
        tape.probe("after", op, "outside", outside, "Access denied")


@pytest.mark.parametrize(
    ("inside", "outside", "outcome"),
    [
        ({"read": "ok", "list": "ok", "write": "ok"}, "tool-error", "kept"),
        ({"read": "tool-error", "list": "tool-error", "write": "tool-error"}, "tool-error",
         "refused-all"),
        ({"read": "ok", "list": "ok", "write": "ok"}, "ok", "widened"),
        ({"read": "ok", "list": "tool-error", "write": "ok"}, "tool-error", "mixed"),
    ],
)  # fmt: skip
def test_refresh_failure_outcomes_on_crafted_tapes(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    inside: dict[str, str],
    outside: str,
    outcome: str,
) -> None:
    """refused-all rests on each operation having worked in the root before the change; a
    mixed answer inside (no outside reached) is neither kept nor refused-all."""
    tape = ServerTape()
    _refresh_round(tape, inside, outside)
    check = tape.judge(tmp_path, scenarios["server-refresh-error"])["after-failure"]
    assert check["outcome"] == outcome, check["observed"]
    assert check["evidence"]


def test_a_probe_step_pairs_with_its_own_baseline(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A step naming its own baseline pairs its errors with that place, not the scenario's:
    the same replies read refused with it and unpaired without it."""
    scenario = scenarios["server-several-roots"]
    for steps, outcome in (([{"probe": {"baseline": "first-to-second"}, "label": "cross"}],
                            "refused"), (None, "unpaired")):  # fmt: skip
        tape = ServerTape()
        tape.probe("cross", "move", "first-to-second", "ok")
        tape.probe("cross", "move", "first-to-outside", "tool-error", "Access denied")
        folder = tmp_path / outcome
        folder.mkdir()
        assert tape.judge(folder, scenario, steps)["cross-out"]["outcome"] == outcome


def _with_beside(tape: ServerTape, beside: str, outside: str, traversal: str) -> None:
    for op in OPS:
        tape.probe("probes", op, "in-root", "ok")
        tape.probe("probes", op, "adopted", beside, "Access denied - outside allowed folders")
        tape.probe("probes", op, "outside", outside, "Access denied - outside")
        tape.probe("probes", op, "traversal", traversal, "Access denied - outside")


def test_a_server_that_adopted_no_root_is_one_finding(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """Refused in the root beside its start-up folder while the same tools worked inside it:
    the server kept its own folder, so no place outside the roots was measured."""
    tape = ServerTape()
    _with_beside(tape, "tool-error", "ok", "ok")
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert (checks["adopted"]["outcome"], checks["adopted"]["verdict"]) == (
        "not-adopted",
        "non-strict",
    )
    for check in ("outside", "traversal", "encoded-root"):
        assert (checks[check]["outcome"], checks[check]["verdict"]) == (
            "not-adopted",
            "not-exercised",
        )
        assert checks[check]["observed"].startswith("follows from check adopted (not-adopted)")
    # the precondition's own evidence is the refused probes beside the workspace
    assert checks["outside"]["evidence"] == checks["adopted"]["evidence"]


@pytest.mark.parametrize(
    ("outside", "traversal", "want"),
    [
        ("ok", "ok", ("follows", "informational")),
        ("tool-error", "ok", ("allowed", "non-strict")),
        ("tool-error", "tool-error", ("refused", "pass")),
    ],
)
def test_a_way_out_is_folded_only_into_the_same_behaviour(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    outside: str,
    traversal: str,
    want: tuple[str, str],
) -> None:
    tape = ServerTape()
    _with_beside(tape, "ok", outside, traversal)
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert (checks["adopted"]["outcome"], checks["adopted"]["verdict"]) == (
        "adopted",
        "informational",
    )
    assert (checks["traversal"]["outcome"], checks["traversal"]["verdict"]) == want
    if want[0] == "follows":
        observed = checks["traversal"]["observed"]
        assert "follows from check outside (allowed)" in observed
        assert "measured here: 3/3 probes" in observed


def test_refused_beside_by_a_server_that_never_asked_is_not_exercised(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = ServerTape(asks=False)
    _with_beside(tape, "tool-error", "ok", "ok")
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert checks["adopted"]["outcome"] == "never-asked"
    assert checks["outside"]["outcome"] == "never-asked"


def test_the_adoption_finding_is_graded_once_across_scenarios(
    scenarios: dict[str, Scenario],
) -> None:
    """Every scenario with refusals to judge checks adoption first; only server-enforcement
    grades a server that adopted none."""
    for scenario in scenarios.values():
        refusing = [c for c in scenario.checks if c.rule == "enforce-refused"]
        adopted = [c for c in scenario.checks if c.rule == "enforce-adopted"]
        if scenario.id == "server-bad-roots" or not refusing:
            continue
        assert len(adopted) == 1, scenario.id
        grade = adopted[0].outcomes["not-adopted"]["verdict"]
        want = "non-strict" if scenario.id == "server-enforcement" else "informational"
        assert grade == want, scenario.id
        for check in refusing:
            assert check.follows and check.follows[0]["check"] == "adopted", (
                scenario.id,
                check.id,
            )


def test_refused_beside_but_nowhere_outside_is_partial_and_measured(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A server that keeps to some of the roots (the first, say) refuses the root beside its
    start-up folder and every place outside the roots alike: it did not fall back to its own
    folder, so the places outside are measured against roots, not voided."""
    tape = ServerTape()
    _with_beside(tape, "tool-error", "tool-error", "tool-error")
    checks = tape.judge(tmp_path, scenarios["server-enforcement"])
    assert (checks["adopted"]["outcome"], checks["adopted"]["verdict"]) == (
        "partial",
        "informational",
    )
    assert (checks["outside"]["outcome"], checks["outside"]["verdict"]) == ("refused", "pass")
