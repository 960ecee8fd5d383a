"""Relay rules for any feature: the method, capability or notification is named by the check.

The roots relay (``relay.py``) reads one method with its own cache and change questions. Every
other feature a proxy may carry asks the same four things, so a new area's proxy scenario
names its method here instead of adding a rule:

- ``relay-request``: does the upstream's request of ``method``, sent while a forwarded
  ``tools/call`` was pending, reach our host while the host's call is pending (the moment any
  chain, Streamable HTTP included, can carry it)?
- ``relay-request-answer``: does the host's answer come back to the upstream unchanged?
- ``relay-request-reply``: how the proxy, as a client, answers that request upstream, against
  what it declared there as ``capability``: a client owes a response to every request, and one
  that answers a feature's request with a result supports it, so it must have declared it.
- ``relay-capability``: does the proxy declare the client ``capability`` upstream as its host
  did?
- ``relay-notification``: does the upstream's notification of ``method``, sent inside a
  forwarded call, reach the host unchanged; with ``server_capability``, a proxy that passes it
  on without declaring that capability to the host reads ``passed-undeclared`` (a server that
  emits it must declare it).
- ``relay-server-capability``: does the proxy declare to its host the server ``capability``
  the upstream declared to it?

Every question is asked inside the host's call (see ``relay.py`` for why), and every pairing
is by method and time on the merged transcript: a host line counts for one upstream line only.
"""

from __future__ import annotations

import json
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._legs import (
    Call,
    calls,
    held_back,
    main_conn,
    on_leg,
    response_on,
    unanswered,
    upstream_inits,
)
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules.server import handshake_failed

_METHOD = Param("method", "the method the upstream sends inside the host's call", required=True)
_CLIENT_CAP = Param("capability", "the client capability the request belongs to", required=True)
_NOT_ASKED = "upstream-not-asked"


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _in_call(ctx: Context, method: str, requests: bool) -> list[tuple[Call, Line]]:
    """Each upstream line of ``method`` (a request, or a notification) sent on a forwarded
    call's connection while that call was pending, with the call; a request our HTTP end held
    back and never delivered never left us, so it is no line the proxy lost."""
    held = held_back(ctx)
    out: list[tuple[Call, Line]] = []
    for call in calls(ctx):
        up = call.up
        if up is None:
            continue
        for x in on_leg(ctx, "upstream"):
            if (
                x.dir == "out"
                and x.method == method
                and x.is_request == requests
                and x.conn == up.conn
                and x.n > up.n
                and (call.up_reply is None or x.n < call.up_reply.n)
                and x.n not in held
            ):
                out.append((call, x))
    return out


def _not_sent(ctx: Context, what: str) -> Outcome:
    """Why the upstream sent nothing inside a call: no connection, no call, none forwarded."""
    inits = upstream_inits(ctx)
    if not inits:
        return Outcome(_NOT_ASKED, "the proxy never sent initialize to the upstream")
    mine = calls(ctx)
    if not mine:
        return Outcome(
            _NOT_ASKED,
            "the host sent no tools/call (the proxy listed no tool for it to call)",
            _ev(inits[0]),
        )
    if all(c.up is None for c in mine):
        said = ", ".join(f"{c.name} (host line {c.host.n})" for c in mine)
        return Outcome(
            _NOT_ASKED,
            f"no tools/call reached the upstream while the host's was pending: {said}",
            _ev(*[c.host for c in mine]),
        )
    return Outcome(
        _NOT_ASKED,
        f"the upstream sent no {what} inside the forwarded call(s)",
        _ev(*[c.up for c in mine]),
    )


def _paired(ctx: Context, method: str, requests: bool) -> list[tuple[Call, Line, Line | None]]:
    """Each in-call upstream line with the first host line of the same method after it while
    the host's call was pending (each host line taken once)."""
    host = [
        x
        for x in on_leg(ctx, "host")
        if x.dir == "in" and x.method == method and x.is_request == requests
    ]
    taken: set[int] = set()
    out: list[tuple[Call, Line, Line | None]] = []
    for call, up in _in_call(ctx, method, requests):
        hit = next(
            (h for h in host if h.n not in taken and h.t >= up.t and call.pending_at(h.t)), None
        )
        if hit is not None:
            taken.add(hit.n)
        out.append((call, up, hit))
    return out


def _where(call: Call, up: Line, host: Line | None) -> str:
    said = f"{call.name}: upstream line {up.n} ({up.method})"
    if host is None:
        return said + " reached no host line while the call was pending"
    return said + f" -> host line {host.n} ({host.t - up.t:.3f} s later, the call pending)"


@rule(
    "relay-request",
    ("relayed", "partly-relayed", "not-relayed", _NOT_ASKED, "no-initialize"),
    gate=handshake_failed,
    params={"method": _METHOD},
)
def _relay_request(ctx: Context) -> Outcome:
    method = str(ctx.params["method"])
    each = _paired(ctx, method, requests=True)
    if not each:
        return _not_sent(ctx, method)
    said = "; ".join(_where(c, u, h) for c, u, h in each)
    hits = [h for _, _, h in each if h is not None]
    evidence = _ev(*[x for _, u, h in each for x in (u, h)])
    if len(hits) == len(each):
        return Outcome("relayed", said, evidence)
    return Outcome("partly-relayed" if hits else "not-relayed", said, evidence)


#: When answers differ, the one reported: a changed answer first, then one the proxy made up,
#: then an error, then none, then an unchanged one (the observed text lists every answer).
_ANSWER_ORDER = ("changed", "answered-by-proxy", "error", "no-answer", "unchanged")


def _answer_one(ctx: Context, up: Line, host: Line | None) -> Outcome:
    got = response_on(ctx, up, "upstream", "in")
    if got is None:
        return Outcome("no-answer", f"upstream line {up.n}: no answer came back", _ev(up))
    if "error" in got.obj:
        return Outcome(
            "error", f"upstream line {up.n}: answered with an error, {got.raw}", _ev(up, got)
        )
    if host is None:
        return Outcome(
            "answered-by-proxy",
            f"upstream line {up.n}: a result (line {got.n}) though the host was not asked",
            _ev(up, got),
        )
    given = response_on(ctx, host, "host", "out")
    mine = given.obj.get("result") if given is not None else None
    theirs = got.obj.get("result")
    if given is not None and _canon(mine) == _canon(theirs):
        return Outcome(
            "unchanged",
            f"upstream line {up.n}: got at line {got.n} what the host answered at line {given.n}",
            _ev(up, given, got),
        )
    return Outcome(
        "changed",
        f"upstream line {up.n}: the host answered {_canon(mine)}; the upstream got"
        f" {_canon(theirs)} (line {got.n})",
        _ev(up, given, got),
    )


@rule(
    "relay-request-answer",
    (*_ANSWER_ORDER, _NOT_ASKED, "no-initialize"),
    gate=handshake_failed,
    params={"method": _METHOD},
)
def _relay_request_answer(ctx: Context) -> Outcome:
    method = str(ctx.params["method"])
    each = [_answer_one(ctx, u, h) for _, u, h in _paired(ctx, method, requests=True)]
    if not each:
        return _not_sent(ctx, method)
    worst = min(each, key=lambda o: _ANSWER_ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


def _upstream_declared(ctx: Context, conn: int | None, name: str) -> tuple[Any, Line | None]:
    """What the proxy's initialize on connection ``conn`` declared as client ``name``."""
    init = next((x for x in upstream_inits(ctx) if x.conn == conn), None)
    caps = init.params.get("capabilities") if init is not None else None
    return (caps.get(name) if isinstance(caps, dict) else None), init


#: Worst first: silence and a promise broken are what a reader must see.
_REPLY_ORDER = ("silence", "result-undeclared", "closed", "error-declared", "result-declared",
                "error-undeclared")  # fmt: skip


def _reply_one(ctx: Context, up: Line, name: str) -> Outcome:
    declared, init = _upstream_declared(ctx, up.conn, name)
    said = f"upstream line {up.n} ({up.method}), {name} declared there: {_canon(declared)}"
    got = response_on(ctx, up, "upstream", "in")
    if got is None:
        return Outcome(unanswered(ctx, up), f"{said}; no response", _ev(up))
    kind = "error" if "error" in got.obj else "result"
    state = "declared" if declared is not None else "undeclared"
    return Outcome(f"{kind}-{state}", f"{said}; a {kind} at line {got.n}", _ev(init, up, got))


@rule(
    "relay-request-reply",
    (*_REPLY_ORDER, _NOT_ASKED, "no-initialize"),
    gate=handshake_failed,
    params={"method": _METHOD, "capability": _CLIENT_CAP},
)
def _relay_request_reply(ctx: Context) -> Outcome:
    method = str(ctx.params["method"])
    name = str(ctx.params["capability"])
    each = [_reply_one(ctx, u, name) for _, u in _in_call(ctx, method, requests=True)]
    if not each:
        return _not_sent(ctx, method)
    worst = min(each, key=lambda o: _REPLY_ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


def _no_upstream(ctx: Context) -> Outcome | None:
    """The host's handshake failed, or the proxy never opened the upstream: nothing to compare."""
    early = handshake_failed(ctx)
    if early is not None or upstream_inits(ctx):
        return early
    return Outcome("upstream-not-connected", "the proxy never sent initialize to the upstream")


@rule(
    "relay-capability",
    ("same-as-host", "declared-without-host", "not-declared", "members-differ",
     "upstream-not-connected", "no-initialize"),
    gate=_no_upstream,
    params={"capability": Param("capability", "the client capability compared", required=True)},
)  # fmt: skip
def _relay_capability(ctx: Context) -> Outcome:
    name = str(ctx.params["capability"])
    caps = ctx.plan.get("capabilities")
    host = caps.get(name) if isinstance(caps, dict) else None
    mine, init = _upstream_declared(ctx, main_conn(ctx), name)
    where = (
        f"upstream connection {init.conn if init else '?'}: capabilities.{name} ="
        f" {_canon(mine)}; host: {_canon(host)}"
    )
    if host is None and mine is not None:
        return Outcome("declared-without-host", where, _ev(init))
    if host is not None and mine is None:
        return Outcome("not-declared", where, _ev(init))
    if host is not None and _canon(host) != _canon(mine):
        return Outcome("members-differ", where, _ev(init))
    return Outcome("same-as-host", where, _ev(init))


def _result_caps(ctx: Context, leg: str, init: Line | None) -> tuple[dict[str, Any], Line | None]:
    """The server capabilities in the answer to ``init`` on ``leg`` (the proxy's to our host
    on the host leg, the upstream's to the proxy on the upstream leg)."""
    got = response_on(ctx, init, leg, "in" if leg == "host" else "out") if init else None
    result = got.obj.get("result") if got is not None else None
    caps = result.get("capabilities") if isinstance(result, dict) else None
    return (caps if isinstance(caps, dict) else {}), got


def _host_result_caps(ctx: Context) -> tuple[dict[str, Any], Line | None]:
    """The server capabilities the proxy declared to our host (its initialize result)."""
    host = on_leg(ctx, "host")
    return _result_caps(
        ctx, "host", next((x for x in host if x.dir == "out" and x.method == "initialize"), None)
    )


def _upstream_result_caps(ctx: Context) -> tuple[dict[str, Any], Line | None]:
    """The server capabilities the upstream declared to the proxy on the main connection."""
    conn = main_conn(ctx)
    return _result_caps(
        ctx, "upstream", next((x for x in upstream_inits(ctx) if x.conn == conn), None)
    )


@rule(
    "relay-server-capability",
    ("passed-on", "not-passed-on", "added", "neither", "upstream-not-connected",
     "no-initialize"),
    gate=_no_upstream,
    params={"capability": Param("server_capability", "the server capability", required=True)},
)  # fmt: skip
def _relay_server_capability(ctx: Context) -> Outcome:
    name = str(ctx.params["capability"])
    up, up_line = _upstream_result_caps(ctx)
    host, host_line = _host_result_caps(ctx)
    where = f"upstream declared {name}: {_canon(up.get(name))}; host told: {_canon(host.get(name))}"
    evidence = _ev(up_line, host_line)
    if name in up:
        return Outcome("passed-on" if name in host else "not-passed-on", where, evidence)
    return Outcome("added" if name in host else "neither", where, evidence)


@rule(
    "relay-notification",
    ("passed-undeclared", "changed", "partly-passed", "passed", "not-passed", "upstream-not-sent",
     "no-initialize"),
    gate=handshake_failed,
    params={
        "method": Param("method", "the notification the upstream sends inside the call",
                        required=True),
        "server_capability": Param(
            "server_capability", "the server capability a server sending it must declare"
        ),
    },
)  # fmt: skip
def _relay_notification(ctx: Context) -> Outcome:
    method = str(ctx.params["method"])
    each = _paired(ctx, method, requests=False)
    if not each:
        lost = _not_sent(ctx, method)
        return Outcome("upstream-not-sent", lost.observed, lost.evidence)
    said = "; ".join(_where(c, u, h) for c, u, h in each)
    evidence = _ev(*[x for _, u, h in each for x in (u, h)])
    hits = [(u, h) for _, u, h in each if h is not None]
    if not hits:
        return Outcome("not-passed", said, evidence)
    cap = ctx.params.get("server_capability")
    host_caps, host_init = _host_result_caps(ctx)
    if cap and cap not in host_caps:
        return Outcome(
            "passed-undeclared",
            f"{said}; the proxy's initialize result to the host declares no {cap}",
            _ev(host_init, *[h for _, h in hits]),
        )
    changed = [(u, h) for u, h in hits if _canon(u.params) != _canon(h.params)]
    if changed:
        u, h = changed[0]
        return Outcome(
            "changed",
            f"{said}; params sent {_canon(u.params)}, received {_canon(h.params)}",
            _ev(u, h),
        )
    return Outcome("passed" if len(hits) == len(each) else "partly-passed", said, evidence)
