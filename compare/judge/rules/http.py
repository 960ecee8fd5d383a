"""Server rules over Streamable HTTP: what a server answers at the HTTP level, read from the
scripted client's notes (the transport's rules are about statuses and headers, which no
JSON-RPC line carries).

The notes: ``http-post`` for each message of the session (its status, content type and the
session id that came with it), ``http-probe`` for each ``http`` step of the scenario (the
request as sent, the status, the kept headers and the body's first bytes, or why it was not
sent), and ``proxy-listening`` for where the server listened before anything was sent (the
kernel's table of listening sockets, and what the program itself asked ``listen()`` for, as
our loopback preload recorded it).

- ``http-status``: the status of step ``step`` (an ``http`` step) or of the session's first
  POST of ``post`` (a method), in words: ``accepted`` (202), ``stream`` (another 2xx with an SSE
  body), ``success`` (another 2xx), ``bad-request`` (400), ``forbidden`` (403),
  ``not-found`` (404), ``not-allowed`` (405), ``other-4xx``, ``server-error`` (5xx),
  ``other-status``; ``no-answer`` (a connection error or no answer in the step's bound),
  ``not-run`` (the step's precondition did not hold: it says which), ``not-reached`` (the
  scenario stopped before it).
- ``http-session-id``: the session id on the answer to our initialize: ``assigned`` (visible
  ASCII only, as the page requires), ``not-visible-ascii`` (another character in it), or
  ``none`` (sessions are optional).
- ``http-bind``: where the program asked to listen: ``loopback`` (it named a loopback
  address), ``every-interface`` (it named none, or the wildcard address: the preload bound it
  to 127.0.0.1 instead), ``other-address`` (an address of another interface),
  ``not-recorded`` (no preload sits in this program, so what it asked
  is not known: where our host chose the address, that is ours, not the program's). A server
  the user started and gave us by URL (``check --server URL``) is read from where it listens:
  the address it listens on is its own choice, not ours.
"""

from __future__ import annotations

import json
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, rule
from compare.judge.rules.server import NO_INIT, handshake_failed

#: Named statuses; other statuses read by their class.
_NAMED = {400: "bad-request", 403: "forbidden", 404: "not-found", 405: "not-allowed"}
STATUSES = (
    "accepted",
    "stream",
    "success",
    "bad-request",
    "forbidden",
    "not-found",
    "not-allowed",
    "other-4xx",
    "server-error",
    "other-status",
)
#: What ``listen()`` names when it means every interface.
_WILDCARDS = (None, "", "0.0.0.0", "::", "[::]")
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]", "::ffff:127.0.0.1")


def status_word(status: int, content_type: str) -> str:
    """One status in the words of ``http-status``."""
    if status == 202:
        return "accepted"
    if 200 <= status < 300:
        return "stream" if content_type.lower().startswith("text/event-stream") else "success"
    if status in _NAMED:
        return _NAMED[status]
    if 400 <= status < 500:
        return "other-4xx"
    return "server-error" if status >= 500 else "other-status"


def _first(ctx: Context, event: str, key: str, value: Any) -> tuple[int, dict[str, Any]] | None:
    """The first note of ``event`` whose ``key`` is ``value``, with its line number."""
    return next(
        ((n, note) for n, note in ctx.tx.notes
         if note.get("event") == event and note.get(key) == value),
        None,
    )  # fmt: skip


@rule(
    "http-status",
    (*STATUSES, "no-answer", "not-run", "not-reached", *NO_INIT),
    gate=handshake_failed,
    params={
        "step": Param("label", "the http step whose answer is read"),
        "post": Param("text", "else: the method of the session's first POST read (initialize too)"),
    },
)
def _http_status(ctx: Context) -> Outcome:
    label, method = ctx.params.get("step"), ctx.params.get("post")
    found = (
        _first(ctx, "http-probe", "label", str(label))
        if label
        else _first(ctx, "http-post", "method", str(method))
    )
    what = f"step {label}" if label else f"the POST of {method}"
    if found is None:
        return Outcome("not-reached", f"{what} was never sent: the scenario stopped before it")
    n, note = found
    if note.get("ran") is False:
        return Outcome("not-run", f"{what} was not sent: {note.get('why')}", [n])
    status = note.get("status")
    if not isinstance(status, int):
        return Outcome("no-answer", f"{what} got no HTTP answer: {note.get('error')}", [n])
    ctype = note.get("content_type") or (note.get("headers") or {}).get("content-type") or ""
    word = status_word(status, str(ctype))
    body = note.get("body")
    said = f"; body {body[:120]!r}" if isinstance(body, str) and body else ""
    return Outcome(word, f"{what} was answered {status} {ctype}".rstrip() + said, [n])


@rule("http-session-id", ("assigned", "not-visible-ascii", "none", *NO_INIT), gate=handshake_failed)
def _http_session_id(ctx: Context) -> Outcome:
    found = _first(ctx, "http-post", "method", "initialize")
    if found is None:
        return Outcome("none", "no HTTP answer to initialize was noted")
    n, note = found
    sid = note.get("session")
    if not isinstance(sid, str):
        return Outcome("none", "the answer to initialize carried no Mcp-Session-Id", [n])
    bad = sorted({f"U+{ord(c):04X}" for c in sid if not 0x21 <= ord(c) <= 0x7E})
    if bad:
        return Outcome("not-visible-ascii", f"session id {sid!r} holds {', '.join(bad)}", [n])
    return Outcome("assigned", f"session id of {len(sid)} visible ASCII characters", [n])


_BIND = ("loopback", "every-interface", "other-address", "not-recorded", "not-listening")


@rule("http-bind", _BIND)
def _http_bind(ctx: Context) -> Outcome:
    found = next(
        ((n, note) for n, note in ctx.tx.notes if note.get("event") == "proxy-listening"), None
    )
    if found is None or not found[1].get("listening"):
        return Outcome("not-listening", "the server never listened on its port")
    n, note = found
    bound = note.get("bound")
    asked = note.get("asked")
    where = f"; it listened on {', '.join(bound)}" if isinstance(bound, list) and bound else ""
    if note.get("external") and isinstance(bound, list) and bound:
        # started by the user, not by us: where it listens is its own choice
        if any(b in _WILDCARDS for b in bound):
            return Outcome("every-interface", f"it listens on every interface{where}", [n])
        word = "loopback" if all(b in _LOOPBACK for b in bound) else "other-address"
        return Outcome(word, f"a server the user started{where}", [n])
    if not isinstance(asked, list) or not asked:
        return Outcome("not-recorded", f"what it asked listen() for is not recorded{where}", [n])
    hosts = [a.get("host") if isinstance(a, dict) else None for a in asked]
    if any(h in _WILDCARDS for h in hosts):
        named = "no host" if None in hosts else ", ".join(str(h) for h in hosts)
        return Outcome(
            "every-interface",
            f"it asked listen() for {named}, which means every interface (our preload bound"
            f" 127.0.0.1 instead){where}",
            [n],
        )
    named = ", ".join(map(str, hosts))
    word = "loopback" if all(h in _LOOPBACK for h in hosts) else "other-address"
    return Outcome(word, f"it asked listen() for {named}{where}", [n])


def _probe(ctx: Context, label: str) -> tuple[int, dict[str, Any]] | None:
    return _first(ctx, "http-probe", "label", label)


def _probe_answer(ctx: Context) -> Outcome | tuple[int, dict[str, Any], list[Line], list[Line]]:
    """The probe of the check's ``step`` that got an HTTP answer: its note's line, the note,
    the lines it sent and the lines of the answer (the probe records the body it sends, then
    every message of the answer, then its note; a batch is one line, read as one Line per
    member); else the outcome that says why there is none."""
    label = str(ctx.params.get("step"))
    found = _probe(ctx, label)
    if found is None:
        return Outcome(
            "not-reached", f"step {label} was never sent: the scenario stopped before it"
        )
    n, note = found
    if note.get("ran") is False:
        return Outcome("not-run", f"step {label} was not sent: {note.get('why')}", [n])
    if not isinstance(note.get("status"), int):
        return Outcome("no-answer", f"step {label} got no HTTP answer: {note.get('error')}", [n])
    sent_n = max((x.n for x in ctx.tx.lines if x.dir == "out" and x.n < n), default=0)
    sent = [x for x in ctx.tx.lines if x.n == sent_n and x.dir == "out"]
    back = [x for x in ctx.tx.lines if x.dir == "in" and sent_n < x.n < n]
    return n, note, sent, back


@rule(
    "http-batch",
    ("answered", "partly-answered", "error-answer", *STATUSES, "no-answer", "not-run",
     "not-reached", *NO_INIT),
    gate=handshake_failed,
    params={"step": Param("label", "the http step that POSTs a batch of requests")},
)  # fmt: skip
def _http_batch(ctx: Context) -> Outcome:
    """The answer to a POSTed JSON-RPC batch: ``answered`` (a response to every request of
    it), ``partly-answered``, ``error-answer`` (a JSON-RPC error in place of the answers, such
    as Invalid Request for an array), else the status of the POST in the words of
    ``http-status`` (a refusal)."""
    got = _probe_answer(ctx)
    if isinstance(got, Outcome):
        return got
    n, note, sent, back = got
    status = int(note["status"])
    ids = [x.obj.get("id") for x in sent if isinstance(x.obj, dict) and "id" in x.obj]
    came = [x.obj for x in back if isinstance(x.obj, dict)]
    answered = {item.get("id") for item in came if "result" in item}
    ctype = str((note.get("headers") or {}).get("content-type") or "")
    if ids and answered == set(ids):
        return Outcome("answered", f"a response to each of the {len(ids)} requests", [n])
    if answered:
        return Outcome("partly-answered", f"responses to {sorted(map(str, answered))} only", [n])
    errors = [item for item in came if "error" in item]
    if 200 <= status < 300 and errors:
        said = json.dumps(errors[0].get("error"))[:160]
        return Outcome("error-answer", f"answered {status} with a JSON-RPC error: {said}", [n])
    body = note.get("body")
    said = f"; body {body[:120]!r}" if isinstance(body, str) and body else ""
    return Outcome(status_word(status, ctype), f"answered {status} {ctype}".rstrip() + said, [n])


def _request_streams(ctx: Context) -> list[str]:
    """The SSE streams the server opened in answer to the session's own requests."""
    return [
        str(note.get("stream"))
        for _, note in ctx.tx.notes
        if note.get("event") == "stream-opened" and note.get("id") is not None
    ]


@rule("http-sse-priming", ("primed", "not-primed", "no-stream", *NO_INIT), gate=handshake_failed)
def _http_sse_priming(ctx: Context) -> Outcome:
    """Whether the first SSE stream opened for a request of ours began with an event that
    has an id and no data (the priming event of 2025-11-25): ``primed``, ``not-primed``,
    ``no-stream`` (every request was answered with a JSON body)."""
    streams = _request_streams(ctx)
    if not streams:
        return Outcome("no-stream", "every request was answered with a JSON body, not a stream")
    first = next(
        ((n, note) for n, note in ctx.tx.notes
         if note.get("event") == "sse-first-event" and note.get("stream") == streams[0]),
        None,
    )  # fmt: skip
    if first is None:
        return Outcome("not-primed", f"stream {streams[0]} closed without any event")
    n, note = first
    if note.get("empty") and note.get("id"):
        return Outcome(
            "primed", f"stream {streams[0]} began with event id {note['id']!r}, no data", [n]
        )
    said = f"id {note['id']!r}" if note.get("id") else "no id"
    kind = "no data" if note.get("empty") else "a message"
    return Outcome(
        "not-primed", f"stream {streams[0]} began with an event of {said} and {kind}", [n]
    )


@rule("http-sse-event-ids", ("ids", "no-ids", "no-stream", *NO_INIT), gate=handshake_failed)
def _http_sse_event_ids(ctx: Context) -> Outcome:
    """Whether the server's SSE events for our requests carry event ids, which a client
    needs to resume a broken stream with ``Last-Event-ID``."""
    streams = set(_request_streams(ctx))
    if not streams:
        return Outcome("no-stream", "every request was answered with a JSON body, not a stream")
    closed = [
        (n, note) for n, note in ctx.tx.notes
        if note.get("event") == "stream-closed" and note.get("stream") in streams
    ]  # fmt: skip
    with_ids = sum(int(note.get("with_ids") or 0) for _, note in closed)
    if with_ids:
        return Outcome(
            "ids", f"{with_ids} event(s) on {len(closed)} stream(s) carried an id", [closed[0][0]]
        )
    return Outcome(
        "no-ids", f"no event on {len(closed)} stream(s) carried an id", [n for n, _ in closed[:1]]
    )


@rule(
    "http-session-on-error",
    ("no-session", "session-assigned", "accepted", "no-answer", "not-run", "not-reached", *NO_INIT),
    gate=handshake_failed,
    params={
        "step": Param("label", "the http step that POSTs an initialize the server must refuse")
    },
)
def _http_session_on_error(ctx: Context) -> Outcome:
    """Whether a server assigns a session to an initialize it refuses: ``no-session``,
    ``session-assigned``; ``accepted`` (it took the malformed initialize)."""
    got = _probe_answer(ctx)
    if isinstance(got, Outcome):
        return got
    n, note, sent, back = got
    status = int(note["status"])
    del sent
    sid = (note.get("headers") or {}).get("mcp-session-id")
    if any(isinstance(x.obj, dict) and "result" in x.obj for x in back):
        return Outcome(
            "accepted", f"answered {status} with a result to a malformed initialize", [n]
        )
    if sid:
        return Outcome(
            "session-assigned",
            f"answered {status} without a result, and assigned session {sid!r}",
            [n],
        )
    return Outcome("no-session", f"answered {status} without a result, and no session id", [n])
