"""The scripted client's HTTP ends: Streamable HTTP (with or without the standalone GET
stream) and the legacy HTTP+SSE transport, toward a proxy that listens on 127.0.0.1.

:class:`Out` stands where the server's stdin stood: ``Client.send`` records the line and
writes it here, and it goes out as a POST. Every message that comes back (a JSON body, each
event of a POST's SSE stream, each event of the GET or legacy SSE stream) is recorded and
queued by ``_record.emit`` exactly as a line read from a pipe is, so the play (``_play``)
does not know which transport is under it. The HTTP-level facts are notes: each POST's
status, content type and stream, the session id, whether the GET stream was opened (and if
not, that the plan said not to), and when each stream ended.

Messages are sent in order, one connection each. A request's response is read in a thread, so
a pending ``tools/call`` does not stop our answer to a request the proxy sends on its stream;
a notification or a response of ours waits for its reply (a 202, at most ``ACK_WAIT_S``)
before the next message is posted, as the TypeScript SDK awaits each POST, so the proxy
cannot see ``tools/list`` before the ``initialized`` we sent first. As that SDK does, the GET
stream is opened only after the 202 for ``initialized``.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.parse

from .. import _sse
from .._record import emit

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    import queue
    from typing import Any

    from .._record import Transcript

SESSION_HEADER = "Mcp-Session-Id"
#: From this revision on a client sends MCP-Protocol-Version on every request after initialize.
VERSION_HEADER_FROM = "2025-06-18"
#: A response that has not begun after this long is noted and given up (the play's own step
#: bounds decide the outcome; this only keeps a thread from waiting forever).
RESPONSE_WAIT_S = 120.0
#: How long a notification's or a response's POST may take to be answered (a 202 with no
#: body) before the next message goes out anyway; the miss is noted as the POST's error.
ACK_WAIT_S = 10.0


def wait_listening(port: int, timeout: float, alive: Any) -> bool:
    """Whether something accepts on 127.0.0.1:``port`` within ``timeout`` (while ``alive()``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive():
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    return False


#: The kernel's tables of TCP sockets; state 0A is LISTEN.
PROC_TCP = ("/proc/net/tcp", "/proc/net/tcp6")
LOOPBACK = ("127.0.0.1", "::1", "::ffff:127.0.0.1")


def _address(hex_addr: str) -> str:
    """A /proc/net/tcp address (little-endian words of hex) as text."""
    if len(hex_addr) == 8:
        return socket.inet_ntop(socket.AF_INET, bytes.fromhex(hex_addr)[::-1])
    words = [bytes.fromhex(hex_addr[i : i + 8])[::-1] for i in range(0, 32, 8)]
    return socket.inet_ntop(socket.AF_INET6, b"".join(words))


def listening_addresses(port: int) -> list[str] | None:
    """Every local address a socket listens on at ``port`` (``0.0.0.0`` or ``::``: every
    interface); None when the kernel's tables cannot be read (not Linux)."""
    found: list[str] = []
    try:
        for table in PROC_TCP:
            with open(table, encoding="ascii") as handle:
                next(handle, None)
                for line in handle:
                    fields = line.split()
                    if len(fields) < 4 or fields[3] != "0A":
                        continue
                    addr, _, hex_port = fields[1].partition(":")
                    if int(hex_port, 16) == port:
                        found.append(_address(addr))
    except (OSError, ValueError):
        return None
    return sorted(set(found))


class Out:
    """One HTTP connection plan toward the proxy; see the module doc."""

    def __init__(self, transport: dict[str, Any], tx: Transcript, cap: int) -> None:
        self.kind = str(transport.get("kind", "http"))
        self.url = str(transport["url"])
        parts = urllib.parse.urlsplit(self.url)
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"not a loopback URL: {self.url}")
        self.host, self.port = "127.0.0.1", int(parts.port or 80)
        self.get_stream = bool(transport.get("get_stream", True))
        self.tx = tx
        self.cap = cap
        self.inbox: queue.Queue[Any] | None = None
        self.session: str | None = None
        self.version: str | None = None
        self.endpoint: str | None = None
        self.endpoint_ready = threading.Event()
        self.conns: list[http.client.HTTPConnection] = []
        self.lock = threading.Lock()
        self.posts = 0
        #: Session ids a DELETE of an ``http`` step ended (``_http_probe``).
        self.ended: set[str | None] = set()

    # -- helpers --------------------------------------------------------------------------
    def _conn(self, timeout: float | None = RESPONSE_WAIT_S) -> http.client.HTTPConnection:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        with self.lock:
            self.conns.append(conn)
        return conn

    def _headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept}
        if self.session is not None:
            headers[SESSION_HEADER] = self.session
        if self.version is not None and self.version >= VERSION_HEADER_FROM:
            headers["MCP-Protocol-Version"] = self.version
        return headers

    def session_headers(self, accept: str) -> dict[str, str]:
        """The headers the session's own requests carry now (an ``http`` step starts here)."""
        return self._headers(accept)

    def feed(self, data: bytes) -> None:
        """One message that came back, recorded and queued as a line from the server."""
        self._feed(data)

    def exchange(
        self, method: str, headers: dict[str, str], body: bytes | None, timeout: float,
        read_body: bool,
    ) -> dict[str, Any]:  # fmt: skip
        """One request of an ``http`` step, on a connection of its own, bounded by
        ``timeout``: what came back (``_http_probe.read_answer``) or the error."""
        from ._http_probe import read_answer

        conn = self._conn(timeout)
        path = urllib.parse.urlsplit(self.url).path or "/"
        deadline = time.monotonic() + timeout
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            got = read_answer(self, resp, deadline, read_body)
        except (OSError, http.client.HTTPException) as err:
            return {"error": f"{type(err).__name__}: {err}"}
        finally:
            try:  # noqa: SIM105 - contextlib would cost start-up time
                conn.close()
            except OSError:
                pass
        return got

    def _feed(self, data: bytes) -> None:
        assert self.inbox is not None
        emit(self.tx, self.inbox, data[: self.cap], len(data), partial=False)
        if self.version is None:
            try:
                msg = json.loads(data)
            except ValueError:
                return
            result = msg.get("result") if isinstance(msg, dict) else None
            if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
                self.version = result["protocolVersion"]

    def _events(self, resp: http.client.HTTPResponse, stream: str) -> None:
        """Every event of an SSE response: a message is fed, an endpoint event remembered."""
        count = with_ids = 0
        first = True
        for name, data, event_id in _sse.Parser().events(resp):
            if first:  # a 2025-11-25 server primes the stream: an event id and no data
                first = False
                self.tx.note(event="sse-first-event", stream=stream, name=name, id=event_id,
                             empty=not data.strip())  # fmt: skip
            with_ids += event_id is not None
            if name == "endpoint" and self.kind == "sse":
                self.endpoint = urllib.parse.urljoin(self.url, data.decode("utf-8", "replace"))
                self.tx.note(event="sse-endpoint", stream=stream, endpoint=self.endpoint)
                self.endpoint_ready.set()
                continue
            if name != "message" or not data.strip():
                # another kind of event, or one with no data: the priming event a server sends
                # first so that the client can resume (2025-11-25), not a message
                self.tx.note(event="sse-event", stream=stream, name=name, id=event_id,
                             empty=not data.strip())  # fmt: skip
                continue
            count += 1
            self._feed(data)
        self.tx.note(event="stream-closed", stream=stream, messages=count, with_ids=with_ids)

    # -- connecting -----------------------------------------------------------------------
    def connect(self, timeout: float) -> str | None:
        """Legacy SSE: open the event stream and wait for its endpoint; why not, or None."""
        if self.kind != "sse":
            return None
        threading.Thread(target=self._sse_stream, name="client-sse", daemon=True).start()
        if self.endpoint_ready.wait(timeout):
            return None
        return f"no endpoint event on {self.url} within {timeout:g} s"

    def _sse_stream(self) -> None:
        conn = self._conn(timeout=None)
        path = urllib.parse.urlsplit(self.url).path or "/"
        try:
            conn.request("GET", path, headers=self._headers("text/event-stream"))
            resp = conn.getresponse()
        except OSError as err:
            self.tx.note(event="http-get", stream="sse-stream", error=str(err))
            return
        ctype = resp.getheader("Content-Type")
        self.tx.note(event="http-get", stream="sse-stream", status=resp.status, content_type=ctype)
        if resp.status == 200:
            self._events(resp, "sse-stream")

    def _get_stream(self) -> None:
        conn = self._conn(timeout=None)
        path = urllib.parse.urlsplit(self.url).path or "/"
        try:
            conn.request("GET", path, headers=self._headers("text/event-stream"))
            resp = conn.getresponse()
        except OSError as err:
            self.tx.note(event="get-stream", opened=False, error=str(err))
            return
        ctype = resp.getheader("Content-Type") or ""
        opened = resp.status == 200 and ctype.startswith("text/event-stream")
        self.tx.note(event="get-stream", opened=opened, status=resp.status, content_type=ctype,
                     session=self.session)  # fmt: skip
        if opened:
            self._events(resp, "get-stream")
        else:
            resp.read()

    # -- the stdin seam -------------------------------------------------------------------
    def write(self, data: bytes) -> int:
        """POST one message (in order); its response is read in a thread."""
        body = data.rstrip(b"\n")
        try:
            msg = json.loads(body)
        except ValueError:
            msg = None
        method = msg.get("method") if isinstance(msg, dict) else None
        rid = msg.get("id") if isinstance(msg, dict) else None
        if self.kind == "sse":
            if not self.endpoint_ready.wait(10):
                raise OSError("no SSE endpoint to POST to")
            assert self.endpoint is not None
            parts = urllib.parse.urlsplit(self.endpoint)
            path = parts.path + (f"?{parts.query}" if parts.query else "")
        else:
            path = urllib.parse.urlsplit(self.url).path or "/"
        self.posts += 1
        label = f"post-{self.posts}"
        headers = self._headers("application/json, text/event-stream")
        headers["Content-Type"] = "application/json"
        is_request = isinstance(msg, dict) and "method" in msg and "id" in msg
        conn = self._conn() if is_request else self._conn(ACK_WAIT_S)
        conn.request("POST", path, body=body, headers=headers)  # OSError: the client's closed
        if not is_request:  # nothing comes back but a 202: wait for it, keeping the order
            try:
                self._response(conn, label, method, rid)
            except OSError as err:  # a body that never ends within the bound
                self.tx.note(event="http-post", post=label, method=method, id=rid, error=str(err))
            return len(data)
        args = (conn, label, method, rid)
        threading.Thread(target=self._response, args=args, name=label, daemon=True).start()
        return len(data)

    def _response(
        self, conn: http.client.HTTPConnection, label: str, method: Any, rid: Any
    ) -> None:
        try:
            resp = conn.getresponse()
        except OSError as err:
            self.tx.note(event="http-post", post=label, method=method, id=rid, error=str(err))
            return
        ctype = resp.getheader("Content-Type") or ""
        sid = resp.getheader(SESSION_HEADER)
        if sid is not None and self.session is None:
            self.session = sid
        self.tx.note(event="http-post", post=label, method=method, id=rid, status=resp.status,
                     content_type=ctype, session=sid)  # fmt: skip
        if self.kind == "sse":
            resp.read()
            return
        if resp.status == 200 and ctype.startswith("text/event-stream"):
            self.tx.note(event="stream-opened", stream=label, id=rid)
            self._events(resp, label)
        elif resp.status == 200 and ctype.startswith("application/json"):
            self._feed(resp.read())
        else:
            head = resp.read()[:500]
            if resp.status >= 300:
                self.tx.note(event="http-error", post=label, status=resp.status,
                             body=head.decode("utf-8", "replace"))  # fmt: skip
        if method == "notifications/initialized":
            if self.get_stream:
                threading.Thread(target=self._get_stream, name="client-get", daemon=True).start()
            else:
                self.tx.note(event="get-stream", opened=False,
                             why="the plan says our host opens no GET stream")  # fmt: skip

    def flush(self) -> None:
        return

    def close(self) -> None:
        """End the session (DELETE, noted) and every connection of ours."""
        if self.kind == "http" and self.session is not None:
            status: int | str
            try:
                conn = http.client.HTTPConnection(self.host, self.port, timeout=2)
                conn.request("DELETE", urllib.parse.urlsplit(self.url).path or "/",
                             headers=self._headers("application/json"))  # fmt: skip
                status = conn.getresponse().status
                conn.close()
            except OSError as err:
                status = str(err)
            self.tx.note(event="session-delete", session=self.session, status=status)
        with self.lock:
            conns, self.conns = list(self.conns), []
        for conn in conns:
            try:
                if conn.sock is not None:
                    conn.sock.shutdown(socket.SHUT_RDWR)
                conn.close()
            except OSError:
                pass
