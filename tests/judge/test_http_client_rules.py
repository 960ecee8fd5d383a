"""The rules of a client handed our server's URL, from crafted cells: what the peer notes of
each HTTP request (``http-post`` with what it carries and the headers as sent, ``http-get``,
``session-deleted``, ``session-expired``, ``routed``), graded as the client-http-* scenarios
grade them. Every outcome a check declares is reached by some case, so a grading that could
not fail would show here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario, load_scenarios

from .test_judge import Tape

SID = "5f1c0a9e"
BOTH = "application/json, text/event-stream"
HTTP = {"kind": "http", "port": 4242, "path": "/mcp"}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


class HttpTape(Tape):
    """A client's session with our peer over HTTP, as the merged transcript holds it."""

    def post(self, carries: str, *, session: str | None = SID, **fields: Any) -> int:
        base = {"accept": BOTH, "protocol_version": "2025-11-25", "status": 200, "path": "/mcp"}
        return self.note(
            event="http-post", carries=[carries], session=session, **{**base, **fields}
        )

    def init_post(self, session: str | None = None, **fields: Any) -> int:
        """The POST of initialize (naming no session unless told): assigned one by default."""
        base = {"accept": BOTH, "protocol_version": None, "status": 200, "new_session": SID}
        return self.post("initialize", session=session, **{**base, **fields})

    def open(self, version: str = "2025-11-25", accept: str = BOTH) -> None:
        """initialize (assigned a session) and initialized, each POSTed."""
        self.init_post(accept=accept, response="sse")
        self.handshake({}, version)
        self.post("notifications/initialized", status=202, protocol_version=version, accept=accept)

    def get(self, status: int = 200, **fields: Any) -> int:
        base = {"accept": "text/event-stream", "session": SID, "path": "/mcp"}
        return self.note(event="http-get", status=status, **{**base, **fields})


def grade(
    tmp: Path,
    scenario: Scenario,
    tape: Tape,
    check: str,
    rev: str = "2025-11-25",
    ended_by: str = "harness",
    **plan: Any,
) -> tuple[str, str]:
    process = {"ended_by": ended_by, "exit_code": 0, "ends": "harness"}
    got = tape.judge(tmp, scenario, rev, process, **{"transport": HTTP, **plan})["checks"][check]
    return got["outcome"], got["verdict"]


# -- client-http-session ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "outcome", "verdict"),
    [
        ("both", "listed", "pass"),
        ("post-json-only", "incomplete", "fail"),
        ("post-none", "absent", "fail"),
        ("get-json-only", "incomplete", "fail"),
        ("probe-before-session", "listed", "pass"),
        ("well-known", "listed", "pass"),
    ],
)
def test_accept_on_each_post_and_get(
    tmp_path: Path, scenarios: dict[str, Scenario], case: str, outcome: str, verdict: str
) -> None:
    tape = HttpTape()
    if case == "probe-before-session":  # an authorization probe, not a listen
        tape.get(status=400, accept="application/json", session=None)
    tape.open()
    if case == "post-json-only":
        tape.post("tools/list", accept="application/json")
    elif case == "post-none":
        tape.post("tools/list", accept=None)
    elif case == "get-json-only":
        tape.get(accept="application/json")
    elif case == "well-known":
        tape.get(status=404, accept="*/*", path="/.well-known/oauth-protected-resource")
    assert grade(tmp_path, scenarios["client-http-session"], tape, "accept") == (outcome, verdict)


@pytest.mark.parametrize(
    ("case", "outcome", "verdict"),
    [
        ("resent", "resent", "pass"),
        ("missing", "missing", "fail"),
        ("other", "other-id", "fail"),
        ("none-assigned", "no-session", "informational"),
        ("nothing-after", "no-later-request", "not-exercised"),
    ],
)
def test_the_session_id_on_every_later_request(
    tmp_path: Path, scenarios: dict[str, Scenario], case: str, outcome: str, verdict: str
) -> None:
    tape = HttpTape()
    if case == "none-assigned":
        tape.init_post(new_session=None)
        tape.handshake({})
    elif case == "nothing-after":
        tape.init_post()
        tape.handshake({})
    else:
        tape.open()
        sid = {"resent": SID, "missing": None, "other": "not-ours"}[case]
        tape.post("tools/list", session=sid, status=400 if sid is None else 200)
    assert grade(tmp_path, scenarios["client-http-session"], tape, "session-id") == (
        outcome,
        verdict,
    )


@pytest.mark.parametrize(
    ("sent", "rev", "check", "outcome", "verdict"),
    [
        ("2025-11-25", "2025-11-25", "version-header", "negotiated", "pass"),
        (None, "2025-11-25", "version-header", "missing", "fail"),
        ("2025-06-18", "2025-11-25", "version-header", "other-version", "non-strict"),
        (None, "2025-03-26", "version-header-early", "missing", "informational"),
    ],
)
def test_the_protocol_version_header_after_initialize(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    sent: str | None,
    rev: str,
    check: str,
    outcome: str,
    verdict: str,
) -> None:
    tape = HttpTape()
    tape.open(version=rev)
    tape.post("tools/list", protocol_version=sent)
    got = grade(tmp_path, scenarios["client-http-session"], tape, check, rev=rev)
    assert got == (outcome, verdict)


def test_no_request_after_initialize_leaves_the_version_header_untested(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = HttpTape()
    tape.init_post()
    tape.handshake({})
    got = grade(tmp_path, scenarios["client-http-session"], tape, "version-header")
    assert got == ("no-later-request", "not-exercised")


@pytest.mark.parametrize(("status", "outcome"), [(200, "opened"), (405, "not-opened")])
def test_whether_the_client_opens_the_get_stream(
    tmp_path: Path, scenarios: dict[str, Scenario], status: int, outcome: str
) -> None:
    tape = HttpTape()
    tape.open()
    tape.get(status=status)
    got = grade(tmp_path, scenarios["client-http-session"], tape, "get-stream")
    assert got == (outcome, "informational")


def _ping(tape: HttpTape, to: str, answered: bool, after: bool = False) -> None:
    tape.note(event="step", index=2, step={"request": "ping", "label": "server-ping"})
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    tape.note(event="routed", to=to, id=1, method="ping")
    if answered:
        tape.post("response", status=202)
        tape.add("in", {"jsonrpc": "2.0", "id": 1, "result": {}})
    if after:
        tape.post("tools/list")


@pytest.mark.parametrize(
    ("to", "answered", "after", "ended_by", "outcome", "verdict"),
    [
        ("get-stream", True, False, "harness", "answered", "pass"),
        ("held", False, False, "harness", "held", "informational"),
        ("get-stream", False, False, "harness", "unanswered", "fail"),
        ("get-stream", False, True, "self", "closed", "not-exercised"),
        ("get-stream", False, False, "self", "closed", "not-exercised"),
    ],
)
def test_a_ping_between_the_clients_requests(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    to: str,
    answered: bool,
    after: bool,
    ended_by: str,
    outcome: str,
    verdict: str,
) -> None:
    tape = HttpTape()
    tape.open()
    _ping(tape, to, answered, after)
    got = grade(tmp_path, scenarios["client-http-session"], tape, "server-ping", ended_by=ended_by)
    assert got == (outcome, verdict)


def test_a_ping_never_sent_is_not_exercised(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    tape = HttpTape()
    tape.open()
    got = grade(tmp_path, scenarios["client-http-session"], tape, "server-ping")
    assert got == ("not-sent", "not-exercised")


# -- client-http-call-stream ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("to", "answered", "outcome", "verdict"),
    [
        ("post-3", True, "answered", "pass"),
        ("post-3", False, "unanswered", "fail"),
        ("get-stream", True, "elsewhere", "not-exercised"),
    ],
)
def test_a_ping_on_the_stream_of_the_clients_call(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    to: str,
    answered: bool,
    outcome: str,
    verdict: str,
) -> None:
    tape = HttpTape()
    tape.open()
    tape.post("tools/call")
    tape.note(event="step", index=2, step={"request": "ping", "label": "in-call-ping"})
    tape.add("out", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
    tape.note(event="routed", to=to, id=1, method="ping")
    if answered:
        tape.add("in", {"jsonrpc": "2.0", "id": 1, "result": {}})
    got = grade(tmp_path, scenarios["client-http-call-stream"], tape, "in-call-request")
    assert got == (outcome, verdict)


# -- client-http-json: the JSON answer, and DELETE on close --------------------------------


@pytest.mark.parametrize(
    ("response", "went_on", "outcome", "verdict"),
    [
        ("json", True, "went-on", "pass"),
        ("json", False, "stopped", "fail"),
        ("sse", True, "not-json", "not-exercised"),
    ],
)
def test_a_json_answer_to_initialize(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    response: str,
    went_on: bool,
    outcome: str,
    verdict: str,
) -> None:
    tape = HttpTape()
    tape.init_post(response=response)
    params = {"protocolVersion": "2025-11-25", "capabilities": {},
              "clientInfo": {"name": "c", "version": "1"}}  # fmt: skip
    tape.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    result = {"protocolVersion": "2025-11-25", "capabilities": {},
              "serverInfo": {"name": "p", "version": "0"}}  # fmt: skip
    tape.add("out", {"jsonrpc": "2.0", "id": 0, "result": result})
    if went_on:
        tape.add("in", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    # a client that stops after initialize is still running: the harness ends it
    got = grade(tmp_path, scenarios["client-http-json"], tape, "json-answer")
    assert got == (outcome, verdict)


@pytest.mark.parametrize(
    ("deleted", "ended_by", "outcome", "verdict"),
    [
        (True, "self", "deleted", "pass"),
        (False, "self", "not-deleted", "non-strict"),
        (False, "harness", "not-ended", "not-exercised"),
    ],
)
def test_a_delete_when_the_client_ends_its_session(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    deleted: bool,
    ended_by: str,
    outcome: str,
    verdict: str,
) -> None:
    tape = HttpTape()
    tape.open()
    if deleted:
        tape.note(event="session-deleted", session=SID, status=200, protocol_version="2025-11-25")
    got = grade(tmp_path, scenarios["client-http-json"], tape, "delete", ended_by=ended_by)
    assert got == (outcome, verdict)


# -- client-http-expired --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("after", "outcome", "verdict"),
    [
        ("fresh", "new-session", "pass"),
        ("old-id", "old-id-attached", "fail"),
        ("nothing", "no-new-session", "fail"),
        ("no-request", "no-request-after", "not-exercised"),
    ],
)
def test_a_new_session_after_404(
    tmp_path: Path, scenarios: dict[str, Scenario], after: str, outcome: str, verdict: str
) -> None:
    tape = HttpTape()
    tape.open()
    tape.note(event="session-expired", session=SID, why="crafted")
    if after != "no-request":
        tape.post("tools/list", status=404, refused="session ended by the server")
    if after in ("fresh", "old-id"):
        tape.init_post(
            session=SID if after == "old-id" else None, status=200, new_session="a-second-one"
        )
    got = grade(tmp_path, scenarios["client-http-expired"], tape, "new-session")
    assert got == (outcome, verdict)


# -- client-http-legacy ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "outcome"),
    [("initialized", "fell-back"), ("stream-only", "tried-get"), ("none", "no-fallback")],
)
def test_the_fallback_to_the_old_transport(
    tmp_path: Path, scenarios: dict[str, Scenario], case: str, outcome: str
) -> None:
    tape = HttpTape()
    tape.init_post(status=404, refused="unknown sessionId", new_session=None)
    if case != "none":
        tape.note(event="http-get", path="/mcp", accept="text/event-stream", session=None,
                  status=200, stream="sse", new_session=SID)  # fmt: skip
    if case == "initialized":
        tape.handshake({})
    got = grade(tmp_path, scenarios["client-http-legacy"], tape, "fallback",
                transport={"kind": "sse", "path": "/mcp"})  # fmt: skip
    assert got == (outcome, "informational")
