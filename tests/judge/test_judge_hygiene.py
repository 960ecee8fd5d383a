"""Wire hygiene on crafted transcripts: every outcome of every hygiene check, on each side.

Regressions for issue 21 item 6: a client that answered one id twice read ``wire-ids:
matched`` (pass), and one that sent progress for a token no request carried read pass. Each
case below is a transcript written by hand in the recorders' format and judged by the real
judge against the shipped scenario files, so the grade (and the MUST behind a fail) is the
one the scenario data gives at that revision.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import Scenario, common_checks, load_scenarios
from compare.judge._judge import judge_checks, overall
from compare.judge.rules import RULES

from ._legs import Legs
from .test_judge import Tape

KNOWN = revisions()
RELEASED = [r for r in KNOWN if r != "draft"]
HYGIENE = ("wire-ids", "wire-request-ids", "wire-notification-reply", "wire-progress")
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "crafted", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


def _msg(**fields: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", **fields}


def _progress(token: Any) -> dict[str, Any]:
    return _msg(method="notifications/progress", params={"progressToken": token, "progress": 1})


# -- the client side: "in" is the client's line, "out" the peer's -------------------------------
def _client(*events: tuple[str, dict[str, Any]]) -> Tape:
    tape = Tape()
    tape.handshake({"roots": {}})
    for direction, message in events:
        tape.add(direction, message)
    return tape


def _modern(*events: tuple[str, dict[str, Any]]) -> Tape:
    """A 2026-07-28 client: no initialize, its capabilities on each request."""
    tape = Tape()
    tape.add("in", _msg(id=1, method="server/discover", params={"_meta": MODERN_META}))
    tape.add("out", _msg(id=1, result={"supportedVersions": ["2026-07-28"]}))
    for direction, message in events:
        tape.add(direction, message)
    return tape


ASK = ("out", _msg(id=1, method="roots/list"))
ASK_WITH_TOKEN = ("out", _msg(id=1, method="roots/list", params={"_meta": {"progressToken": "t"}}))
ANSWER = ("in", _msg(id=1, result={"roots": []}))

#: (check, outcome, revision) -> the client's transcript after its handshake
CLIENT: dict[tuple[str, str, str], Callable[[], Tape]] = {
    ("wire-ids", "matched", "2025-11-25"): lambda: _client(ASK, ANSWER),
    ("wire-ids", "unknown-id", "2025-11-25"): lambda: _client(("in", _msg(id=99, result={}))),
    ("wire-ids", "answered-twice", "2025-11-25"): lambda: _client(ASK, ANSWER, ANSWER),
    # the peer asked the client nothing: no answer could be wrong (issue 36, not a pass)
    ("wire-ids", "no-requests", "2025-11-25"): lambda: _client(),
    ("wire-request-ids", "unique", "2025-11-25"): lambda: _client(),
    # a client that never sent a request (not even initialize) reused no id by default
    ("wire-request-ids", "no-requests", "2025-11-25"): lambda: Tape(),
    ("wire-request-ids", "reused-while-pending", "2025-11-25"): lambda: _client(
        ("in", _msg(id=5, method="tools/list")), ("in", _msg(id=5, method="tools/list"))
    ),
    # id 0 was initialize's, answered: any reuse within the session breaks the older rule
    ("wire-request-ids", "reused-after-answer", "2025-11-25"): lambda: _client(
        ("in", _msg(id=0, method="ping"))
    ),
    ("wire-request-ids-modern", "unique", "2026-07-28"): lambda: _modern(),
    ("wire-request-ids-modern", "reused-while-pending", "2026-07-28"): lambda: _modern(
        ("in", _msg(id=5, method="tools/list")), ("in", _msg(id=5, method="tools/list"))
    ),
    # id 1 was server/discover's, answered: from 2026-07-28 it may come back
    ("wire-request-ids-modern", "reused-after-answer", "2026-07-28"): lambda: _modern(
        ("in", _msg(id=1, method="tools/list"))
    ),
    ("wire-client-responses", "none", "2026-07-28"): lambda: _modern(),
    ("wire-client-responses", "responses", "2026-07-28"): lambda: _modern(
        ("in", _msg(id=1, result={}))
    ),
    ("wire-client-responses", "legacy", "2026-07-28"): lambda: _client(ASK, ANSWER),
    ("wire-notification-reply", "no-reply", "2025-11-25"): lambda: _client(
        ("out", _msg(method="notifications/whatever"))
    ),
    ("wire-notification-reply", "no-notifications", "2025-11-25"): lambda: _client(ASK, ANSWER),
    ("wire-notification-reply", "replied", "2025-11-25"): lambda: _client(
        ("out", _msg(method="notifications/whatever")),
        ("in", _msg(id=None, error={"code": -32601, "message": "Method not found"})),
    ),
    ("wire-notification-reply", "no-id", "2025-11-25"): lambda: _client(
        ("in", _msg(error={"code": -32700, "message": "Parse error"}))
    ),
    ("wire-progress", "no-progress", "2025-11-25"): lambda: _client(ASK, ANSWER),
    ("wire-progress", "active-tokens", "2025-11-25"): lambda: _client(
        ASK_WITH_TOKEN, ("in", _progress("t")), ANSWER
    ),
    ("wire-progress", "unknown-token", "2025-11-25"): lambda: _client(("in", _progress(1))),
    ("wire-progress", "after-completion", "2025-11-25"): lambda: _client(
        ASK_WITH_TOKEN, ANSWER, ("in", _progress("t"))
    ),
}


def _grade(scenario: Scenario, check: str, outcome: str) -> str:
    found = next(c for c in [*scenario.checks, *common_checks(scenario.side)] if c.id == check)
    return str(found.outcomes[outcome]["verdict"])


@pytest.mark.parametrize(("check", "outcome", "revision"), list(CLIENT))
def test_client_side_outcome(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    check: str,
    outcome: str,
    revision: str,
) -> None:
    scenario = scenarios["mrtr" if revision >= "2026-07-28" else "roots-list"]
    result = CLIENT[(check, outcome, revision)]().judge(tmp_path, scenario, revision)
    got = result["checks"][check]
    assert got["outcome"] == outcome, got["observed"]
    assert got["verdict"] == _grade(scenario, check, outcome)
    if got["verdict"] == "fail":
        assert got["evidence"], "a fail points at the line that shows it"
        shown = [r for r in got["refs"] if not r.get("supports") or outcome in r["supports"]]
        assert any("MUST" in r["quote"] for r in shown)


@pytest.mark.parametrize("rule", [*HYGIENE, "wire-client-responses"])
def test_every_outcome_has_a_case(rule: str) -> None:
    reached = {o for (c, o, _r) in CLIENT if c.removesuffix("-modern") == rule}
    assert reached == set(RULES[rule].outcomes)


def test_a_second_response_to_one_id_no_longer_reads_matched(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """The issue's first case: wire-ids said matched → pass for a doubled answer."""
    result = _client(ASK, ANSWER, ANSWER).judge(tmp_path, scenarios["roots-list"])
    got = result["checks"]["wire-ids"]
    assert (got["outcome"], got["verdict"]) == ("answered-twice", "informational")
    assert len(got["evidence"]) == 1  # the second answer, not the first


def test_stray_progress_fails_at_every_revision(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """The issue's second case: progress for a token nobody sent read pass."""
    for revision in RELEASED:
        folder = tmp_path / revision
        folder.mkdir()
        result = _client(("in", _progress(1))).judge(folder, scenarios["roots-list"], revision)
        got = result["checks"]["wire-progress"]
        assert (got["verdict"], result["verdict"]) == ("fail", "fail"), revision
        assert any("active request" in r["quote"] for r in got["refs"]), revision


def test_a_response_to_an_id_sent_only_later_is_unknown(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """Pairing is in order: an answer that comes before its question answers nothing."""
    tape = _client(("in", _msg(id=1, result={"roots": []})), ASK, ANSWER)
    got = tape.judge(tmp_path, scenarios["roots-list"])["checks"]["wire-ids"]
    assert got["outcome"] == "unknown-id"


def test_a_reply_to_a_notification_fails_at_every_revision(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    for revision in RELEASED:
        folder = tmp_path / revision
        folder.mkdir()
        tape = _client(("out", _msg(method="notifications/x")), ("in", _msg(id=None, result={})))
        got = tape.judge(folder, scenarios["roots-list"], revision)["checks"]
        assert got["wire-notification-reply"]["verdict"] == "fail", revision
        # not counted twice: the peer asked nothing, so wire-ids has nothing to pair
        assert "wire-ids" in got and got["wire-ids"]["outcome"] == "no-requests"


def test_each_request_id_window_runs_only_at_its_revisions(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    old = _client().judge(tmp_path, scenarios["roots-list"], "2025-11-25")["checks"]
    (tmp_path / "m").mkdir()
    new = _modern().judge(tmp_path / "m", scenarios["mrtr"], "2026-07-28")["checks"]
    assert "wire-request-ids" in old and "wire-request-ids-modern" not in old
    assert "wire-client-responses" not in old
    assert "wire-request-ids-modern" in new and "wire-request-ids" not in new
    assert "wire-client-responses" in new


def test_a_restarted_server_is_a_new_session(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A client that starts the peer twice gets two recorders appending to one transcript,
    each numbering from 1: the second session's initialize (id 0 again) is not a reuse."""
    first, second = _client(ASK, ANSWER), _client(ASK, ANSWER)
    first.records += second.records
    got = first.judge(tmp_path, scenarios["roots-list"])["checks"]
    assert got["wire-request-ids"]["outcome"] == "unique"
    assert got["wire-ids"]["outcome"] == "matched"


# -- the server side: "in" is the server's line, "out" the scripted client's ---------------------
def _server(*events: tuple[str, dict[str, Any]]) -> Tape:
    tape = Tape()
    tape.add("out", _msg(id=0, method="initialize", params={"protocolVersion": "2025-11-25"}))
    info = {"name": "crafted", "version": "1"}
    result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": info}
    tape.add("in", _msg(id=0, result=result))
    tape.add("out", _msg(method="notifications/initialized"))
    for direction, message in events:
        tape.add(direction, message)
    return tape


SERVER: dict[tuple[str, str], Callable[[], Tape]] = {
    ("wire-ids", "matched"): lambda: _server(),
    ("wire-ids", "answered-twice"): lambda: _server(
        ("out", _msg(id=1, method="tools/list")),
        ("in", _msg(id=1, result={"tools": []})),
        ("in", _msg(id=1, result={"tools": []})),
    ),
    ("wire-request-ids", "reused-while-pending"): lambda: _server(
        ("in", _msg(id="r1", method="roots/list")), ("in", _msg(id="r1", method="roots/list"))
    ),
    ("wire-notification-reply", "replied"): lambda: _server(("in", _msg(id=None, result={}))),
    ("wire-progress", "unknown-token"): lambda: _server(("in", _progress("nobody's"))),
    ("wire-progress", "active-tokens"): lambda: _server(
        ("out", _msg(id=1, method="tools/call", params={"_meta": {"progressToken": 7}})),
        ("in", _progress(7)),
        ("in", _msg(id=1, result={"content": []})),
    ),
}


@pytest.mark.parametrize(("check", "outcome"), list(SERVER))
def test_server_side_outcome(
    tmp_path: Path, scenarios: dict[str, Scenario], check: str, outcome: str
) -> None:
    scenario = scenarios["server-notification-reply"]
    result = SERVER[(check, outcome)]().judge(tmp_path, scenario)
    got = result["checks"][check]
    assert (got["outcome"], got["verdict"]) == (outcome, _grade(scenario, check, outcome))


# -- a proxy: the proxy's lines are "in" on both legs --------------------------------------------
def _judge_proxy(
    tmp_path: Path, scenario: Scenario, legs: Legs, revision: str = "2025-11-25"
) -> dict[str, dict[str, Any]]:
    folder = tmp_path / "cell"
    legs.write(folder)
    plan = {"revision": revision, "answer_revision": revision, "capabilities": {}}
    checks, _facts = judge_checks(scenario, folder, plan, KNOWN, {"ended_by": "harness"})
    assert overall(checks, {"ended_by": "harness"})[0] in ("pass", "fail", "informational")
    return {c["id"]: c for c in checks}


def _proxy() -> Legs:
    """Our host's initialize (id 1) answered on the host leg; the proxy's own initialize (id 0)
    answered on upstream connection 1; the peer asks roots/list with id 1 there too."""
    legs = Legs().handshake().upstream(1, 0.2)
    return legs.ask(1, 1.0, rid=1).answer(1, 1.1, rid=1)


def test_proxy_ids_pair_per_leg(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    """Both legs number from their own start (id 1 on each): neither is a stray nor a double."""
    got = _judge_proxy(tmp_path, scenarios["relay-roots"], _proxy())
    assert {k: got[k]["outcome"] for k in HYGIENE} == {
        "wire-ids": "matched",
        "wire-request-ids": "unique",
        "wire-notification-reply": "no-notifications",  # these legs carry none of ours
        "wire-progress": "no-progress",
    }


def _with(legs: Legs, *lines: tuple[int | None, float, str, dict[str, Any]]) -> Legs:
    for conn, t, direction, message in lines:
        legs.line(conn, t, direction, message)
    return legs


PROXY: dict[tuple[str, str], Callable[[], Legs]] = {
    # host leg: the proxy answers our host's initialize a second time
    ("wire-ids", "answered-twice"): lambda: _with(
        _proxy(), (None, 2.0, "in", _msg(id=1, result={}))
    ),
    # upstream leg: the proxy answers the peer's roots/list with an id it never got
    ("wire-ids", "unknown-id"): lambda: _proxy().answer(1, 2.0, rid=42),
    # upstream leg: the proxy's tools/list reuses id 5 while the first waits
    ("wire-request-ids", "reused-while-pending"): lambda: (
        _proxy().forwarded(1, 2.0).forwarded(1, 2.1)
    ),
    # host leg: our host's initialized answered
    ("wire-notification-reply", "replied"): lambda: _with(
        _proxy(),
        (None, 0.6, "out", _msg(method="notifications/initialized")),
        (None, 0.7, "in", _msg(id=None, result={})),
    ),
    # host leg: progress toward our host, whose requests carried no token
    ("wire-progress", "unknown-token"): lambda: _with(_proxy(), (None, 2.0, "in", _progress(3))),
}


@pytest.mark.parametrize(("check", "outcome"), list(PROXY))
def test_proxy_leg_outcome(
    tmp_path: Path, scenarios: dict[str, Scenario], check: str, outcome: str
) -> None:
    scenario = scenarios["relay-roots"]
    got = _judge_proxy(tmp_path, scenario, PROXY[(check, outcome)]())[check]
    assert (got["outcome"], got["verdict"]) == (outcome, _grade(scenario, check, outcome))
    assert got["evidence"]
    # the finding names the leg it happened on (a chain's upstream leg may be another program)
    assert " leg" in got["observed"] or "upstream connection" in got["observed"]


def test_a_new_upstream_connection_may_start_its_ids_again(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """fastmcp opens an upstream session per forwarded request, each numbering from 0."""
    legs = _proxy().upstream(2, 3.0)
    got = _judge_proxy(tmp_path, scenarios["relay-roots"], legs)
    assert got["wire-request-ids"]["outcome"] == "unique"
