"""Client rules over Streamable HTTP: what a client handed our URL sends at the HTTP level,
read from our peer's notes (no JSON-RPC line carries a header).

The peer notes every request it gets: ``http-post`` (what the body carries, the ``Accept``,
``Mcp-Session-Id`` and ``MCP-Protocol-Version`` headers as sent, the status it answered and
the session it opened), ``http-get`` and the refusals of each (with ``refused``: why),
``session-deleted`` for a DELETE it honoured, ``session-expired`` when a scenario ends the
first session after its handshake, and where each of its own messages went (``routed``).

- ``http-client-accept``: every POST lists both ``application/json`` and
  ``text/event-stream`` in ``Accept``, every GET of the session (to listen)
  ``text/event-stream``: ``listed``,
  ``incomplete`` (a request lists fewer), ``absent`` (a request has none).
- ``http-client-session-id``: every request after the session was assigned carries its id:
  ``resent``, ``missing``, ``other-id`` (one the server never assigned), ``no-session`` (the
  server assigned none here: nothing to resend), ``no-later-request``.
- ``http-client-version-header``: ``MCP-Protocol-Version`` on every request after
  initialize: ``negotiated``, ``missing``, ``other-version`` (another value than the one
  negotiated), ``no-later-request``.
- ``http-client-get-stream``: whether the client opened the standalone stream: ``opened``,
  ``not-opened``.
- ``http-client-server-request``: what became of the peer's request of step ``step``:
  ``answered``, ``unanswered`` (delivered on a stream the client held, no response),
  ``held`` (the client held no stream it could come on), ``closed`` (the client left on its
  own without answering: only a client that stayed is graded), ``not-sent``.
- ``http-client-delete``: a client that ended its session itself sent DELETE: ``deleted``,
  ``not-deleted``; ``not-ended`` (it was still connected when the harness ended it).
- ``http-client-new-session``: after the first session ended, the client's next request met
  404; then: ``new-session`` (an initialize without a session id), ``old-id-attached`` (an
  initialize that still names the ended session), ``no-new-session``, ``no-request-after``
  (it sent nothing after the session ended, so it never met the 404).
- ``http-client-json-answer``: the initialize POST was answered with a JSON body, not a
  stream; ``went-on`` (notifications/initialized followed), ``stopped``.
- ``http-client-legacy``: against a server of the old HTTP+SSE transport at the URL:
  ``fell-back`` (it opened the event stream and initialized there), ``tried-get`` (it asked
  for the stream but did not initialize on it), ``no-fallback``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, Param, rule, stopped_early

#: Notes of a request the client made to our end, in the order they came.
_REQUESTS = ("http-post", "http-get", "http-delete", "session-deleted")
_NO_LATER = "no-later-request"


def _requests(ctx: Context) -> list[tuple[int, dict[str, Any]]]:
    """The client's requests to the MCP endpoint; anything else it fetched from our end (an
    authorization server's metadata under ``/.well-known/``) is not the transport's."""
    endpoint = str((ctx.plan.get("transport") or {}).get("path") or "/mcp")
    return [
        (n, note)
        for n, note in ctx.tx.notes
        if note.get("event") in _REQUESTS
        and urlsplit(str(note.get("path") or endpoint)).path == endpoint
    ]


def _is_initialize(note: dict[str, Any]) -> bool:
    return note.get("event") == "http-post" and "initialize" in (note.get("carries") or [])


def _first_session(ctx: Context) -> tuple[int, str] | None:
    """The line and id of the first session our end assigned (on an initialize POST)."""
    for n, note in _requests(ctx):
        if _is_initialize(note) and isinstance(note.get("new_session"), str):
            return n, str(note["new_session"])
    return None


def _what(note: dict[str, Any]) -> str:
    """A request in words: ``POST (tools/list)``, ``GET``, ``DELETE``."""
    if note.get("event") == "http-post":
        return f"POST ({', '.join(map(str, note.get('carries') or [])) or 'no body'})"
    return "GET" if note.get("event") == "http-get" else "DELETE"


def _media(accept: str) -> set[str]:
    """The media ranges an ``Accept`` header lists, without their parameters."""
    return {part.split(";")[0].strip().lower() for part in accept.split(",") if part.strip()}


@rule("http-client-accept", ("listed", "incomplete", "absent", *EARLY), gate=stopped_early)
def _accept(ctx: Context) -> Outcome:
    seen = 0
    first = _first_session(ctx)
    for n, note in _requests(ctx):
        if note.get("event") not in ("http-post", "http-get"):
            continue
        if note["event"] == "http-get" and (first is None or n < first[0]):
            continue  # a GET before any session is a probe (for authorization), not a listen
        seen += 1
        need = (
            {"application/json", "text/event-stream"}
            if note["event"] == "http-post"
            else {"text/event-stream"}
        )
        accept = note.get("accept")
        if not accept:
            return Outcome("absent", f"the {_what(note)} carried no Accept header", [n])
        lacking = sorted(need - _media(str(accept)))
        if lacking:
            return Outcome(
                "incomplete",
                f"the {_what(note)} sent Accept: {accept} (without {', '.join(lacking)})",
                [n],
            )
    return Outcome("listed", f"all {seen} POST and GET requests listed what the page asks")


def _later(ctx: Context) -> tuple[int, str, list[tuple[int, dict[str, Any]]]] | None:
    """The first session (line, id) and the client's requests after it, but initializes."""
    first = _first_session(ctx)
    if first is None:
        return None
    n0, sid = first
    later = [(n, note) for n, note in _requests(ctx) if n > n0 and not _is_initialize(note)]
    return n0, sid, later


@rule(
    "http-client-session-id",
    ("resent", "missing", "other-id", "no-session", _NO_LATER, *EARLY),
    gate=stopped_early,
)
def _session_id(ctx: Context) -> Outcome:
    found = _later(ctx)
    if found is None:
        return Outcome("no-session", "our end assigned no session id on initialize")
    n0, _sid, later = found
    if not later:
        return Outcome(_NO_LATER, "the client sent nothing after initialize", [n0])
    assigned = {
        str(note["new_session"])
        for _, note in _requests(ctx)
        if isinstance(note.get("new_session"), str)
    }
    for n, note in later:
        sent = note.get("session")
        if not sent:
            return Outcome("missing", f"the {_what(note)} carried no Mcp-Session-Id", [n0, n])
        if sent not in assigned:
            return Outcome("other-id", f"the {_what(note)} named session {sent!r}", [n0, n])
    return Outcome("resent", f"all {len(later)} later requests carried the session id", [n0])


@rule(
    "http-client-version-header",
    ("negotiated", "missing", "other-version", _NO_LATER, *EARLY),
    gate=stopped_early,
)
def _version_header(ctx: Context) -> Outcome:
    found = _later(ctx)
    n0 = found[0] if found else 0
    later = (
        found[2] if found else [(n, note) for n, note in _requests(ctx) if not _is_initialize(note)]
    )
    if not later:
        return Outcome(_NO_LATER, "the client sent nothing after initialize", [n0] if n0 else [])
    negotiated = _negotiated(ctx)
    for n, note in later:
        sent = note.get("protocol_version")
        if not sent:
            return Outcome("missing", f"the {_what(note)} carried no MCP-Protocol-Version", [n])
        if negotiated is not None and sent != negotiated:
            return Outcome(
                "other-version",
                f"the {_what(note)} sent MCP-Protocol-Version: {sent}, where {negotiated}"
                " was negotiated",
                [n],
            )
    return Outcome(
        "negotiated",
        f"all {len(later)} later requests sent MCP-Protocol-Version: {negotiated}",
        [later[0][0]],
    )


def _negotiated(ctx: Context) -> Any:
    """The protocolVersion of our end's answer to the client's first initialize."""
    init = ctx.initialize
    if init is None:
        return None
    rid = init.obj.get("id")
    for line in ctx.tx.lines:
        if line.dir == "out" and line.is_response and isinstance(line.obj.get("result"), dict):
            got = line.obj.get("id")
            if type(got) is type(rid) and got == rid:
                return line.obj["result"].get("protocolVersion")
    return None


@rule("http-client-get-stream", ("opened", "not-opened", *EARLY), gate=stopped_early)
def _get_stream(ctx: Context) -> Outcome:
    for n, note in _requests(ctx):
        if note.get("event") == "http-get" and note.get("status") == 200:
            return Outcome("opened", "the client opened the standalone GET stream", [n])
    asked = [n for n, note in _requests(ctx) if note.get("event") == "http-get"]
    why = " (its GET was refused)" if asked else ""
    return Outcome("not-opened", f"the client held no standalone stream{why}", asked[:1])


_SERVER_REQUEST = ("answered", "unanswered", "held", "closed", "not-sent")


def _server_request_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    """``elsewhere`` only for a check that names the stream the request must come on."""
    return (*_SERVER_REQUEST, *(("elsewhere",) if params.get("on") else ()), *EARLY)


@rule(
    "http-client-server-request",
    (*_SERVER_REQUEST, "elsewhere", *EARLY),
    gate=stopped_early,
    params={
        "step": Param("label", "the peer's request step whose fate is read"),
        "on": Param("text", "post: the request must come on the stream of a POST of the client's"),
    },
    outcomes_for=_server_request_outcomes,
)
def _server_request(ctx: Context) -> Outcome:
    label = str(ctx.params.get("step"))
    trace = ctx.tx.steps.get(label)
    sent = None
    if trace is not None:  # the step's request (its id is noted only once the step ends)
        sent = next(
            (x for x in ctx.tx.lines if x.dir == "out" and x.n > trace.start_n and x.is_request),
            None,
        )
    if trace is None or sent is None:
        return Outcome("not-sent", f"step {label} never sent its request")
    rid = sent.obj.get("id")
    went = next(
        (str(note.get("to")) for n, note in ctx.tx.notes
         if n > sent.n and note.get("event") == "routed" and note.get("id") == rid
         and note.get("to") != "held"),
        None,
    )  # fmt: skip
    if ctx.params.get("on") == "post" and not (went or "").startswith("post-"):
        return Outcome(
            "elsewhere",
            f"our request {rid!r} went {'on ' + went if went else 'nowhere'}, not on the stream"
            " of a request of the client's (none was pending)",
            [sent.n],
        )
    answer = ctx.tx.response_to(rid, sent.n)
    if answer is not None:
        return Outcome("answered", f"the client answered request {rid!r}", [sent.n, answer.n])
    routed = [
        (n, note)
        for n, note in ctx.tx.notes
        if n > sent.n and note.get("event") == "routed" and note.get("id") == rid
    ]
    if routed and all(note.get("to") == "held" for _, note in routed):
        return Outcome(
            "held",
            f"our request {rid!r} waited: the client held no stream it could come on"
            " (no GET stream, no request of its own pending)",
            [routed[0][0]],
        )
    if (ctx.process or {}).get("ended_by") == "self":
        # a client on its way out (a health check that connects, pings and leaves) may have
        # let go of its stream as our request came: only one that stayed is graded on it
        later = sum(1 for n, _ in _requests(ctx) if n > sent.n)
        return Outcome(
            "closed",
            f"the client left on its own ({later} request(s) of its own after ours) without"
            f" answering our request {rid!r}: it may have let go of its stream as it came",
            [sent.n],
        )
    return Outcome(
        "unanswered",
        f"our request {rid!r} went out on a stream the client held, and no answer came",
        [n for n, _ in routed[:1]],
    )


@rule("http-client-delete", ("deleted", "not-deleted", "not-ended", *EARLY), gate=stopped_early)
def _delete(ctx: Context) -> Outcome:
    deleted = [n for n, note in _requests(ctx) if note.get("event") == "session-deleted"]
    if deleted:
        return Outcome("deleted", "the client sent DELETE with its session id", deleted[:1])
    p = ctx.process or {}
    if p.get("ended_by") != "self":
        return Outcome(
            "not-ended",
            f"the client was still connected when it was ended ({p.get('ended_by') or 'unknown'})",
        )
    return Outcome("not-deleted", "the client ended without a DELETE for its session")


@rule(
    "http-client-new-session",
    ("new-session", "old-id-attached", "no-new-session", "no-request-after", *EARLY),
    gate=stopped_early,
)
def _new_session(ctx: Context) -> Outcome:
    expired = next(
        ((n, note) for n, note in ctx.tx.notes if note.get("event") == "session-expired"), None
    )
    if expired is None:
        return Outcome("no-request-after", "our end never ended the session")
    n0, note0 = expired
    sid = note0.get("session")
    met = next(
        (
            (n, note)
            for n, note in _requests(ctx)
            if n > n0 and note.get("status") == 404 and note.get("session") == sid
        ),
        None,
    )
    if met is None:
        return Outcome(
            "no-request-after",
            "the client sent no request after the session ended, so it never met 404",
            [n0],
        )
    n1, answered = met
    for n, note in _requests(ctx):
        if n > n1 and _is_initialize(note):
            if note.get("session"):
                return Outcome(
                    "old-id-attached",
                    f"after 404 on its {_what(answered)}, the client sent initialize naming"
                    f" session {note['session']!r}",
                    [n1, n],
                )
            return Outcome(
                "new-session",
                f"after 404 on its {_what(answered)}, the client initialized a new session",
                [n1, n],
            )
    return Outcome(
        "no-new-session",
        f"after 404 on its {_what(answered)}, the client sent no new initialize",
        [n1],
    )


@rule("http-client-json-answer", ("went-on", "stopped", "not-json", *EARLY), gate=stopped_early)
def _json_answer(ctx: Context) -> Outcome:
    post = next((item for item in _requests(ctx) if _is_initialize(item[1])), None)
    if post is None or post[1].get("response") != "json":
        return Outcome("not-json", "the answer to initialize was not a JSON body")
    went_on = next((x for x in ctx.tx.incoming() if x.method == "notifications/initialized"), None)
    if went_on is not None:
        return Outcome(
            "went-on",
            "initialize was answered with application/json; notifications/initialized followed",
            [post[0], went_on.n],
        )
    return Outcome(
        "stopped",
        "initialize was answered with application/json, and the client sent nothing after it",
        [post[0]],
    )


@rule("http-client-legacy", ("fell-back", "tried-get", "no-fallback"))
def _legacy(ctx: Context) -> Outcome:
    refused = next(
        ((n, note) for n, note in ctx.tx.notes
         if note.get("event") == "http-post" and isinstance(note.get("status"), int)
         and note["status"] >= 400),
        None,
    )  # fmt: skip
    opened = next(
        ((n, note) for n, note in ctx.tx.notes
         if note.get("event") == "http-get" and note.get("stream") == "sse"),
        None,
    )  # fmt: skip
    said = f"its POST was answered {refused[1]['status']}; " if refused else ""
    if opened is None:
        return Outcome(
            "no-fallback", f"{said}it never opened the old transport's event stream",
            [refused[0]] if refused else [],
        )  # fmt: skip
    if ctx.initialize is not None:
        return Outcome(
            "fell-back",
            f"{said}it opened the event stream and initialized on the old transport",
            [opened[0], ctx.initialize.n],
        )
    return Outcome(
        "tried-get", f"{said}it opened the event stream but sent no initialize", [opened[0]]
    )
