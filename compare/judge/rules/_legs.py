"""Reading a proxy cell's merged transcript: which leg and connection a line travelled, which
response answers which request on it, and which upstream question the host was asked for.

Kept apart from the relay rules (``relay.py``) so each stays small; see ``_proxy.py`` for how
the two recordings are merged and what ``leg`` and ``conn`` mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context

LIST = "roots/list"
CALL = "tools/call"
CHANGED = "notifications/roots/list_changed"
#: Notes that say a recorder's connection ended.
_ENDED = ("stdin-closed", "signal", "write-failed", "server-closed", "session-deleted")


def on_leg(ctx: Context, leg: str) -> list[Line]:
    return [x for x in ctx.tx.lines if x.leg == leg]


def host_declared(ctx: Context) -> dict[str, Any] | None:
    """What our host declared as ``capabilities.roots`` (None: no roots capability)."""
    caps = ctx.plan.get("capabilities")
    roots = caps.get("roots") if isinstance(caps, dict) else None
    return roots if isinstance(roots, dict) else None


def upstream_asks(ctx: Context) -> list[Line]:
    """The peer's roots/list requests to the proxy, in order; a request our HTTP upstream
    held back and never delivered (no stream toward the proxy was open, see
    ``peer/_http_server``) never left our end, so it is no question the proxy lost."""
    asks = [
        x for x in on_leg(ctx, "upstream") if x.dir == "out" and x.is_request and x.method == LIST
    ]
    held = held_back(ctx)
    return [x for x in asks if x.n not in held]


def held_back(ctx: Context) -> set[int]:
    """Upstream requests our HTTP end held for want of a stream and never delivered."""
    routed = [
        (n, note)
        for n, note in ctx.tx.notes
        if note.get("leg") == "upstream" and note.get("event") == "routed" and "method" in note
    ]
    out: set[int] = set()
    for x in on_leg(ctx, "upstream"):
        if x.dir != "out" or not x.is_request:
            continue
        mine = [
            note
            for n, note in routed
            if n > x.n
            and note.get("conn") == x.conn
            and note.get("method") == x.method
            and _same_id(note.get("id"), x.obj.get("id"))
        ]
        delivered = any(note.get("was_held") and note.get("delivered") for note in mine[1:])
        if mine and mine[0].get("to") == "held" and not delivered:
            out.add(x.n)
    return out


def host_asks(ctx: Context) -> list[Line]:
    """The proxy's roots/list requests to our host, in order."""
    return [x for x in on_leg(ctx, "host") if x.dir == "in" and x.is_request and x.method == LIST]


def upstream_inits(ctx: Context) -> list[Line]:
    """The proxy's initialize requests to the peer (one per upstream connection)."""
    return [
        x
        for x in on_leg(ctx, "upstream")
        if x.dir == "in" and x.is_request and x.method == "initialize"
    ]


def roots_decl(line: Line) -> dict[str, Any] | None:
    caps = line.params.get("capabilities")
    roots = caps.get("roots") if isinstance(caps, dict) else None
    return roots if isinstance(roots, dict) else None


def _same_id(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def response_on(ctx: Context, request: Line, leg: str, direction: str) -> Line | None:
    """The response to ``request`` on its own leg and connection, travelling ``direction``."""
    rid = request.obj.get("id")
    for x in ctx.tx.lines:
        if (
            x.leg == leg
            and x.conn == request.conn
            and x.dir == direction
            and x.n > request.n
            and x.is_response
            and _same_id(x.obj.get("id"), rid)
        ):
            return x
    return None


def main_conn(ctx: Context) -> int | None:
    """The upstream connection that carries the host's session: the first that received a
    request forwarded from the host (tools/list); else the first that asked roots/list; else
    the first one. A proxy may open others (a probe, a session per request) beside it."""
    ups = on_leg(ctx, "upstream")
    forwarded = [x for x in ups if x.dir == "in" and x.is_request and x.method == "tools/list"]
    if forwarded:
        return forwarded[0].conn
    asks = upstream_asks(ctx)
    if asks:
        return asks[0].conn
    inits = upstream_inits(ctx)
    return inits[0].conn if inits else None


def main_asks(ctx: Context) -> list[Line]:
    """The upstream's roots/list requests on the connection that carries the host's session."""
    conn = main_conn(ctx)
    return [x for x in upstream_asks(ctx) if x.conn == conn]


def _ask_end(ctx: Context, ask: Line) -> float:
    """Until when a relay of ``ask`` counts: its answer, else the end of its step's bound."""
    got = response_on(ctx, ask, "upstream", "in")
    if got is not None:
        return got.t
    for n, _note in _steps_done_after(ctx, ask):
        line = ctx.tx.by_n(n)
        return line.t if line is not None else _note_t(ctx, n)
    return float("inf")


def _steps_done_after(ctx: Context, ask: Line) -> list[tuple[int, dict[str, Any]]]:
    """The peer's step-done notes on ``ask``'s upstream connection after it, in order."""
    return [
        (n, note)
        for n, note in ctx.tx.notes
        if n > ask.n
        and note.get("leg") == "upstream"
        and note.get("conn") == ask.conn
        and note.get("event") == "step-done"
    ]


def _note_t(ctx: Context, n: int) -> float:
    """The time of note ``n`` (notes are not wire lines): that of the nearest line before it."""
    before = [x.t for x in ctx.tx.lines if x.n < n]
    return before[-1] if before else 0.0


def relays(ctx: Context, asks: list[Line]) -> list[tuple[Line, Line | None]]:
    """Each upstream ask with the host's roots/list that relayed it (None: none did). A host
    question counts for one ask only: of those whose window holds it, the latest asked (a
    proxy relays at once, so an older ask still open, say on a probe connection nobody
    answers, does not take the question a newer ask caused)."""
    ends = {a.n: _ask_end(ctx, a) for a in asks}
    taken: dict[int, Line] = {}
    for host in host_asks(ctx):
        open_asks = [a for a in asks if a.n not in taken and a.t <= host.t <= ends[a.n]]
        if open_asks:
            taken[max(open_asks, key=lambda a: (a.t, a.n)).n] = host
    return [(a, taken.get(a.n)) for a in asks]


def roots_of(line: Line) -> Any:
    result = line.obj.get("result")
    return result.get("roots") if isinstance(result, dict) else None


def uris(roots: Any) -> list[Any]:
    return [r.get("uri") if isinstance(r, dict) else r for r in roots or []]


def host_answer_before(ctx: Context, t: float) -> Line | None:
    """The host's latest answer to a relayed roots/list sent before time ``t``."""
    best = None
    for ask in host_asks(ctx):
        answer = response_on(ctx, ask, "host", "out")
        if answer is not None and answer.t <= t and (best is None or answer.t > best.t):
            best = answer
    return best


def ended_between(
    ctx: Context, leg: str, conn: int | None, after: int, before: int | None
) -> int | None:
    """The note where ``leg``/``conn``'s connection ended between two line numbers."""
    for n, note in ctx.tx.notes:
        if note.get("leg") != leg or note.get("conn") != conn or note.get("event") not in _ENDED:
            continue
        if n > after and (before is None or n < before):
            return n
    return None


def _step_done(ctx: Context, leg: str, conn: int | None, label: str) -> tuple[int, Any] | None:
    for n, note in ctx.tx.notes:
        if (
            note.get("leg") == leg
            and note.get("conn") == conn
            and note.get("event") == "step-done"
            and note.get("label") == label
        ):
            return n, note.get("outcome")
    return None


def _ask_done(ctx: Context, ask: Line) -> tuple[int, Any] | None:
    """The peer's step-done note of the request step that sent ``ask`` (by its id)."""
    rid = ask.obj.get("id")
    for n, note in _steps_done_after(ctx, ask):
        if _same_id(note.get("id"), rid):
            return n, note.get("outcome")
    return None


def unanswered(ctx: Context, ask: Line) -> str:
    """``silence`` when the upstream connection stayed open through the ask's whole bound."""
    done = _ask_done(ctx, ask) or _step_done(ctx, "upstream", ask.conn, "ask")
    bound = done[0] if done is not None and done[1] == "timeout" else None
    if bound is None or ended_between(ctx, "upstream", ask.conn, ask.n, bound) is not None:
        return "closed"
    return "silence"


def host_changed(ctx: Context) -> Line | None:
    """Our host's notifications/roots/list_changed, when it reached the proxy."""
    for x in on_leg(ctx, "host"):
        if x.dir == "out" and x.method == CHANGED and not ctx.write_failed(x.n):
            return x
    return None


def current_roots(ctx: Context) -> list[dict[str, Any]]:
    """The host's roots after its set_roots step (from the plan's folders and step)."""
    folders = ctx.plan.get("folders") or {}
    for _, note in ctx.tx.notes:
        step = note.get("step")
        if note.get("leg") == "host" and isinstance(step, dict) and "set_roots" in step:
            return [folders[name] for name in step["set_roots"] if name in folders]
    return [folders[name] for name in ctx.plan.get("roots", []) if name in folders]


@dataclass
class Call:
    """One tools/call of our host and where it went: the upstream request it became (the
    first forwarded while it was pending), the upstream's reply there, the roots/list the
    upstream sent while that forwarded call was pending, and the proxy's reply to the host."""

    label: str | None
    host: Line
    host_reply: Line | None
    up: Line | None = None
    up_reply: Line | None = None
    asks: list[Line] = field(default_factory=list)

    def pending_at(self, t: float) -> bool:
        """Whether the host's call was still waiting for its reply at time ``t``."""
        return self.host.t <= t and (self.host_reply is None or t <= self.host_reply.t)

    @property
    def name(self) -> str:
        return self.label or f"call at host line {self.host.n}"


def _host_label(ctx: Context, line: Line) -> str | None:
    """The label of the host step that sent ``line`` (its step-done note names its id)."""
    rid = line.obj.get("id")
    for n, note in ctx.tx.notes:
        if (
            n > line.n
            and note.get("leg") == "host"
            and note.get("event") == "step-done"
            and _same_id(note.get("id"), rid)
        ):
            label = note.get("label")
            return label if isinstance(label, str) else None
    return None


def calls(ctx: Context) -> list[Call]:
    """Every tools/call our host sent, in order, followed to the upstream and back."""
    ups = on_leg(ctx, "upstream")
    forwarded = [x for x in ups if x.dir == "in" and x.is_request and x.method == CALL]
    out: list[Call] = []
    for line in on_leg(ctx, "host"):
        if line.dir != "out" or not line.is_request or line.method != CALL:
            continue
        call = Call(_host_label(ctx, line), line, response_on(ctx, line, "host", "in"))
        call.up = next((x for x in forwarded if call.pending_at(x.t)), None)
        if call.up is not None:
            forwarded.remove(call.up)
            call.up_reply = response_on(ctx, call.up, "upstream", "out")
            call.asks = [
                x
                for x in upstream_asks(ctx)
                if x.conn == call.up.conn
                and x.n > call.up.n
                and (call.up_reply is None or x.n < call.up_reply.n)
            ]
        out.append(call)
    return out


def in_call_asks(ctx: Context) -> list[tuple[Call, Line]]:
    """Each upstream roots/list sent while a forwarded call was pending, with that call."""
    return [(call, ask) for call in calls(ctx) for ask in call.asks]


def unsolicited_asks(ctx: Context) -> list[Line]:
    """The upstream's roots/list sent outside any forwarded call (right after its handshake)."""
    inside = {ask.n for _, ask in in_call_asks(ctx)}
    return [x for x in upstream_asks(ctx) if x.n not in inside]
