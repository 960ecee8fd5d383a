"""The server rules of the 2026-07-28 era and of ``server-mrtr``, from crafted transcripts.

Each case writes what the scripted client would have recorded (its ``discover`` or
``initialize`` opening, the ``call`` step and its ``call:retry``) and asserts the outcome the
rule names; the grade is read from the scenario file, never spelled out here. Between them the
cases reach every outcome each of these rules can produce.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge.rules import RULES

from .test_judge import Tape

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
URI = "file:///tmp/mcpc-judge/web%20%23staging%20%C3%A9/app"
FOLDERS = {"app": {"uri": URI, "name": "app"}}
ROOTS_CAP = {"roots": {"listChanged": True}}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


class ServerTape(Tape):
    """The scripted client's view: ``out`` is ours, ``in`` is the server's."""

    def step(self, label: str, index: int, sent: dict[str, Any], reply: Any | None) -> None:
        self.note(event="step", index=index, step={"label": label})
        self.add("out", {"jsonrpc": "2.0", **sent})
        evidence = self.add("in", {"jsonrpc": "2.0", "id": sent["id"], **reply}) if reply else None
        outcome = "ok" if reply and "result" in reply else ("error" if reply else "timeout")
        self.note(
            event="step-done", index=index, label=label, outcome=outcome, id=sent["id"],
            evidence=evidence,
        )  # fmt: skip

    def discover(self, reply: dict[str, Any] | None) -> None:
        self.step("discover", -1, {"id": 1, "method": "server/discover"}, reply)

    def initialize(self) -> None:
        result = {"protocolVersion": LEGACY, "capabilities": {}, "serverInfo": {"name": "s"}}
        self.step("initialize", -1, {"id": 1, "method": "initialize"}, {"result": result})
        self.add("out", {"jsonrpc": "2.0", "method": "notifications/initialized"})

    def roots_request(self) -> None:
        self.add("in", {"jsonrpc": "2.0", "id": 0, "method": "roots/list"})


def ask(state: str = "opaque+/=") -> dict[str, Any]:
    asked = {"k": {"method": "roots/list"}}
    return {
        "result": {"resultType": "input_required", "inputRequests": asked, "requestState": state}
    }


def done(text: str, is_error: bool = False) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return {"result": {"resultType": "complete", "content": content, "isError": is_error}}


MISSING = {
    "error": {
        "code": -32021,
        "message": "roots needed",
        "data": {"requiredCapabilities": {"roots": {}}},
    }
}
CALL = {"id": 2, "method": "tools/call"}
RETRY = {"id": 3, "method": "tools/call"}


def build(case: str) -> tuple[ServerTape, str]:
    """A transcript for ``case`` and the revision it plays at."""
    tape = ServerTape()
    if case == "legacy-no-initialize":
        tape.step("initialize", -1, {"id": 1, "method": "initialize"}, None)
        return tape, LEGACY
    if case.startswith("legacy"):
        tape.initialize()
        tape.note(event="step", index=2, step={"label": "call"})
        tape.add("out", {"jsonrpc": "2.0", **CALL})
        if case == "legacy-request":
            tape.roots_request()
            tape.add("out", {"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": URI}]}})
        tape.add("in", {"jsonrpc": "2.0", "id": 2, **done(URI)})
        tape.note(event="step-done", index=2, label="call", outcome="ok", id=2, evidence=None)
        return tape, LEGACY
    if case == "not-modern":
        tape.discover({"error": {"code": -32601, "message": "Method not found"}})
        return tape, MODERN
    if case == "no-discover":
        tape.discover(None)
        return tape, MODERN
    result = {"supportedVersions": [MODERN], "capabilities": {"tools": {}}, "ttlMs": 0}
    tape.discover({"result": {"resultType": "complete", "cacheScope": "private", **result}})
    if case == "never":
        tape.step("call", 2, CALL, done("no roots needed"))
    elif case == "as-request":  # a roots/list request written while the call is in progress
        tape.note(event="step", index=2, step={"label": "call"})
        tape.add("out", {"jsonrpc": "2.0", **CALL})
        tape.roots_request()
        n = tape.add("in", {"jsonrpc": "2.0", "id": 2, **done("x")})
        tape.note(event="step-done", index=2, label="call", outcome="ok", id=2, evidence=n)
    elif case == "capability-error":
        tape.step("call", 2, CALL, MISSING)
    elif case.startswith("embedded"):
        tape.step("call", 2, CALL, ask())
        answer = {
            "embedded-used": done(f"roots:\n{URI}"),
            "embedded-altered": done("/tmp/mcpc-judge/web #staging é/app"),
            "embedded-not-used": done("nothing of yours"),
            "embedded-is-error": done(URI, is_error=True),
            "embedded-again": ask(),
            "embedded": done(URI),
        }[case]
        tape.step("call:retry", 2, RETRY, answer)
    return tape, MODERN


def outcome(tmp: Path, scenario: Scenario, check: str, case: str, **plan: Any) -> dict[str, Any]:
    tape, revision = build(case)
    plan = {"folders": FOLDERS, "roots": ["app"], "capabilities": ROOTS_CAP, **plan}
    return tape.judge(tmp, scenario, revision, **plan)["checks"][check]


def graded(scenario: Scenario, check: str, name: str) -> str:
    found = next(c for c in scenario.checks if c.id == check)
    return str(found.outcomes[name]["verdict"])


CASES = [
    # (scenario, check, case, plan overrides, expected outcome)
    ("server-asks", "asks-modern", "embedded", {}, "embedded"),
    ("server-asks", "asks-modern", "as-request", {}, "as-request"),
    ("server-asks", "asks-modern", "never", {}, "never"),
    ("server-asks", "asks-modern", "not-modern", {}, "not-modern"),
    ("server-asks", "asks-modern", "no-discover", {}, "no-discover"),
    (
        "server-asks-undeclared",
        "asks-undeclared-modern",
        "never",
        {"capabilities": {}},
        "not-asked",
    ),
    (
        "server-asks-undeclared",
        "asks-undeclared-modern",
        "capability-error",
        {"capabilities": {}},
        "capability-error",
    ),
    (
        "server-asks-undeclared",
        "asks-undeclared-modern",
        "embedded",
        {"capabilities": {}},
        "embedded",
    ),
    (
        "server-asks-undeclared",
        "asks-undeclared-modern",
        "as-request",
        {"capabilities": {}},
        "as-request",
    ),
    ("server-asks-undeclared", "asks-undeclared-modern", "never", {}, "declared"),
    ("server-asks-undeclared", "asks-undeclared-modern", "not-modern", {}, "not-modern"),
    ("server-asks-undeclared", "asks-undeclared-modern", "no-discover", {}, "no-discover"),
    ("server-mrtr", "asked-modern", "embedded", {}, "embedded"),
    ("server-mrtr", "asked-modern", "as-request", {}, "request"),
    ("server-mrtr", "asked-modern", "never", {}, "not-asked"),
    ("server-mrtr", "asked-modern", "not-modern", {}, "not-modern"),
    ("server-mrtr", "asked-modern", "no-discover", {}, "no-discover"),
    ("server-mrtr", "asked", "legacy-request", {}, "request"),
    ("server-mrtr", "asked", "legacy-quiet", {}, "not-asked"),
    ("server-mrtr", "asked", "legacy-no-initialize", {}, "no-initialize"),
    ("server-mrtr", "used", "embedded-used", {}, "used"),
    ("server-mrtr", "used", "embedded-altered", {}, "altered"),
    ("server-mrtr", "used", "embedded-not-used", {}, "not-used"),
    ("server-mrtr", "used", "embedded-is-error", {}, "no-result"),
    ("server-mrtr", "used", "embedded-again", {}, "no-result"),
    ("server-mrtr", "used", "never", {}, "not-asked"),
    ("server-mrtr", "used", "legacy-request", {}, "used"),
    ("server-mrtr", "used", "not-modern", {}, "not-modern"),
    ("server-mrtr", "used", "no-discover", {}, "no-discover"),
    ("server-mrtr", "used", "legacy-no-initialize", {}, "no-initialize"),
]


@pytest.mark.parametrize(("scenario", "check", "case", "plan", "expected"), CASES)
def test_outcome(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    scenario: str,
    check: str,
    case: str,
    plan: dict[str, Any],
    expected: str,
) -> None:
    got = outcome(tmp_path, scenarios[scenario], check, case, **plan)
    assert got["outcome"] == expected, got["observed"]
    assert got["verdict"] == graded(scenarios[scenario], check, expected)
    assert got["observed"]


def test_every_outcome_is_reached() -> None:
    """The cases above cover every outcome of these rules (a new outcome needs a new case)."""
    reached: dict[str, set[str]] = {}
    rule_of = {
        (s.id, c.id): c.rule for s in load_scenarios() for c in s.checks if s.side == "server"
    }
    for scenario, check, _case, _plan, expected in CASES:
        reached.setdefault(rule_of[(scenario, check)], set()).add(expected)
    assert set(reached) == {
        "server-asks-modern", "server-asks-undeclared-modern", "server-roots-asked",
        "server-roots-used",
    }  # fmt: skip
    for name, got in reached.items():
        assert got == set(RULES[name].outcomes), (name, set(RULES[name].outcomes) - got)


def test_modern_checks_do_not_play_before_the_boundary(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """At a legacy revision the modern checks are left out, and the legacy ones judged."""
    tape, _ = build("legacy-request")
    checks = tape.judge(tmp_path, scenarios["server-mrtr"], LEGACY, folders=FOLDERS,
                        roots=["app"], capabilities=ROOTS_CAP)["checks"]  # fmt: skip
    assert "asked" in checks and "asked-modern" not in checks
    assert revisions().index(LEGACY) < revisions().index(MODERN)
