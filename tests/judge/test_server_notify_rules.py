"""server-notified from crafted transcripts: the notifications a server sends on its own
between two steps, about the URI a request named, as server-resource-updated reads them.

Each case writes what the scripted client records (the subscription, the tool call that makes
the resource change, the unsubscribe, the server's notifications between them) and asserts the
outcome the rule names and the grade the scenario gives it; between them the cases reach
every outcome the rule names apart from the gates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_server_lists_rules import opened
from .test_server_modern_rules import LEGACY, ServerTape

URI = "demo://resource/a"
SUBSCRIBING = {"tools": {}, "resources": {"subscribe": True}}
UPDATED = "notifications/resources/updated"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture
def scenario(shipped_scenarios: dict[str, Scenario]) -> Scenario:
    return shipped_scenarios["server-resource-updated"]


def updated(uri: str = URI) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": UPDATED, "params": {"uri": uri}}


def played(
    during: list[dict[str, Any]], after: list[dict[str, Any]], caps: dict[str, Any] = SUBSCRIBING
) -> ServerTape:
    """The scenario's steps with the server's notifications ``during`` the watch after the
    change began and ``after`` the unsubscribe."""
    tape = opened(caps)
    tape.step("subscribe", 2, {"id": 3, "method": "resources/subscribe",
                               "params": {"uri": URI}}, {"result": {}})  # fmt: skip
    call = {"id": 4, "method": "tools/call", "params": {"name": "toggle-subscriber-updates"}}
    tape.step("start-updates", 3, call, {"result": {"content": []}})
    for message in during:
        tape.add("in", message)
    tape.step("unsubscribe", 5, {"id": 5, "method": "resources/unsubscribe",
                                 "params": {"uri": URI}}, {"result": {}})  # fmt: skip
    for message in after:
        tape.add("in", message)
    call = {**call, "id": 6}
    tape.step("stop-updates", 7, call, {"result": {"content": []}})
    tape.add("in", updated())  # after the watch: counted by neither check
    return tape


def outcomes(tmp: Path, scenario: Scenario, tape: ServerTape) -> dict[str, tuple[str, str]]:
    got = tape.judge(tmp, scenario, LEGACY)["checks"]
    grades = {c.id: c.outcomes for c in scenario.checks}
    for cid in ("updated", "quiet-after-unsubscribe"):
        assert got[cid]["outcome"] in grades[cid], got[cid]
    return {cid: (got[cid]["outcome"], got[cid]["verdict"]) for cid in grades}


OTHER = updated("demo://other")


@pytest.mark.parametrize(
    ("during", "after", "want"),
    [
        ([updated()], [], ("sent", "missing")),
        ([updated(), updated()], [updated()], ("sent", "sent")),
        ([OTHER], [], ("other-uri", "missing")),
        ([], [OTHER], ("missing", "other-uri")),
    ],
)
def test_updates_are_counted_in_their_window_and_about_the_uri_subscribed_to(
    tmp_path: Path,
    scenario: Scenario,
    during: list[dict[str, Any]],
    after: list[dict[str, Any]],
    want: tuple[str, str],
) -> None:
    got = outcomes(tmp_path, scenario, played(during, after))
    assert (got["updated"][0], got["quiet-after-unsubscribe"][0]) == want


def test_the_count_and_the_uri_are_shown(tmp_path: Path, scenario: Scenario) -> None:
    tape = played([updated(), updated()], [])
    observed = tape.judge(tmp_path, scenario, LEGACY)["checks"]["updated"]["observed"]
    assert observed == f"2 × {UPDATED} about {URI} after start-updates, before unsubscribe"


def test_without_a_tool_that_changes_a_resource_nothing_is_read(
    tmp_path: Path, scenario: Scenario
) -> None:
    """No change was started, so silence after the unsubscribe says nothing either."""
    tape = opened(SUBSCRIBING)
    tape.step("subscribe", 2, {"id": 3, "method": "resources/subscribe",
                               "params": {"uri": URI}}, {"result": {}})  # fmt: skip
    tape.note(event="step", index=3, step={"label": "start-updates"})
    tape.note(event="step-done", index=3, label="start-updates", outcome="no-tool")
    tape.step("unsubscribe", 5, {"id": 5, "method": "resources/unsubscribe",
                                 "params": {"uri": URI}}, {"result": {}})  # fmt: skip
    got = outcomes(tmp_path, scenario, tape)
    assert got == {
        "updated": ("no-tool", "not-exercised"),
        "quiet-after-unsubscribe": ("no-tool", "not-exercised"),
    }


def test_a_change_never_started_is_not_begun(tmp_path: Path, scenario: Scenario) -> None:
    tape = opened(SUBSCRIBING)
    got = outcomes(tmp_path, scenario, tape)
    assert got["updated"] == ("not-begun", "not-exercised")


def test_a_server_that_does_not_offer_subscriptions_is_not_read(
    tmp_path: Path, scenario: Scenario
) -> None:
    got = outcomes(tmp_path, scenario, played([updated()], [], caps={"resources": {}}))
    assert got["updated"] == ("undeclared", "informational")
