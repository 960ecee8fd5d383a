"""The peer's HTTP ends: Streamable HTTP and the legacy HTTP+SSE transport, on 127.0.0.1.

A proxy whose upstream side speaks HTTP (mcp-remote, supergateway's HTTP→stdio mode,
mcp-proxy's client mode) connects here instead of starting the peer on stdio. The play logic
(``_serve.Peer``) does not change: every inbound message body becomes a transcript line and an
inbox item exactly as a stdin line does (``_record.emit``), and :class:`Out` stands where
stdout stood, routing each message the peer writes to an HTTP stream. HTTP-level events (a
POST's status and content type, a stream opened or closed, the session id, where a message
went) are notes beside the lines, so the judge reads an HTTP leg like a stdio leg.

Routing, Streamable HTTP: a response goes on the stream of the POST that carried its request
(an SSE stream, or a JSON body when the plan asks for JSON responses); a request or
notification of ours goes on the newest POST stream still waiting for a response (the
transport lets a server send requests there before its response), else on the standalone GET
stream, else it is *held* (noted) until a GET stream opens. Legacy SSE: everything goes on the
session's event stream, held until one is open. Holding, rather than dropping, keeps our end
from being the one that loses a message.
"""

from __future__ import annotations

import http.server
import json
import secrets
import threading
import urllib.parse

from . import _sse
from ._record import emit

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    import queue
    from typing import Any

    from ._record import Transcript

#: How long a POST waits for the peer's responses before its stream is closed anyway.
POST_WAIT_S = 120.0
SESSION_HEADER = "Mcp-Session-Id"


class Stream:
    """One open response stream: a POST's (SSE or JSON), the standalone GET's, or legacy SSE."""

    def __init__(self, handler: Any, kind: str, label: str, ids: list[Any], sse: bool) -> None:
        self.handler = handler
        self.kind = kind
        self.label = label
        self.pending = list(ids)
        self.sse = sse
        self.bodies: list[bytes] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.broken = False

    def send(self, data: bytes) -> bool:
        """Write one message as an SSE event (chunked); False when the stream is gone."""
        with self.lock:
            if self.broken or self.done.is_set():
                return False
            try:
                self.handler.wfile.write(_sse.chunk(_sse.event(data)))
                self.handler.wfile.flush()
            except (OSError, ValueError):
                self.broken = True
                return False
        return True

    def answered(self, rid: Any) -> None:
        self.pending = [p for p in self.pending if not (type(p) is type(rid) and p == rid)]
        if not self.pending:
            self.done.set()


class Upstream:
    """The HTTP server and its routing state; one per peer process."""

    def __init__(
        self, transport: dict[str, Any], tx: Transcript, inbox: queue.Queue[Any] | None
    ) -> None:
        self.kind = str(transport.get("kind", "http"))
        self.path = str(transport.get("path") or ("/sse" if self.kind == "sse" else "/mcp"))
        self.json_response = transport.get("response") == "json"
        self.allow_get = bool(transport.get("get_stream", True))
        self.stateful = bool(transport.get("sessions", True))
        self.port = int(transport.get("port", 0))
        self.tx = tx
        self.inbox = inbox
        self.lock = threading.Lock()
        self.sessions: set[str] = set()
        self.streams: list[Stream] = []
        self.held: list[bytes] = []
        self.closing = threading.Event()
        self.posts = 0
        self.server: http.server.ThreadingHTTPServer | None = None

    # -- life -----------------------------------------------------------------------------
    def start(self) -> int:
        """Bind 127.0.0.1 (never another address) and serve in a daemon thread."""
        owner = self

        class Handler(_Handler):
            upstream = owner

        tx = self.tx

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                # a proxy that drops a connection is an event, not a traceback on stderr
                tx.note(event="http-connection-error", client=list(client_address))

        server = Server(("127.0.0.1", self.port), Handler)
        server.daemon_threads = True
        self.server = server
        self.port = int(server.server_address[1])
        threading.Thread(target=server.serve_forever, name="peer-http", daemon=True).start()
        self.tx.note(event="http-listening", transport=self.kind, host="127.0.0.1",
                     port=self.port, path=self.path)  # fmt: skip
        return self.port

    def close(self) -> None:
        self.closing.set()
        with self.lock:
            streams, self.streams = list(self.streams), []
        for stream in streams:
            stream.done.set()
        if self.held:
            self.tx.note(event="held-never-delivered", count=len(self.held))
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    # -- routing --------------------------------------------------------------------------
    def route(self, data: bytes) -> None:
        """Put one message the peer wrote on the stream it belongs to (see the module doc)."""
        try:
            msg = json.loads(data)
        except ValueError:
            msg = None
        is_response = isinstance(msg, dict) and "method" not in msg and "id" in msg
        with self.lock:
            target: Stream | None = None
            if is_response and isinstance(msg, dict):
                rid = msg.get("id")
                for stream in reversed(self.streams):
                    if any(type(p) is type(rid) and p == rid for p in stream.pending):
                        target = stream
                        break
                if target is not None and not target.sse:
                    target.bodies.append(data)
                    target.answered(rid)
                    self.tx.note(event="routed", to=target.label, id=rid)
                    return
            if target is None:
                target = self._stream_for_request()
            what = _what(msg)
            if target is None:
                self.held.append(data)
                self.tx.note(event="routed", to="held", **what,
                             why="no stream open toward the proxy to send it on")  # fmt: skip
                return
        ok = target.send(data)
        self.tx.note(event="routed", to=target.label, delivered=ok, **what)
        if is_response and isinstance(msg, dict) and target.kind == "post":
            target.answered(msg.get("id"))

    def _stream_for_request(self) -> Stream | None:
        live = [s for s in self.streams if not s.broken and not s.done.is_set()]
        if self.kind == "http":
            posts = [s for s in live if s.kind == "post" and s.sse and s.pending]
            if posts:
                return posts[-1]
        gets = [s for s in live if s.kind in ("get", "sse")]
        return gets[-1] if gets else None

    def opened(self, stream: Stream) -> None:
        """A stream joins; a GET or legacy SSE stream takes every held message, in order."""
        with self.lock:
            self.streams.append(stream)
            held = self.held if stream.kind in ("get", "sse") else []
            if held:
                self.held = []
        for data in held:
            ok = stream.send(data)
            try:
                what = _what(json.loads(data))
            except ValueError:
                what = {}
            self.tx.note(event="routed", to=stream.label, delivered=ok, was_held=True, **what)

    def closed(self, stream: Stream) -> None:
        with self.lock:
            if stream in self.streams:
                self.streams.remove(stream)

    def feed(self, body: bytes, cap: int) -> int:
        assert self.inbox is not None
        return emit(self.tx, self.inbox, body[:cap], len(body), partial=False)


def _what(msg: Any) -> dict[str, Any]:
    """The id and method of a routed message, so a note names the line it is about."""
    if not isinstance(msg, dict):
        return {}
    return {k: msg[k] for k in ("id", "method") if k in msg}


class _Handler(http.server.BaseHTTPRequestHandler):
    """One HTTP request. Chunked bodies are read too; every answer is HTTP/1.1."""

    upstream: Upstream
    protocol_version = "HTTP/1.1"
    server_version = "mcp-compare-peer"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
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
        up.tx.note(event="stream-closed", stream=stream.label, broken=stream.broken)

    def _end_chunks(self, stream: Stream) -> None:
        with stream.lock:
            stream.done.set()
            try:
                self.wfile.write(_sse.chunk(b""))
                self.wfile.flush()
            except (OSError, ValueError):
                stream.broken = True

    def _session_of(self) -> tuple[str | None, str | None]:
        """(session id sent, why it is refused or None)."""
        up = self.upstream
        sid = self.headers.get(SESSION_HEADER)
        if not up.stateful or not up.sessions:
            return sid, None
        if sid is None:
            return None, "400: no Mcp-Session-Id on a request after initialize"
        if sid not in up.sessions:
            return sid, "404: unknown Mcp-Session-Id"
        return sid, None

    # -- verbs ----------------------------------------------------------------------------
    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        up = self.upstream
        url = urllib.parse.urlsplit(self.path)
        body = self._body()
        cap = int(up.tx.max_line_bytes)
        common = {
            "event": "http-post",
            "path": self.path,
            "content_type": self.headers.get("Content-Type"),
            "accept": self.headers.get("Accept"),
            "session": self.headers.get(SESSION_HEADER),
            "protocol_version": self.headers.get("MCP-Protocol-Version"),
        }
        if up.kind == "sse":
            sid = urllib.parse.parse_qs(url.query).get("sessionId", [None])[0]
            known = sid in up.sessions
            up.tx.note(**common, status=202 if known else 404)
            if not known:
                self._plain(404, "unknown sessionId")
                return
            up.feed(body, cap)
            self._plain(202, "Accepted")
            return
        if url.path != up.path:
            up.tx.note(**common, status=404)
            self._plain(404, "not found")
            return
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        items = parsed if isinstance(parsed, list) else [parsed]
        requests = [m for m in items if isinstance(m, dict) and "method" in m and "id" in m]
        initialize = any(m.get("method") == "initialize" for m in requests)
        extra: dict[str, str] = {}
        if initialize and up.stateful:
            sid = secrets.token_hex(16)
            up.sessions.add(sid)
            extra[SESSION_HEADER] = sid
        else:
            _sid, refused = self._session_of()
            if refused is not None:
                up.tx.note(**common, status=int(refused[:3]), refused=refused[5:],
                           body=body[:500].decode("utf-8", "replace"))  # fmt: skip
                self._plain(int(refused[:3]), refused[5:])
                return
        if not requests:
            up.tx.note(**common, status=202)
            up.feed(body, cap)
            self._plain(202, "")
            return
        up.posts += 1
        label = f"post-{up.posts}"
        sse = not up.json_response
        stream = Stream(self, "post", label, [m["id"] for m in requests], sse)
        up.tx.note(**common, status=200, stream=label, response="sse" if sse else "json",
                   new_session=extra.get(SESSION_HEADER))  # fmt: skip
        if sse:
            self._open_sse(extra)
        up.opened(stream)
        up.feed(body, cap)
        stream.done.wait(POST_WAIT_S)
        up.closed(stream)
        if sse:
            self._end_chunks(stream)
        else:
            bodies = stream.bodies
            data = bodies[0] if len(bodies) == 1 and not isinstance(parsed, list) else (
                b"[" + b",".join(bodies) + b"]"
            )
            self.send_response(200)
            for key, value in extra.items():
                self.send_header(key, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        up.tx.note(event="stream-closed", stream=label, unanswered=stream.pending)

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        up = self.upstream
        url = urllib.parse.urlsplit(self.path)
        accept = self.headers.get("Accept") or ""
        note = {"event": "http-get", "path": self.path, "accept": accept,
                "session": self.headers.get(SESSION_HEADER)}  # fmt: skip
        if url.path != up.path:
            up.tx.note(**note, status=404)
            self._plain(404, "not found")
            return
        if up.kind == "sse":
            sid = secrets.token_hex(16)
            up.sessions.add(sid)
            up.tx.note(**note, status=200, stream="sse", new_session=sid)
            self._open_sse({})
            stream = Stream(self, "sse", "sse-stream", [], True)
            endpoint = f"{up.path.rsplit('/', 1)[0]}/messages?sessionId={sid}".encode()
            with stream.lock:
                self.wfile.write(_sse.chunk(_sse.event(endpoint, "endpoint")))
                self.wfile.flush()
            self._hold_open(stream)
            return
        if not up.allow_get or "text/event-stream" not in accept:
            up.tx.note(**note, status=405)
            self._plain(405, "no standalone stream here", {"Allow": "POST, DELETE"})
            return
        _sid, refused = self._session_of()
        if refused is not None:
            up.tx.note(**note, status=int(refused[:3]), refused=refused[5:])
            self._plain(int(refused[:3]), refused[5:])
            return
        up.tx.note(**note, status=200, stream="get-stream")
        self._open_sse({})
        self._hold_open(Stream(self, "get", "get-stream", [], True))

    def do_DELETE(self) -> None:  # noqa: N802 - the base class's name
        up = self.upstream
        sid = self.headers.get(SESSION_HEADER)
        known = sid in up.sessions
        up.tx.note(event="session-deleted" if known else "http-delete", session=sid,
                   status=200 if known else 404)  # fmt: skip
        if known and sid is not None:
            up.sessions.discard(sid)
        self._plain(200 if known else 404, "")


class Out:
    """Stands where the peer's stdout stood: each written line is routed to an HTTP stream."""

    def __init__(self, upstream: Upstream) -> None:
        self.upstream = upstream

    def write(self, data: bytes) -> int:
        self.upstream.route(data.rstrip(b"\n"))
        return len(data)

    def flush(self) -> None:
        return

    def close(self) -> None:
        self.upstream.close()
