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
notification of ours goes on the stream of the newest ``tools/call`` still waiting for its
response (the transport lets a server send requests there before its response, and says they
SHOULD relate to that request), else on the standalone GET stream, else it is *held* (noted)
until a GET stream opens. Legacy SSE: everything goes on the
session's event stream, held until one is open. Holding, rather than dropping, keeps our end
from being the one that loses a message.
"""

from __future__ import annotations

import http.server
import json
import threading

from . import _sse
from ._record import emit

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

    from ._record import Transcript

#: How long a POST waits for the peer's responses before its stream is closed anyway.
POST_WAIT_S = 120.0
SESSION_HEADER = "Mcp-Session-Id"


class Stream:
    """One open response stream: a POST's (SSE or JSON), the standalone GET's, or legacy SSE."""

    def __init__(
        self, handler: Any, kind: str, label: str, ids: list[Any], sse: bool, session: str
    ) -> None:
        self.handler = handler
        self.session = session
        self.kind = kind
        self.label = label
        self.pending = list(ids)
        #: whether the POST carried a tools/call (set by the handler)
        self.calls = False
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

    def __init__(self, transport: dict[str, Any], tx: Transcript, on_session: Any) -> None:
        self.kind = str(transport.get("kind", "http"))
        self.path = str(transport.get("path") or ("/sse" if self.kind == "sse" else "/mcp"))
        self.json_response = transport.get("response") == "json"
        self.allow_get = bool(transport.get("get_stream", True))
        self.port = int(transport.get("port", 0))
        #: ``after-initialized``: the first session is forgotten once its client has sent
        #: notifications/initialized, so its next request meets 404 (a server that ended the
        #: session); later sessions are kept. The session-expiry scenario asks for it.
        self.expire = transport.get("expire_session")
        self.expired: set[str] = set()
        #: The process's own record (listening, requests of no session); each session has its
        #: own peer and transcript, as each start of a stdio peer has (``on_session`` makes
        #: them: session id -> an object with ``tx``, ``inbox`` and ``closed``).
        self.tx = tx
        self.on_session = on_session
        self.lock = threading.Lock()
        self.sessions: dict[str, Any] = {}
        self.streams: list[Stream] = []
        self.held: dict[str, list[bytes]] = {}
        self.closing = threading.Event()
        self.posts = 0
        self.server: http.server.ThreadingHTTPServer | None = None

    def session(self, sid: str) -> Any:
        """Open a session: its own peer (and transcript), made by ``on_session``."""
        peer = self.on_session(sid)
        with self.lock:
            self.sessions[sid] = peer
        return peer

    def tx_of(self, sid: str | None) -> Transcript:
        peer = self.sessions.get(sid) if sid is not None else None
        return peer.tx if peer is not None else self.tx

    # -- life -----------------------------------------------------------------------------
    def start(self) -> int:
        """Bind 127.0.0.1 (never another address) and serve in a daemon thread."""
        from ._http_verbs import Handler as Verbs

        owner = self

        class Handler(Verbs):
            upstream = owner

        tx = self.tx

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                # a proxy that drops a connection is an event, not a traceback on stderr
                try:  # noqa: SIM105 - contextlib would cost start-up time
                    tx.note(event="http-connection-error", client=list(client_address))
                except ValueError:  # the record is closed: the peer is leaving
                    pass

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
        for sid, held in self.held.items():
            if held:
                self.tx_of(sid).note(event="held-never-delivered", count=len(held))
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    # -- routing --------------------------------------------------------------------------
    def route(self, data: bytes, sid: str) -> None:
        """Put one message session ``sid``'s peer wrote on the stream it belongs to."""
        tx = self.tx_of(sid)
        try:
            msg = json.loads(data)
        except ValueError:
            msg = None
        is_response = isinstance(msg, dict) and "method" not in msg and "id" in msg
        what = _what(msg)
        with self.lock:
            mine = [s for s in self.streams if s.session == sid]
            target: Stream | None = None
            if is_response and isinstance(msg, dict):
                rid = msg.get("id")
                for stream in reversed(mine):
                    if any(type(p) is type(rid) and p == rid for p in stream.pending):
                        target = stream
                        break
                if target is not None and not target.sse:
                    target.bodies.append(data)
                    target.answered(rid)
                    tx.note(event="routed", to=target.label, **what)
                    return
            if target is None:
                target = self._stream_for_request(mine)
            if target is None:
                self.held.setdefault(sid, []).append(data)
                tx.note(event="routed", to="held", **what,
                        why="no stream open toward the proxy to send it on")  # fmt: skip
                return
        ok = target.send(data)
        tx.note(event="routed", to=target.label, delivered=ok, **what)
        if is_response and isinstance(msg, dict) and target.kind == "post":
            target.answered(msg.get("id"))

    def _stream_for_request(self, mine: list[Stream]) -> Stream | None:
        live = [s for s in mine if not s.broken and not s.done.is_set()]
        if self.kind == "http":
            # a request of ours is about the tool call it is asked inside: the transport says
            # messages on a POST's stream SHOULD relate to its request, so only a pending
            # tools/call's stream carries them; anything else goes on the GET stream
            posts = [s for s in live if s.kind == "post" and s.sse and s.pending and s.calls]
            if posts:
                return posts[-1]
        gets = [s for s in live if s.kind in ("get", "sse")]
        return gets[-1] if gets else None

    def opened(self, stream: Stream) -> None:
        """A stream joins; a GET or legacy SSE stream takes its session's held messages."""
        with self.lock:
            self.streams.append(stream)
            held = self.held.pop(stream.session, []) if stream.kind in ("get", "sse") else []
        tx = self.tx_of(stream.session)
        for data in held:
            ok = stream.send(data)
            try:
                what = _what(json.loads(data))
            except ValueError:
                what = {}
            tx.note(event="routed", to=stream.label, delivered=ok, was_held=True, **what)

    def closed(self, stream: Stream) -> None:
        with self.lock:
            if stream in self.streams:
                self.streams.remove(stream)

    def feed(self, body: bytes, sid: str) -> int:
        peer = self.sessions[sid]
        cap = int(peer.tx.max_line_bytes)
        return emit(peer.tx, peer.inbox, body[:cap], len(body), partial=False)


def _what(msg: Any) -> dict[str, Any]:
    """The id and method of a routed message, so a note names the line it is about."""
    if not isinstance(msg, dict):
        return {}
    return {k: msg[k] for k in ("id", "method") if k in msg}


class Out:
    """Stands where a session's peer's stdout stood: each line goes to that session's streams."""

    def __init__(self, upstream: Upstream, sid: str) -> None:
        self.upstream = upstream
        self.sid = sid

    def write(self, data: bytes) -> int:
        self.upstream.route(data.rstrip(b"\n"), self.sid)
        return len(data)

    def flush(self) -> None:
        return
