"""The HTTP-level server rules from crafted cells: http-status (a probe's answer, or a session
POST's), http-session-id and http-bind, as server-http-session grades them. The notes are
the scripted client's (``http-post``, ``http-probe``, ``proxy-listening``); between them the
cases reach every outcome the scenario declares for these checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge.rules.http import status_word

from .test_server_modern_rules import ServerTape


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenario(pinned_spec: Path) -> Scenario:
    return next(s for s in load_scenarios() if s.id == "server-http-session")


def session(sid: str | None = "0b5c-4f1e", listening: dict[str, Any] | None = None) -> ServerTape:
    """A session over HTTP: where the server listened, initialize and initialized POSTed."""
    tape = ServerTape()
    listen = {"port": 4242, "listening": True, "url": "http://127.0.0.1:4242/mcp"}
    tape.note(event="proxy-listening", **{**listen, **(listening or {})})
    tape.initialize()
    tape.note(event="http-post", post="post-1", method="initialize", id=1, status=200,
              content_type="application/json", session=sid)  # fmt: skip
    tape.note(event="http-post", post="post-2", method="notifications/initialized", id=None,
              status=202, content_type="", session=None)  # fmt: skip
    return tape


def probe(tape: ServerTape, label: str, **answer: Any) -> ServerTape:
    tape.note(event="http-probe", label=label, method="POST", session="current", sent={}, **answer)
    return tape


def check(
    tmp: Path, scenario: Scenario, tape: ServerTape, name: str, rev: str = "2025-11-25"
) -> dict[str, Any]:
    got: dict[str, Any] = tape.judge(tmp, scenario, rev)["checks"][name]
    declared = next(c for c in scenario.checks if c.id == name).outcomes
    assert got["outcome"] in declared, got
    return got


@pytest.mark.parametrize(
    ("status", "ctype", "word"),
    [
        (202, "", "accepted"),
        (200, "text/event-stream", "stream"),
        (200, "Text/Event-Stream; charset=utf-8", "stream"),
        (204, "", "success"),
        (200, "application/json", "success"),
        (400, "application/json", "bad-request"),
        (403, "", "forbidden"),
        (404, "", "not-found"),
        (405, "", "not-allowed"),
        (406, "", "other-4xx"),
        (500, "", "server-error"),
        (302, "", "other-status"),
    ],
)
def test_a_status_reads_as_one_word(status: int, ctype: str, word: str) -> None:
    assert status_word(status, ctype) == word


@pytest.mark.parametrize(
    ("answer", "outcome", "verdict"),
    [
        ({"status": 404, "headers": {"content-type": "application/json"}}, "not-found", "pass"),
        ({"status": 400, "body": '{"error": "No valid session ID"}'}, "bad-request", "fail"),
        ({"status": 200, "content_type": "text/event-stream"}, "stream", "fail"),
        ({"error": "ConnectionResetError: reset"}, "no-answer", "informational"),
        ({"ran": False, "why": "no DELETE ended the session"}, "not-run", "not-exercised"),
    ],
)
def test_the_ended_session_probe_is_graded_on_its_status(
    tmp_path: Path, scenario: Scenario, answer: dict[str, Any], outcome: str, verdict: str
) -> None:
    got = check(tmp_path, scenario, probe(session(), "ended-session", **answer), "ended-session")
    assert (got["outcome"], got["verdict"]) == (outcome, verdict)
    if outcome == "bad-request":  # the body is quoted in what was observed
        assert "No valid session ID" in got["observed"]


def test_a_probe_never_sent_is_not_reached_not_graded(tmp_path: Path, scenario: Scenario) -> None:
    got = check(tmp_path, scenario, session(), "ended-session")
    assert (got["outcome"], got["verdict"]) == ("not-reached", "informational")


def test_the_origin_status_is_graded_by_revision(tmp_path: Path, scenario: Scenario) -> None:
    """Before 2025-11-25 any refusal passes; from it, only the 403 the page names."""
    refused = probe(session(), "foreign-origin", status=400)
    early = check(tmp_path, scenario, refused, "foreign-origin", "2025-06-18")
    late = check(tmp_path, scenario, refused, "foreign-origin-403", "2025-11-25")
    assert (early["verdict"], late["verdict"]) == ("pass", "fail")
    served = probe(session(), "foreign-origin", status=200, content_type="text/event-stream")
    assert check(tmp_path, scenario, served, "foreign-origin-403")["verdict"] == "fail"
    forbidden = probe(session(), "foreign-origin", status=403)
    assert check(tmp_path, scenario, forbidden, "foreign-origin-403")["verdict"] == "pass"


def test_a_session_post_is_read_by_its_method(tmp_path: Path, scenario: Scenario) -> None:
    got = check(tmp_path, scenario, session(), "initialized-accepted")
    assert (got["outcome"], got["verdict"]) == ("accepted", "pass")
    tape = ServerTape()
    tape.initialize()
    tape.note(event="http-post", post="post-2", method="notifications/initialized", status=200,
              content_type="application/json")  # fmt: skip
    got = check(tmp_path, scenario, tape, "initialized-accepted")
    assert (got["outcome"], got["verdict"]) == ("success", "fail")


@pytest.mark.parametrize(
    ("sid", "outcome", "verdict"),
    [
        ("0b5c-4f1e", "assigned", "pass"),
        ("has space", "not-visible-ascii", "fail"),
        ("caf\u00e9", "not-visible-ascii", "fail"),
        (None, "none", "informational"),
    ],
)
def test_the_session_id_holds_visible_ascii_only(
    tmp_path: Path, scenario: Scenario, sid: str | None, outcome: str, verdict: str
) -> None:
    got = check(tmp_path, scenario, session(sid), "session-id")
    assert (got["outcome"], got["verdict"]) == (outcome, verdict)


@pytest.mark.parametrize(
    ("listening", "outcome", "verdict"),
    [
        ({"asked": [{"host": None, "port": 4242}], "bound": ["127.0.0.1"]}, "every-interface",
         "non-strict"),
        ({"asked": [{"host": "0.0.0.0", "port": 4242}]}, "every-interface", "non-strict"),
        ({"asked": [{"host": "127.0.0.1", "port": 4242}]}, "loopback", "pass"),
        ({"asked": [{"host": "localhost", "port": 4242}]}, "loopback", "pass"),
        ({"asked": [{"host": "192.0.2.7", "port": 4242}]}, "other-address", "informational"),
        ({"asked": None, "bound": ["127.0.0.1"]}, "not-recorded", "not-exercised"),
        ({"listening": False}, "not-listening", "informational"),
        # a server the user started (check --server URL): where it listens is its own choice
        ({"external": True, "bound": ["::"]}, "every-interface", "non-strict"),
        ({"external": True, "bound": ["127.0.0.1"]}, "loopback", "pass"),
        ({"external": True, "bound": ["192.0.2.7"]}, "other-address", "informational"),
    ],
)  # fmt: skip
def test_the_bind_is_read_from_what_the_program_asked_for(
    tmp_path: Path, scenario: Scenario, listening: dict[str, Any], outcome: str, verdict: str
) -> None:
    got = check(tmp_path, scenario, session(listening=listening), "bind")
    assert (got["outcome"], got["verdict"]) == (outcome, verdict)


@pytest.mark.parametrize(("transport", "page"), [(None, "transports.mdx"), ("http", "index.mdx")])
def test_the_wire_checks_cite_the_sentence_of_the_transport_travelled(
    tmp_path: Path, scenario: Scenario, transport: str | None, page: str
) -> None:
    """What may go on stdout is the stdio page's rule: over HTTP a server's non-JSON answer
    breaks the base protocol's JSON-RPC sentence instead, and that is the one cited."""
    plan = {"transport": {"kind": transport}} if transport else {}
    checks = session().judge(tmp_path, scenario, "2025-11-25", **plan)["checks"]
    for name in ("wire-json", "wire-valid"):
        cited = [str(ref["cite"]) for ref in checks[name]["refs"]]
        assert cited and all(page in c for c in cited), (name, cited)


def _batch(tape: ServerTape, answers: list[dict[str, Any]], **note: Any) -> ServerTape:
    """The batch probe: the array we sent, what came back (as lines), then its note."""
    sent = [{"jsonrpc": "2.0", "id": f"probe-batch-{i}", "method": "ping"} for i in (1, 2)]
    tape.add("out", sent)
    if answers:
        tape.add("in", answers)
    return probe(tape, "batch", **note)


@pytest.mark.parametrize(
    ("answers", "note", "outcome", "verdict"),
    [
        (
            [{"jsonrpc": "2.0", "id": f"probe-batch-{i}", "result": {}} for i in (1, 2)],
            {"status": 200, "headers": {"content-type": "application/json"}},
            "answered",
            "pass",
        ),
        (
            [{"jsonrpc": "2.0", "id": "probe-batch-1", "result": {}}],
            {"status": 200, "headers": {"content-type": "application/json"}},
            "partly-answered",
            "fail",
        ),
        (
            {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "no arrays"}},
            {"status": 200, "headers": {"content-type": "application/json"}},
            "error-answer",
            "fail",
        ),
        ([], {"status": 400, "body": "Validation error"}, "bad-request", "fail"),
        ([], {"ran": False, "why": "the probe is played only at 2025-03-26"}, "not-run",
         "not-exercised"),
    ],
)  # fmt: skip
def test_a_batch_at_2025_03_26_is_answered_member_by_member(
    tmp_path: Path,
    scenario: Scenario,
    answers: Any,
    note: dict[str, Any],
    outcome: str,
    verdict: str,
) -> None:
    tape = _batch(session(), answers if isinstance(answers, list) else [answers], **note)
    if not isinstance(answers, list):  # one error object, not an array
        tape.records[-2]["raw"] = json.dumps(answers)
    got = check(tmp_path, scenario, tape, "batch", "2025-03-26")
    assert (got["outcome"], got["verdict"]) == (outcome, verdict)


def _stream(tape: ServerTape, first: dict[str, Any] | None, with_ids: int) -> ServerTape:
    tape.note(event="stream-opened", stream="post-3", id=2)
    if first is not None:
        tape.note(event="sse-first-event", stream="post-3", **first)
    tape.note(event="stream-closed", stream="post-3", messages=1, with_ids=with_ids)
    return tape


@pytest.mark.parametrize(
    ("first", "outcome", "verdict"),
    [
        ({"name": "message", "id": "ev-1", "empty": True}, "primed", "pass"),
        ({"name": "message", "id": None, "empty": False}, "not-primed", "non-strict"),
        ({"name": "message", "id": "ev-1", "empty": False}, "not-primed", "non-strict"),
        (None, "not-primed", "non-strict"),
    ],
)
def test_an_sse_answer_is_primed_with_an_event_id_and_no_data(
    tmp_path: Path, scenario: Scenario, first: dict[str, Any] | None, outcome: str, verdict: str
) -> None:
    got = check(tmp_path, scenario, _stream(session(), first, 0), "sse-priming")
    assert (got["outcome"], got["verdict"]) == (outcome, verdict)


def test_json_answers_leave_the_stream_checks_untested(tmp_path: Path, scenario: Scenario) -> None:
    for name in ("sse-priming", "sse-event-ids"):
        got = check(tmp_path, scenario, session(), name)
        assert (got["outcome"], got["verdict"]) == ("no-stream", "not-exercised")


@pytest.mark.parametrize(("with_ids", "outcome"), [(2, "ids"), (0, "no-ids")])
def test_event_ids_are_recorded(
    tmp_path: Path, scenario: Scenario, with_ids: int, outcome: str
) -> None:
    tape = _stream(session(), {"name": "message", "id": None, "empty": False}, with_ids)
    got = check(tmp_path, scenario, tape, "sse-event-ids")
    assert (got["outcome"], got["verdict"]) == (outcome, "informational")


@pytest.mark.parametrize(
    ("answer", "note", "outcome"),
    [
        ({"error": {"code": -32602, "message": "bad"}}, {"status": 400}, "no-session"),
        (
            {"error": {"code": -32602, "message": "bad"}},
            {"status": 200, "headers": {"mcp-session-id": "s-2"}},
            "session-assigned",
        ),
        ({"result": {"protocolVersion": "2025-11-25"}}, {"status": 200}, "accepted"),
    ],
)
def test_a_refused_initialize_and_the_session_it_gets(
    tmp_path: Path, scenario: Scenario, answer: dict[str, Any], note: dict[str, Any], outcome: str
) -> None:
    tape = session()
    tape.add(
        "out", {"jsonrpc": "2.0", "id": "probe-bad-init", "method": "initialize", "params": {}}
    )
    tape.add("in", {"jsonrpc": "2.0", "id": "probe-bad-init", **answer})
    got = check(tmp_path, scenario, probe(tape, "bad-initialize", **note), "bad-initialize")
    assert (got["outcome"], got["verdict"]) == (outcome, "informational")
