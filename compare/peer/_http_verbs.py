"""The HTTP verbs of the peer's HTTP ends (``_http_server``): POST, GET and DELETE for
Streamable HTTP, GET ``/sse`` and POST ``/messages`` for the legacy HTTP+SSE transport.

Kept apart from the routing state so each module stays small. Each verb records what it saw
as a note of the session it belongs to (the process's own record when none), hands every
message body to that session's peer through ``Upstream.feed``, and keeps a response stream
open for exactly as long as the transport says: a POST's until its requests are answered, a
GET's or legacy SSE's until the peer ends.
"""

from __future__ import annotations

import http.server
import json
import secrets
import urllib.parse

from . import _sse
from ._http_server import POST_WAIT_S, SESSION_HEADER, Stream

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

    from ._http_server import Upstream
    from ._record import Transcript


class Handler(http.server.BaseHTTPRequestHandler):
    """One HTTP request. Chunked bodies are read too; every answer is HTTP/1.1."""

    upstream: Upstream
    protocol_version = "HTTP/1.1"
    server_version = "mcp-compare-peer"

    def log_message(self, format: str, *args: Any) -> None:
        return  # the transcript notes are the log

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _plain(self, status: int, text: str, extra: dict[str, str] | None = None) -> None:
        data = text.encode("utf-8")
        self.send_response(status)
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _open_sse(self, extra: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for key, value in extra.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.flush()

    def _hold_open(self, stream: Stream) -> None:
        """Keep a GET or SSE stream open until the peer ends, then end it cleanly."""
        up = self.upstream
        up.opened(stream)
        while not up.closing.wait(0.5) and not stream.broken:
            pass
        up.closed(stream)
        self._end_chunks(stream)
        up.tx_of(stream.session).note(event="stream-closed", stream=stream.label,
                                      broken=stream.broken)  # fmt: skip

    def _end_chunks(self, stream: Stream) -> None:
        with stream.lock:
            stream.done.set()
            try:
                self.wfile.write(_sse.chunk(b""))
                self.wfile.flush()
            except (OSError, ValueError):
                stream.broken = True

    def _session_of(self) -> tuple[str, str | None]:
        """(session id sent, why it is refused or None): every request but initialize needs
        the id of a session this server opened."""
        sid = self.headers.get(SESSION_HEADER)
        if sid is None:
            return "", "400: no Mcp-Session-Id on a request other than initialize"
        if sid not in self.upstream.sessions:
            return sid, "404: unknown Mcp-Session-Id"
        if sid in self.upstream.expired:
            return sid, "404: session ended by the server (the scenario expired it)"
        return sid, None

    def _refuse(self, tx: Transcript, note: dict[str, Any], refused: str, body: bytes) -> None:
        tx.note(**note, status=int(refused[:3]), refused=refused[5:],
                body=body[:500].decode("utf-8", "replace"))  # fmt: skip
        self._plain(int(refused[:3]), refused[5:])

    # -- verbs ----------------------------------------------------------------------------
    def do_POST(self) -> None:
        up = self.upstream
        url = urllib.parse.urlsplit(self.path)
        body = self._body()
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        items = parsed if isinstance(parsed, list) else [parsed]
        common = {
            "event": "http-post",
            "carries": [_carried(m) for m in items],
            "path": self.path,
            "content_type": self.headers.get("Content-Type"),
            "accept": self.headers.get("Accept"),
            "session": self.headers.get(SESSION_HEADER),
            "protocol_version": self.headers.get("MCP-Protocol-Version"),
        }
        if up.kind == "sse":
            sid = urllib.parse.parse_qs(url.query).get("sessionId", [""])[0]
            if sid not in up.sessions:
                self._refuse(up.tx, common, "404: unknown sessionId", body)
                return
            up.tx_of(sid).note(**common, status=202)
            up.feed(body, sid)
            self._plain(202, "Accepted")
            return
        if url.path != up.path:
            self._refuse(up.tx, common, "404: not found", body)
            return
        requests = [m for m in items if isinstance(m, dict) and "method" in m and "id" in m]
        extra: dict[str, str] = {}
        if any(m.get("method") == "initialize" for m in requests):
            sid = secrets.token_hex(16)
            up.session(sid)
            extra[SESSION_HEADER] = sid
        else:
            sid, refused = self._session_of()
            if refused is not None:
                self._refuse(up.tx_of(sid), common, refused, body)
                return
        tx = up.tx_of(sid)
        if not requests:
            tx.note(**common, status=202)
            up.feed(body, sid)
            initialized = any(
                isinstance(m, dict) and m.get("method") == "notifications/initialized"
                for m in items
            )
            if up.expire == "after-initialized" and initialized and not up.expired:
                # ended before the 202 goes out: the client's next request already meets 404
                up.expired.add(sid)
                why = "the scenario ends the first session once it is initialized"
                tx.note(event="session-expired", session=sid, why=why)
            self._plain(202, "")
            return
        up.posts += 1
        label = f"post-{up.posts}"
        sse = not up.json_response
        stream = Stream(self, "post", label, [m["id"] for m in requests], sse, sid)
        stream.calls = any(m.get("method") == "tools/call" for m in requests)
        tx.note(**common, status=200, stream=label, response="sse" if sse else "json",
                new_session=extra.get(SESSION_HEADER))  # fmt: skip
        if sse:
            self._open_sse(extra)
        up.opened(stream)
        up.feed(body, sid)
        stream.done.wait(POST_WAIT_S)
        up.closed(stream)
        if sse:
            self._end_chunks(stream)
        elif not stream.bodies:  # the session ended first: no JSON to give, and [] is none
            self._plain(503, "no answer: the session ended before the request was answered")
        else:
            bodies = stream.bodies
            one = len(bodies) == 1 and not isinstance(parsed, list)
            data = bodies[0] if one else b"[" + b",".join(bodies) + b"]"
            self.send_response(200)
            for key, value in extra.items():
                self.send_header(key, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        tx.note(event="stream-closed", stream=label, unanswered=stream.pending)

    def do_GET(self) -> None:
        up = self.upstream
        url = urllib.parse.urlsplit(self.path)
        accept = self.headers.get("Accept") or ""
        note = {"event": "http-get", "path": self.path, "accept": accept,
                "session": self.headers.get(SESSION_HEADER),
                "protocol_version": self.headers.get("MCP-Protocol-Version")}  # fmt: skip
        if url.path != up.path:
            self._refuse(up.tx, note, "404: not found", b"")
            return
        if up.kind == "sse":
            sid = secrets.token_hex(16)
            up.session(sid)
            up.tx_of(sid).note(**note, status=200, stream="sse", new_session=sid)
            self._open_sse({})
            stream = Stream(self, "sse", "sse-stream", [], True, sid)
            endpoint = f"{up.path.rsplit('/', 1)[0]}/messages?sessionId={sid}".encode()
            with stream.lock:
                self.wfile.write(_sse.chunk(_sse.event(endpoint, "endpoint")))
                self.wfile.flush()
            self._hold_open(stream)
            return
        sid, refused = self._session_of()
        if refused is not None:
            self._refuse(up.tx_of(sid), note, refused, b"")
            return
        if not up.allow_get or "text/event-stream" not in accept:
            up.tx_of(sid).note(**note, status=405)
            self._plain(405, "no standalone stream here", {"Allow": "POST, DELETE"})
            return
        up.tx_of(sid).note(**note, status=200, stream="get-stream")
        self._open_sse({})
        self._hold_open(Stream(self, "get", "get-stream", [], True, sid))

    def do_DELETE(self) -> None:
        up = self.upstream
        sid, refused = self._session_of()
        version = self.headers.get("MCP-Protocol-Version")
        if refused is not None:
            note = {"event": "http-delete", "session": sid, "protocol_version": version}
            self._refuse(up.tx_of(sid), note, refused, b"")
            return
        peer = up.sessions[sid]
        peer.tx.note(event="session-deleted", session=sid, status=200, protocol_version=version)
        peer.closed = True  # the session's end, as a closed stdin is a stdio peer's
        self._plain(200, "")


def _carried(message: Any) -> str:
    """What one message of a POST body is, for its note: its method, else ``response``
    (a result or an error), else ``other``."""
    if isinstance(message, dict):
        method = message.get("method")
        if isinstance(method, str):
            return method
        if "result" in message or "error" in message:
            return "response"
    return "other"
