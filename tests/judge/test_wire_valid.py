"""``wire-valid`` (issue 36 item 5): every message of the program under test is validated
against the negotiated revision, on every side, from crafted transcripts judged by the real
judge and the shipped scenario files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios

from .test_judge import Tape
from .test_judge_hygiene import ASK, _client, _msg, _server


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios(pinned_spec: Path) -> dict[str, Scenario]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        return {s.id: s for s in load_scenarios()}


def _valid(tape: Tape, tmp: Path, scenario: Scenario, revision: str = "2025-11-25") -> Any:
    result = tape.judge(tmp, scenario, revision)
    return result["checks"]["wire-valid"], result


def test_a_client_result_that_breaks_its_definition_fails(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """roots must be an array: the answer is paired with the roots/list it answers."""
    tape = _client(ASK, ("in", _msg(id=1, result={"roots": "file:///tmp"})))
    got, result = _valid(tape, tmp_path, scenarios["roots-list"])
    assert (got["outcome"], got["verdict"]) == ("invalid", "fail")
    assert "ListRootsResult" in got["observed"] and "a result" in got["observed"]
    assert got["evidence"] and result["verdict"] == "fail"
    assert any("MUST NOT" in r["quote"] and "stdin" in r["quote"] for r in got["refs"])


def test_a_valid_exchange_passes(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    tape = _client(ASK, ("in", _msg(id=1, result={"roots": []})))
    got, _ = _valid(tape, tmp_path, scenarios["roots-list"])
    assert (got["outcome"], got["verdict"]) == ("valid", "pass")


def test_a_notification_is_held_to_its_methods_definition(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """notifications/progress needs a progressToken and a progress number."""
    tape = _client(("in", _msg(method="notifications/progress", params={"progress": "half"})))
    got, _ = _valid(tape, tmp_path, scenarios["roots-list"])
    assert got["outcome"] == "invalid" and "notifications/progress" in got["observed"]


def test_a_server_request_is_validated_at_the_revision_it_answered(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A server's sampling/createMessage without its required messages fails; the revision
    is the one its initialize result named."""
    bad = _msg(id=5, method="sampling/createMessage", params={"maxTokens": 5})
    got, _ = _valid(_server(("in", bad)), tmp_path, scenarios["server-notification-reply"])
    assert (got["outcome"], got["verdict"]) == ("invalid", "fail")
    assert "at 2025-11-25" in got["observed"] and "sampling/createMessage" in got["observed"]
    assert any("stdout" in r["quote"] for r in got["refs"])


def test_a_server_result_is_paired_with_our_request(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = _server(
        ("out", _msg(id=1, method="tools/list")), ("in", _msg(id=1, result={"tools": {}}))
    )
    got, _ = _valid(tape, tmp_path, scenarios["server-notification-reply"])
    assert got["outcome"] == "invalid" and "ListToolsResult" in got["observed"]
    ok = _server(("out", _msg(id=1, method="tools/list")), ("in", _msg(id=1, result={"tools": []})))
    (tmp_path / "ok").mkdir()
    fine, _ = _valid(ok, tmp_path / "ok", scenarios["server-notification-reply"])
    assert fine["outcome"] == "valid", fine["observed"]


def test_nothing_parsed_is_not_exercised(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    got, _ = _valid(Tape(), tmp_path, scenarios["roots-list"])
    assert (got["outcome"], got["verdict"]) == ("nothing-to-validate", "not-exercised")
