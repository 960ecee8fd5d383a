"""The peer's HTTP ends (``peer/_http_server``) in-process: framing, session id, where each
message the peer writes goes (a pending POST's stream, the GET stream, held), and the bytes
the transcript keeps.

A real socket on 127.0.0.1 and the standard library's client are used; the routing is driven
the way ``Peer.send`` drives it (``Out.write``), so what is asserted is what a proxy sees.
"""

from __future__ import annotations

import http.client
import json
import queue
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from compare.peer import _sse
from compare.peer._http_server import Out, Upstream
from compare.peer._record import Transcript

INIT = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}'
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
ASK = b'{"jsonrpc":"2.0","id":7,"method":"roots/list"}'


class Served:
    def __init__(self, tmp_path: Path, **transport: Any) -> None:
        self.tx = Transcript(str(tmp_path / "t.jsonl"), 1000, 1 << 20)
        self.path = tmp_path / "t.jsonl"
        self.inbox: queue.Queue[Any] = queue.Queue()
        self.up = Upstream({"kind": "http", **transport}, self.tx, self.open)
        self.port = self.up.start()
        self.sid = ""

    def open(self, sid: str) -> Any:
        """What the peer process does per session; here every session shares one record."""
        self.sid = sid
        return SimpleNamespace(tx=self.tx, inbox=self.inbox, closed=False)

    @property
    def out(self) -> Out:
        return Out(self.up, self.sid)

    def post(self, body: bytes, session: str | None = None) -> http.client.HTTPResponse:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream"}  # fmt: skip
        if session:
            headers["Mcp-Session-Id"] = session
        conn.request("POST", "/mcp", body=body, headers=headers)
        return conn.getresponse()

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in self.path.read_text().splitlines()]

    def notes(self, event: str) -> list[dict[str, Any]]:
        found = [json.loads(r["raw"]) for r in self.records() if r["dir"] == "note"]
        return [n for n in found if n.get("event") == event]

    def answer_next(self, result: dict[str, Any] | None = None) -> Any:
        """What the peer's main loop does: take the next message, write its response."""
        _n, msg, _error, _blank = self.inbox.get(timeout=5)
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": result or {}}
        self.out.write(json.dumps(reply, separators=(",", ":")).encode() + b"\n")
        return msg

    def close(self) -> None:
        self.up.close()
        self.tx.close()


@pytest.fixture
def served(tmp_path: Path) -> Any:
    s = Served(tmp_path)
    yield s
    s.close()


def _events(resp: http.client.HTTPResponse) -> list[tuple[str, bytes, str | None]]:
    return list(_sse.Parser().events(resp))


def _initialize(s: Served) -> str:
    box: dict[str, Any] = {}
    t = threading.Thread(target=lambda: box.update(resp=s.post(INIT)))
    t.start()
    s.answer_next({"protocolVersion": "2025-06-18"})
    t.join(5)
    resp = box["resp"]
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
    events = _events(resp)
    assert [json.loads(d)["id"] for _, d, _ in events] == [0]
    sid = resp.getheader("Mcp-Session-Id")
    assert sid
    return str(sid)


def test_a_request_gets_an_sse_response_and_a_session_id_its_bytes_recorded(served: Any) -> None:
    _initialize(served)
    ins = [r["raw"] for r in served.records() if r["dir"] == "in"]
    assert ins == [INIT.decode()]
    assert served.notes("http-post")[0]["new_session"]


def test_every_post_but_initialize_needs_a_session_of_ours(served: Any) -> None:
    assert served.post(INITIALIZED).status == 400  # before any session, too
    sid = _initialize(served)
    assert served.post(INITIALIZED).status == 400
    assert served.post(INITIALIZED, "not-it").status == 404
    resp = served.post(INITIALIZED, sid)
    assert resp.status == 202
    assert served.inbox.get(timeout=5)[1]["method"] == "notifications/initialized"


def test_a_request_of_ours_rides_a_pending_tool_calls_stream_before_its_response(
    served: Any,
) -> None:
    sid = _initialize(served)
    call = b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe"}}'
    box: dict[str, Any] = {}
    t = threading.Thread(target=lambda: box.update(resp=served.post(call, sid)))
    t.start()
    _n, msg, _e, _b = served.inbox.get(timeout=5)
    assert msg["id"] == 5
    served.out.write(ASK + b"\n")  # asked while tools/call is pending
    served.out.write(b'{"jsonrpc":"2.0","id":5,"result":{"content":[]}}\n')
    t.join(5)
    events = _events(box["resp"])
    assert [json.loads(d).get("method") or json.loads(d)["id"] for _, d, _ in events] == [
        "roots/list",
        5,
    ]
    assert events[0][1] == ASK  # the recorded bytes are the event's data
    routed = served.notes("routed")
    assert routed[-2]["to"] == "post-2" and routed[-2]["method"] == "roots/list"


def test_with_no_stream_open_a_request_is_held_until_a_get_stream_opens(served: Any) -> None:
    sid = _initialize(served)
    listing = threading.Thread(
        target=lambda: served.post(b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}', sid)
    )
    listing.start()
    served.inbox.get(timeout=5)
    served.out.write(ASK + b"\n")  # a pending tools/list is no stream for an unrelated ask
    assert served.notes("routed")[-1]["to"] == "held"
    served.out.write(b'{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}\n')
    listing.join(5)
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
    conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": sid})
    resp = conn.getresponse()
    assert resp.status == 200
    name, data, _ = next(_sse.Parser().events(resp))
    assert (name, data) == ("message", ASK)
    deadline = time.monotonic() + 5  # the note follows the write the client just read
    while not served.notes("routed")[-1].get("was_held") and time.monotonic() < deadline:
        time.sleep(0.01)
    last = served.notes("routed")[-1]
    assert last["to"] == "get-stream" and last["was_held"] and last["delivered"]


def test_get_is_refused_when_the_plan_offers_no_standalone_stream(tmp_path: Path) -> None:
    s = Served(tmp_path, get_stream=False)
    try:
        sid = _initialize(s)
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
        conn.request("GET", "/mcp", headers={"Accept": "text/event-stream", "Mcp-Session-Id": sid})
        assert conn.getresponse().status == 405
    finally:
        s.close()


def test_json_response_mode_answers_with_one_json_body(tmp_path: Path) -> None:
    s = Served(tmp_path, response="json")
    try:
        box: dict[str, Any] = {}
        t = threading.Thread(target=lambda: box.update(resp=s.post(INIT)))
        t.start()
        s.answer_next({"protocolVersion": "2025-06-18"})
        t.join(5)
        resp = box["resp"]
        assert resp.getheader("Content-Type") == "application/json"
        assert json.loads(resp.read())["id"] == 0
    finally:
        s.close()


def test_legacy_sse_sends_the_endpoint_then_messages_on_its_stream(tmp_path: Path) -> None:
    tx = Transcript(str(tmp_path / "t.jsonl"), 1000, 1 << 20)
    inbox: queue.Queue[Any] = queue.Queue()
    opened: list[str] = []

    def open_(sid: str) -> Any:
        opened.append(sid)
        return SimpleNamespace(tx=tx, inbox=inbox, closed=False)

    up = Upstream({"kind": "sse"}, tx, open_)
    port = up.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/sse", headers={"Accept": "text/event-stream"})
        resp = conn.getresponse()
        events = _sse.Parser().events(resp)
        name, endpoint, _ = next(events)
        assert name == "endpoint" and endpoint.startswith(b"/messages?sessionId=")
        post = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        post.request("POST", endpoint.decode(), body=INIT,
                     headers={"Content-Type": "application/json"})  # fmt: skip
        assert post.getresponse().status == 202
        assert inbox.get(timeout=5)[1]["method"] == "initialize"
        Out(up, opened[0]).write(b'{"jsonrpc":"2.0","id":0,"result":{}}\n')
        assert next(events)[1] == b'{"jsonrpc":"2.0","id":0,"result":{}}'
    finally:
        up.close()
        tx.close()


def test_the_server_listens_on_127_0_0_1_only(served: Any) -> None:
    rows = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(name).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            addr, hexport = local.rsplit(":", 1)
            if state == "0A" and int(hexport, 16) == served.port:
                rows.append(addr)
    assert rows == ["0100007F"]


def test_sse_parser_joins_data_lines_and_skips_comments() -> None:
    p = _sse.Parser()
    got = [p.feed_line(x) for x in (b": hi\n", b"event: x\n", b"data: a\n", b"data:b\n", b"\n")]
    assert got[-1] == ("x", b"a\nb", None) and got[:-1] == [None] * 4
    assert _sse.event(b"z", event_id="3") == b"id: 3\nevent: message\ndata: z\n\n"
    assert _sse.chunk(b"") == b"0\r\n\r\n"


def test_an_expired_session_is_answered_404_and_a_new_one_is_kept(tmp_path: Path) -> None:
    """``expire_session: after-initialized``: the first session ends once its client is
    initialized; a request naming it meets 404, and the next initialize opens one that stays."""
    s = Served(tmp_path, expire_session="after-initialized")
    try:
        sid = _initialize(s)
        assert s.post(INITIALIZED, session=sid).status == 202
        assert s.notes("session-expired")[0]["session"] == sid
        assert s.post(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', session=sid).status == 404
        s.inbox.get(timeout=5)  # the initialized notification, fed before the expiry
        second = _initialize(s)
        assert second != sid
        assert s.post(INITIALIZED, session=second).status == 202
        assert len(s.notes("session-expired")) == 1  # only the first session ends
    finally:
        s.close()


def test_each_post_notes_what_its_body_carries(served: Any) -> None:
    _initialize(served)
    carried = [n["carries"] for n in served.notes("http-post")]
    assert carried == [["initialize"]]
    resp = served.post(b'[{"jsonrpc":"2.0","id":5,"result":{}},"x"]', session=served.sid)
    resp.read()
    assert [n["carries"] for n in served.notes("http-post")][-1] == ["response", "other"]


def test_a_json_mode_post_left_unanswered_gets_503_not_an_empty_array(tmp_path: Path) -> None:
    s = Served(tmp_path, response="json")
    try:
        box: dict[str, Any] = {}
        t = threading.Thread(target=lambda: box.update(resp=s.post(INIT)))
        t.start()
        s.inbox.get(timeout=5)  # taken, never answered: the session ends first
        s.up.close()
        t.join(10)
        resp = box["resp"]
        assert resp.status == 503
        assert b"[" not in resp.read()
    finally:
        s.tx.close()
