"""Relay rules: what a proxy does with roots between its host and the server behind it.

Read from a proxy cell's merged transcript (see ``compare/play/_proxy.py``): every line
carries its ``leg``. On the ``host`` leg ``in`` is proxy → host (our scripted client) and
``out`` is host → proxy; on the ``upstream`` leg ``in`` is proxy → upstream (our peer) and
``out`` is upstream → proxy, with ``conn`` telling the peer's starts apart (a proxy may open
one upstream session per client session or per request). So ``in`` is always the proxy's.

The upstream asks inside the host's ``tools/call`` (it sends ``roots/list`` before it answers
the forwarded call, so over Streamable HTTP the question rides that call's response stream):
the moment a correct chain can relay it. The questions: does each such ``roots/list`` reach
the host while its call is pending (and only a host that declared roots), does the host's
answer come back unchanged, does the proxy declare roots upstream only when its host did, and
does ``notifications/roots/list_changed`` pass through. The upstream's ask right after its
handshake, which no Streamable HTTP chain can be expected to relay, is judged apart
(``relay_calls.py``), as is the fate of the calls themselves.
"""

from __future__ import annotations

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._legs import (
    CHANGED,
    Call,
    calls,
    current_roots,
    ended_between,
    host_answer_before,
    host_asks,
    host_changed,
    host_declared,
    in_call_asks,
    main_conn,
    on_leg,
    relays,
    response_on,
    roots_decl,
    roots_of,
    unanswered,
    upstream_asks,
    upstream_inits,
    uris,
)
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.server import handshake_failed


def _not_asked(ctx: Context) -> Outcome:
    """Why no roots/list was asked inside a forwarded call: no upstream connection, no call
    from the host, no call forwarded, or a forwarded call the upstream did not ask in."""
    inits = upstream_inits(ctx)
    if not inits:
        return Outcome("upstream-not-asked", "the proxy never sent initialize to the upstream")
    mine = calls(ctx)
    if not mine:
        return Outcome(
            "upstream-not-asked",
            "the host sent no tools/call (the proxy listed no tool for it to call)",
            _ev(inits[0]),
        )
    lost = [c for c in mine if c.up is None]
    if len(lost) == len(mine):
        said = ", ".join(f"{c.name} (host line {c.host.n})" for c in mine)
        return Outcome(
            "upstream-not-asked",
            f"no tools/call reached the upstream while the host's was pending: {said}",
            _ev(*[c.host for c in mine]),
        )
    sent = [c for c in mine if c.up is not None]
    return Outcome(
        "upstream-not-asked",
        f"the upstream asked no roots/list inside the forwarded call(s) "
        f"({', '.join(f'upstream line {c.up.n}' for c in sent if c.up)})",
        _ev(*[c.up for c in sent]),
    )


def _pairs(ctx: Context) -> dict[int, Line | None]:
    """Every upstream roots/list (in a call or not) with the host question that relayed it,
    by line: one host question counts for one ask, the latest asked whose window holds it."""
    return {a.n: h for a, h in relays(ctx, upstream_asks(ctx))}


def _relayed_in_call(ctx: Context) -> list[tuple[Call, Line, Line | None]]:
    """Each in-call ask with the host question that relayed it while the call was pending."""
    pairs = _pairs(ctx)
    out: list[tuple[Call, Line, Line | None]] = []
    for call, ask in in_call_asks(ctx):
        hit = pairs.get(ask.n)
        out.append((call, ask, hit if hit is not None and call.pending_at(hit.t) else None))
    return out


def _where(call: Call, ask: Line) -> str:
    up = call.up
    assert up is not None
    return (
        f"{call.name} (host line {call.host.n}) -> upstream connection {up.conn} line {up.n}:"
        f" roots/list line {ask.n}"
    )


@rule(
    "relay-asks",
    ("relayed", "partly-relayed", "prefetched", "not-relayed", "upstream-not-asked",
     "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_asks(ctx: Context) -> Outcome:
    each = _relayed_in_call(ctx)
    if not each:
        return _not_asked(ctx)
    said = "; ".join(
        _where(c, a)
        + (f" -> host line {h.n} ({h.t - a.t:.3f} s, the call pending)" if h else " not relayed")
        for c, a, h in each
    )
    relayed = [(a, h) for _, a, h in each if h is not None]
    if relayed and len(relayed) == len(each):
        return Outcome("relayed", said, _ev(*[x for a, h in relayed for x in (a, h)]))
    if relayed:
        return Outcome("partly-relayed", said, _ev(*[x for _, a, h in each for x in (a, h)]))
    first = each[0][1]
    claimed = {h.n for h in _pairs(ctx).values() if h is not None}
    hosts = [h for h in host_asks(ctx) if h.t < first.t and h.n not in claimed]
    if hosts:
        return Outcome(
            "prefetched",
            f"the host was asked (line {hosts[0].n}) only before the upstream asked in a call,"
            f" for no ask of the upstream; {said}",
            _ev(hosts[0], first),
        )
    late = [h for _, a, h0 in each if h0 is None and (h := _pairs(ctx).get(a.n)) is not None]
    if late:
        said += f" (host line {late[0].n} came once the call was no longer pending)"
    return Outcome(
        "not-relayed",
        f"no roots/list reached the host while a call was pending; {said}",
        _ev(*[a for _, a, _h in each]),
    )


#: When asks differ, the one reported: a changed answer first, then one the proxy made up,
#: then a relayed one, then an error, then none at all (the observed text lists every ask).
_ANSWER_ORDER = ("uris-changed", "other-changed", "answered-by-proxy", "unchanged", "error",
                 "no-answer")  # fmt: skip


def _answer_one(ctx: Context, ask: Line) -> Outcome:
    got = response_on(ctx, ask, "upstream", "in")
    if got is None:
        how = unanswered(ctx, ask)
        return Outcome("no-answer", f"line {ask.n}: no response ({how})", _ev(ask))
    host = host_answer_before(ctx, got.t)
    if "error" in got.obj:
        said = f"line {ask.n}: an error, {got.raw}"
        if host is not None and "error" in host.obj:
            mine, theirs = host.obj["error"].get("code"), got.obj["error"].get("code")
            said += (
                f" (the host's own error, code {mine})"
                if mine == theirs
                else f" (the host answered error code {mine}; it arrived as {theirs})"
            )
            return Outcome("error", said, _ev(ask, host, got))
        return Outcome("error", said, _ev(ask, got))
    theirs = roots_of(got)
    if host is None:
        return Outcome(
            "answered-by-proxy",
            f"line {ask.n}: roots {uris(theirs)!r}, with no host answer before",
            _ev(ask, got),
        )
    mine = roots_of(host)
    if mine == theirs:
        same = _raw_roots(host) == _raw_roots(got)
        how = "byte for byte" if same else "the same values, re-serialised"
        return Outcome(
            "unchanged", f"line {ask.n}: the host's roots, {how}: {uris(theirs)!r}",
            _ev(ask, host, got),
        )  # fmt: skip
    if uris(mine) != uris(theirs):
        return Outcome(
            "uris-changed",
            f"line {ask.n}: the host answered {uris(mine)!r}; the upstream got {uris(theirs)!r}",
            _ev(ask, host, got),
        )
    return Outcome(
        "other-changed",
        f"line {ask.n}: same URIs, other fields differ: host {mine!r}; upstream {theirs!r}",
        _ev(ask, host, got),
    )


def _raw_roots(line: Line) -> str | None:
    """The roots array as it was written on the wire (its raw text), when it can be cut out."""
    raw = line.raw or ""
    start = raw.find('"roots":')
    return raw[start:] if start >= 0 else None


@rule("relay-answer", (*_ANSWER_ORDER, "upstream-not-asked", "no-initialize"),
      gate=handshake_failed)  # fmt: skip
def _relay_answer(ctx: Context) -> Outcome:
    each = [(c, _answer_one(ctx, a)) for c, a in in_call_asks(ctx)]
    if not each:
        return _not_asked(ctx)
    worst = min((o for _, o in each), key=lambda o: _ANSWER_ORDER.index(o.name))
    said = "; ".join(f"{c.name}: {o.observed}" for c, o in each)
    return Outcome(worst.name, said, worst.evidence)


#: Worst first: the proxy's answers on every upstream connection, reported by the worst.
_REPLY_ORDER = ("silence", "result-undeclared", "closed", "error-declared", "result-declared",
                "error-undeclared")  # fmt: skip


@rule("relay-upstream-reply", (*_REPLY_ORDER, "upstream-not-asked", "no-initialize"),
      gate=handshake_failed)  # fmt: skip
def _relay_upstream_reply(ctx: Context) -> Outcome:
    asks = [ask for _, ask in in_call_asks(ctx)]
    if not asks:
        return _not_asked(ctx)
    each: list[Outcome] = []
    for ask in asks:
        init = next((x for x in upstream_inits(ctx) if x.conn == ask.conn), None)
        declared = init is not None and roots_decl(init) is not None
        said = f"connection {ask.conn} ({'declared' if declared else 'declared no'} roots)"
        got = response_on(ctx, ask, "upstream", "in")
        if got is None:
            how = unanswered(ctx, ask)
            each.append(Outcome(how, f"{said}: line {ask.n} got no answer ({how})", _ev(ask)))
            continue
        kind = "error" if "error" in got.obj else "result"
        name = f"{kind}-{'declared' if declared else 'undeclared'}"
        each.append(
            Outcome(
                name,
                f"{said}: line {ask.n} got {'an error' if kind == 'error' else 'a result'}",
                _ev(ask, got),
            )
        )
    worst = min(each, key=lambda o: _REPLY_ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


@rule(
    "relay-declares",
    ("same-as-host", "declared-without-host", "not-declared", "list-changed-differs",
     "upstream-not-connected", "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_declares(ctx: Context) -> Outcome:
    inits = upstream_inits(ctx)
    if not inits:
        return Outcome("upstream-not-connected", "the proxy never sent initialize to the upstream")
    host = host_declared(ctx)
    conn = main_conn(ctx)
    init = next((x for x in inits if x.conn == conn), inits[0])
    mine = roots_decl(init)
    others = [f"{x.conn}: {roots_decl(x)!r}" for x in inits if x is not init]
    where = f"upstream connection {init.conn}: capabilities.roots = {mine!r}; host: {host!r}" + (
        f" (other connections: {', '.join(others)})" if others else ""
    )
    if host is None and mine is not None:
        return Outcome("declared-without-host", where, _ev(init))
    if host is not None and mine is None:
        return Outcome("not-declared", where, _ev(init))
    if (
        host is not None
        and mine is not None
        and bool(host.get("listChanged")) != bool(mine.get("listChanged"))
    ):
        return Outcome("list-changed-differs", where, _ev(init))
    return Outcome("same-as-host", where, _ev(init))


@rule(
    "relay-list-changed",
    ("passed", "passed-undeclared", "not-passed-declared", "not-passed", "no-upstream-open",
     "not-sent", "upstream-not-connected", "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_list_changed(ctx: Context) -> Outcome:
    sent = host_changed(ctx)
    if sent is None:
        return Outcome("not-sent", "the host's list_changed never reached the proxy")
    inits = upstream_inits(ctx)
    if not inits:
        return Outcome("upstream-not-connected", "the proxy never sent initialize to the upstream")
    passed = [
        x
        for x in on_leg(ctx, "upstream")
        if x.dir == "in" and x.method == CHANGED and x.t >= sent.t
    ]
    lc = {x.conn: bool((roots_decl(x) or {}).get("listChanged")) for x in inits}
    if passed:
        first = passed[0]
        name = "passed" if lc.get(first.conn) else "passed-undeclared"
        wait = first.t - sent.t
        return Outcome(name, f"reached the upstream {wait:.3f} s later (line {first.n})",
                       _ev(sent, first))  # fmt: skip
    open_conns = [
        x.conn
        for x in inits
        if x.t <= sent.t and ended_between(ctx, "upstream", x.conn, x.n, sent.n) is None
    ]
    if not open_conns:
        return Outcome(
            "no-upstream-open",
            f"no upstream connection was open when the host sent list_changed (line {sent.n})",
            _ev(sent),
        )
    relayed = _relay_asks(ctx).name in ("relayed", "partly-relayed")
    if relayed and any(lc.get(c) for c in open_conns):
        return Outcome(
            "not-passed-declared",
            f"the proxy declared listChanged upstream and relays roots/list, yet the host's"
            f" list_changed (line {sent.n}) never reached the upstream",
            _ev(sent),
        )
    return Outcome("not-passed", f"the host's list_changed (line {sent.n}) stayed with the proxy",
                   _ev(sent))  # fmt: skip


@rule(
    "relay-after-change",
    ("fresh", "stale", "error", "no-answer", "not-asked-again", "no-initialize"),
    gate=handshake_failed,
)
def _relay_after_change(ctx: Context) -> Outcome:
    sent = host_changed(ctx)
    later = [(c, a) for c, a in in_call_asks(ctx) if sent is not None and c.host.t > sent.t]
    if not later:
        after = [c for c in calls(ctx) if sent is not None and c.host.t > sent.t]
        why = (
            "the host sent no tools/call after the change"
            if not after
            else f"no roots/list was asked inside {after[0].name} (host line {after[0].host.n})"
        )
        return Outcome("not-asked-again", f"the upstream did not ask after the change: {why}")
    call, ask = later[0]
    got = response_on(ctx, ask, "upstream", "in")
    where = _where(call, ask)
    if got is None:
        return Outcome("no-answer", f"{where}: no answer", _ev(ask))
    if "error" in got.obj:
        return Outcome("error", f"{where}: an error, {got.raw}", _ev(ask, got))
    now = [r.get("uri") for r in current_roots(ctx)]
    got_uris = uris(roots_of(got))
    name = "fresh" if got_uris == now else "stale"
    return Outcome(
        name, f"{where}: the upstream got {got_uris!r}; the host's roots were {now!r}",
        _ev(ask, got),
    )  # fmt: skip
