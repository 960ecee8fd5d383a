"""The ``http`` step: one HTTP request of the scenario's making beside the session, toward a
server played over Streamable HTTP, and what came back.

The transport's rules are about HTTP, not JSON-RPC: the status of a notification's POST, what
a request without its session id, with a session that was ended, with an invalid
``MCP-Protocol-Version`` or from a foreign ``Origin`` is answered with, whether ``GET`` opens
a stream, what ``DELETE`` does. A step says what to change from what the session's own
requests carry; the request and the answer (status, the headers the rules read, the body's
first bytes) are one ``http-probe`` note, and every JSON-RPC message in the body is recorded
as a line from the server, so it is validated like the rest.

A probe whose precondition does not hold is not sent, and says why (a session probe when the
server assigned no session; an ended-session probe when no ``DELETE`` ended it).
"""

from __future__ import annotations

import http.client
import json
import time

from .. import _sse

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

    from ._http import Out
    from ._play import Client

#: The answer headers a rule or a reader needs (lower-cased).
KEPT_HEADERS = ("content-type", "mcp-session-id", "allow", "mcp-protocol-version")
#: How much of a body is kept in the note (its messages are recorded whole as lines).
BODY_BYTES = 4096
#: A made-up session id no server can have assigned (visible ASCII, like a real one).
MADE_UP_SESSION = "mcp-compare-no-such-session-5f0c2a"


def run_http(client: Client, step: dict[str, Any], timeout: float, record: dict[str, Any]) -> None:
    """Send the step's request (or say why not) and note the answer; ``record``'s outcome is
    ``ok`` once an HTTP answer came, ``not-run`` or ``no-answer`` otherwise."""
    from ._http import Out

    spec = step["http"]
    label = step.get("label")
    out = client.out
    if not isinstance(out, Out) or out.kind != "http":
        _skip(client, label, record, "the server is not played over Streamable HTTP")
        return
    window = spec.get("revisions") or {}
    revision = str(client.plan.get("revision"))
    if not str(window.get("from", "")) <= revision <= str(window.get("until") or "~"):
        # a probe of a form that exists only at some revisions (a batch): elsewhere it would
        # be a message of ours the revision does not have, and the answer no finding
        _skip(client, label, record, f"the probe is played only at {_window(window)}")
        return
    method = str(spec.get("method", "POST")).upper()
    session = spec.get("session", "current")
    held = out.session
    if session in ("none", "ended", "made-up") and held is None:
        _skip(client, label, record, "the server assigned no session id at initialize")
        return
    if session == "ended" and held not in out.ended:
        _skip(client, label, record, "no DELETE ended the session before this request")
        return
    headers = out.session_headers(str(spec.get("accept") or _accept(method)))
    headers.pop("Mcp-Session-Id", None)
    # "fresh" and "none" leave the header out; only "none" needs a session to leave out
    if session in ("current", "ended") and held is not None:
        headers["Mcp-Session-Id"] = held
    elif session == "made-up":
        headers["Mcp-Session-Id"] = MADE_UP_SESSION
    version = spec.get("version", "negotiated")
    if version != "negotiated":
        headers.pop("MCP-Protocol-Version", None)
        if version != "none":
            headers["MCP-Protocol-Version"] = str(version)
    if spec.get("origin"):
        headers["Origin"] = str(spec["origin"])
    body: bytes | None = None
    if "message" in spec:
        body = json.dumps(spec["message"], separators=(",", ":")).encode("utf-8")
        headers["Content-Type"] = "application/json"
        client.tx.line("out", body, total=len(body))
    got = out.exchange(method, headers, body, timeout, read_body=method != "GET")
    if method == "DELETE" and isinstance(got.get("status"), int) and 200 <= got["status"] < 300:
        out.ended.add(held)
    client.tx.note(event="http-probe", label=label, method=method, session=session,
                   sent=headers, **got)  # fmt: skip
    record.update(outcome="no-answer" if "error" in got else "ok", evidence=None)


def _accept(method: str) -> str:
    """What the session's own requests accept: both kinds on a POST, a stream on a GET."""
    return "text/event-stream" if method == "GET" else "application/json, text/event-stream"


def _window(window: dict[str, Any]) -> str:
    first, last = window.get("from"), window.get("until")
    return str(first) if first == last else f"{first} to {last or 'the latest'}"


def _skip(client: Client, label: Any, record: dict[str, Any], why: str) -> None:
    client.tx.note(event="http-probe", label=label, ran=False, why=why)
    record.update(outcome="not-run", evidence=None, why=why)


def read_answer(
    out: Out, resp: http.client.HTTPResponse, deadline: float, read_body: bool
) -> dict[str, Any]:
    """Status, kept headers and the body's first bytes; the body's messages are fed to the
    transcript as lines from the server. A GET's body (a stream that stays open) is not read;
    a body that breaks off or stays silent past the step's bound keeps the status it came
    with (``body_cut`` says why)."""
    got: dict[str, Any] = {"status": resp.status, "reason": resp.reason}
    got["headers"] = {
        name: resp.getheader(name) for name in KEPT_HEADERS if resp.getheader(name) is not None
    }
    if not read_body:
        return got
    try:
        _read_body(out, resp, deadline, got)
    except (OSError, http.client.HTTPException) as err:  # the status stands; the body broke off
        got["body_cut"] = f"{type(err).__name__}: {err}"
    return got


def _read_body(
    out: Out, resp: http.client.HTTPResponse, deadline: float, got: dict[str, Any]
) -> None:
    ctype = (resp.getheader("Content-Type") or "").lower()
    # A 2xx body holds the server's protocol messages (the answer to our probe): recorded as
    # lines, validated like the rest. An error status's body is the HTTP error's own (it MAY
    # be a JSON-RPC error without an id): it stays in the note, as the raw bytes it was.
    protocol = 200 <= resp.status < 300
    if ctype.startswith("text/event-stream") and protocol:
        events = 0
        for name, data, _event_id in _sse.Parser().events(resp):
            if name == "message" and data.strip():  # an empty event primes a reconnection
                events += 1
                out.feed(data)
            if time.monotonic() > deadline:
                got["body_cut"] = "the stream was still open at the step's bound"
                break
        got["events"] = events
        return
    data = resp.read(1 << 20)
    got["body"] = data[:BODY_BYTES].decode("utf-8", "replace")
    got["body_bytes"] = len(data)
    if protocol and data.strip() and ctype.startswith("application/json"):
        out.feed(data)
