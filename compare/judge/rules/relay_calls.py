"""Relay rules beside the in-call question: the upstream's ask right after its handshake, and
what became of the host's tool calls that carried the in-call questions.

The ask right after ``notifications/initialized`` is recorded, never graded: over Streamable
HTTP a server-to-client request sent outside any client request needs the client's standalone
GET stream, which a client MAY never open, so whether such a request reaches the host (and
whether the host even had its initialize result yet) measures a race between the chain's
programs, not a duty of the proxy. The evidence says when it was sent, so a reader can tell.
The calls are recorded too: a proxy that answers the host's call at all is a server's duty
toward its host, outside what these scenarios grade (the proxy's duties as a client).
"""

from __future__ import annotations

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._legs import (
    Call,
    calls,
    host_asks,
    main_conn,
    on_leg,
    relays,
    response_on,
    unanswered,
    unsolicited_asks,
    upstream_asks,
    upstream_inits,
)
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.server import handshake_failed

INITIALIZED = "notifications/initialized"


def _timing(ctx: Context, ask: Line) -> tuple[str, Line | None]:
    """When ``ask`` was sent: ms after its connection's initialized, and whether our host had
    its initialize result by then (the proxy's reply on the host leg)."""
    ready = next(
        (
            x
            for x in on_leg(ctx, "upstream")
            if x.conn == ask.conn and x.dir == "in" and x.method == INITIALIZED and x.n < ask.n
        ),
        None,
    )
    init = next(
        (x for x in on_leg(ctx, "host") if x.dir == "out" and x.method == "initialize"), None
    )
    result = response_on(ctx, init, "host", "in") if init is not None else None
    after = (
        f"{(ask.t - ready.t) * 1000:.1f} ms after notifications/initialized (line {ready.n})"
        if ready is not None
        else "with no notifications/initialized before it"
    )
    if result is not None and result.t <= ask.t:
        had = f"the host had its initialize result ({(ask.t - result.t) * 1000:.1f} ms before)"
    elif result is not None:
        had = (
            "the host did not yet have its initialize result (it came "
            f"{(result.t - ask.t) * 1000:.1f} ms later)"
        )
    else:
        had = "the host never got an initialize result"
    return f"sent {after}; {had}", ready


@rule(
    "relay-unsolicited",
    ("relayed", "proxy-result", "proxy-error", "unanswered", "closed", "upstream-not-asked",
     "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_unsolicited(ctx: Context) -> Outcome:
    asks = unsolicited_asks(ctx)
    if not asks:
        inits = upstream_inits(ctx)
        why = (
            "the proxy never sent initialize to the upstream"
            if not inits
            else "the upstream sent no roots/list outside a call"
        )
        return Outcome("upstream-not-asked", why, _ev(*inits[:1]))
    conn = main_conn(ctx)
    ask = next((a for a in asks if a.conn == conn), asks[0])
    pairs = {a.n: h for a, h in relays(ctx, upstream_asks(ctx))}
    when, ready = _timing(ctx, ask)
    others = [a for a in asks if a is not ask]
    tail = (
        f" (also asked outside a call on connection(s) {sorted({a.conn or 0 for a in others})})"
        if others
        else ""
    )
    where = f"upstream connection {ask.conn} line {ask.n}, {when}"
    hit = pairs.get(ask.n)
    got = response_on(ctx, ask, "upstream", "in")
    if hit is not None:
        back = f"; answered at line {got.n}" if got is not None else "; no answer came back"
        return Outcome(
            "relayed",
            f"{where}: reached the host at line {hit.n}{back}{tail}",
            _ev(ready, ask, hit, got),
        )
    if got is not None:
        name = "proxy-error" if "error" in got.obj else "proxy-result"
        asked = [h for h in host_asks(ctx) if h.t < got.t]
        said = f"; the host had been asked before (line {asked[0].n})" if asked else ""
        return Outcome(
            name,
            f"{where}: the proxy answered it itself (line {got.n}){said}{tail}",
            _ev(ready, ask, got),
        )
    how = unanswered(ctx, ask)
    name = "unanswered" if how == "silence" else "closed"
    return Outcome(name, f"{where}: no answer ({how}){tail}", _ev(ready, ask))


#: Worst first: a call the host never heard back on, then an error, then one answered
#: without the upstream having been reached, then one answered as the upstream did.
_CALL_ORDER = ("not-answered", "error", "answered-without-upstream", "answered")


def _call_one(call: Call) -> Outcome:
    reply = call.host_reply
    where = f"{call.name} (host line {call.host.n})"
    up = (
        f"forwarded on upstream connection {call.up.conn} line {call.up.n}"
        if call.up is not None
        else "never reached the upstream while pending"
    )
    if reply is None:
        return Outcome("not-answered", f"{where}: {up}; no reply to the host", _ev(call.host))
    if "error" in reply.obj:
        return Outcome(
            "error",
            f"{where}: {up}; the host got an error, {reply.raw}",
            _ev(call.host, call.up, reply),
        )
    if call.up is None or call.up_reply is None:
        return Outcome(
            "answered-without-upstream",
            f"{where}: {up}; the host got a result (line {reply.n}) the upstream never sent",
            _ev(call.host, reply),
        )
    return Outcome(
        "answered",
        f"{where}: {up}, answered there at line {call.up_reply.n}; the host got a result at"
        f" line {reply.n} ({len(call.asks)} roots/list asked while it was pending)",
        _ev(call.host, call.up, call.up_reply, reply),
    )


@rule(
    "relay-call",
    (*_CALL_ORDER, "not-called", "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_call(ctx: Context) -> Outcome:
    mine = calls(ctx)
    if not mine:
        return Outcome(
            "not-called", "the host sent no tools/call (the proxy listed no tool for it to call)"
        )
    each = [_call_one(c) for c in mine]
    worst = min(each, key=lambda o: _CALL_ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


def forwarded_session(ctx: Context, conn: int | None) -> str | None:
    """How the session on upstream connection ``conn`` is the host's own, or None.

    A transport bridge (stdio ↔ HTTP) forwards its host's ``initialize`` to the server and
    the server's result back: the capabilities are negotiated between host and server, end to
    end, and the bridge negotiates nothing of its own. A proxy that opens a session of its
    own (its own client name or capabilities upstream, its own server name toward the host)
    is a party to both sessions. Only the first kind leaves a question the server asks of a
    host that never declared roots to the server alone.
    """
    host_init = next(
        (x for x in on_leg(ctx, "host") if x.dir == "out" and x.method == "initialize"), None
    )
    up_init = next((x for x in upstream_inits(ctx) if x.conn == conn), None)
    if host_init is None or up_init is None:
        return None
    mine, theirs = host_init.params, up_init.params
    name = str((mine.get("clientInfo") or {}).get("name") or "")
    said = str((theirs.get("clientInfo") or {}).get("name") or "")
    if (
        not name
        or not said.startswith(name)
        or mine.get("capabilities") != theirs.get("capabilities")
        or mine.get("protocolVersion") != theirs.get("protocolVersion")
    ):
        return None
    host_result = response_on(ctx, host_init, "host", "in")
    up_result = response_on(ctx, up_init, "upstream", "out")
    if host_result is None or up_result is None:
        return None
    info = (host_result.obj.get("result") or {}).get("serverInfo")
    if info is None or info != (up_result.obj.get("result") or {}).get("serverInfo"):
        return None
    return (
        f"the host's initialize (line {host_init.n}) reached the upstream as line {up_init.n}"
        f" with the same capabilities and protocol version (client {said!r}), and the"
        f" upstream's result (line {up_result.n}) reached the host (line {host_result.n}):"
        " the session is the host's own, end to end"
    )


@rule(
    "relay-asks-undeclared",
    ("relayed", "partly-relayed", "prefetched", "not-relayed", "forwarded-session",
     "upstream-not-asked", "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_asks_undeclared(ctx: Context) -> Outcome:
    """``relay-asks`` for a host that declared no roots, with one more outcome: a question
    passed on through a session the bridge only forwards is the server's use of an
    unnegotiated capability, not the bridge's (see :func:`forwarded_session`)."""
    from compare.judge.rules._registry import RULES

    seen = RULES["relay-asks"].fn(ctx)
    if seen.name not in ("relayed", "partly-relayed"):
        return seen
    conns = {x.conn for x in upstream_asks(ctx) if x.n in seen.evidence}
    how = [forwarded_session(ctx, conn) for conn in sorted(conns, key=lambda c: c or 0)]
    if how and all(how):
        return Outcome(
            "forwarded-session",
            f"{seen.observed}; {how[0]}, so the upstream, not the proxy, asked a host that"
            " never declared roots",
            seen.evidence,
        )
    return seen
