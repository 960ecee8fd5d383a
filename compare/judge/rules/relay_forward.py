"""A host's request through a proxy and back: ``relay-forward``, and ``relay-error`` for a
request the upstream refuses with a JSON-RPC error.

The other relay rules follow what the upstream asks of the host. A host's own requests go the
other way: the proxy forwards a ``prompts/get``, a ``resources/read`` or a
``completion/complete`` to the upstream, and hands the upstream's result back. What a proxy
does with that result is its own choice as a server toward its host (the spec asks nothing of
a relay), so this rule records it: the result the host got against the one the upstream sent,
compared member by member, with the first members that differ named; and the request as it
reached the upstream against the host's (a proxy that answers a completion for a reference it
never passed on, or adds a _meta of its own, shows there). A proxy that rebuilds a result
from its SDK's types drops what those types do not know; one that passes bytes on changes
nothing.

Each host request of ``method`` is paired with the first upstream request of the same method
that arrived while the host's was pending (a forwarded request cannot come before the host's
or after its answer), on the merged transcript; an upstream request counts for one host
request only.
"""

from __future__ import annotations

import json
import math
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._legs import on_leg, response_on
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules.server import handshake_failed

#: Worst first, when a host sent several: one never answered, then an error, then a result the
#: upstream never sent, then a changed result, then a result passed on as sent for a request
#: the proxy changed on its way (its params, against the host's), then both passed on as sent.
_ORDER = (
    "not-answered",
    "error",
    "answered-without-upstream",
    "changed",
    "request-changed",
    "unchanged",
)
#: How many differing members the observed text names at most.
_SHOWN = 4


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def differences(sent: Any, got: Any, at: str = "result") -> list[str]:
    """Where ``got`` differs from ``sent``: each path with what happened there (a member
    added or dropped, an item more or fewer, another value), in document order."""
    if isinstance(sent, dict) and isinstance(got, dict):
        out: list[str] = []
        for key in [*sent, *[k for k in got if k not in sent]]:
            path = f"{at}.{key}"
            if key not in got:
                out.append(f"{path} dropped")
            elif key not in sent:
                out.append(f"{path} added")
            else:
                out += differences(sent[key], got[key], path)
        return out
    if isinstance(sent, list) and isinstance(got, list):
        out = []
        for i, (a, b) in enumerate(zip(sent, got, strict=False)):
            out += differences(a, b, f"{at}[{i}]")
        if len(sent) != len(got):
            out.append(f"{at} has {len(got)} items, {len(sent)} sent")
        return out
    return (
        []
        if _canon(sent) == _canon(got)
        else [f"{at} is {_canon(got)[:80]}, sent {_canon(sent)[:80]}"]
    )


def _one(ctx: Context, host: Line, up: Line | None) -> Outcome:
    where = f"host line {host.n} ({host.method})"
    reply = response_on(ctx, host, "host", "in")
    if reply is None:
        forwarded = f", forwarded as upstream line {up.n}" if up is not None else ""
        return Outcome("not-answered", f"{where}{forwarded}: no answer came back", _ev(host, up))
    if "error" in reply.obj:
        return Outcome(
            "error", f"{where}: the proxy answered with an error, {reply.raw}", _ev(host, up, reply)
        )
    answer = response_on(ctx, up, "upstream", "out") if up is not None else None
    if up is None or answer is None or "result" not in answer.obj:
        why = "never reached the upstream" if up is None else "got no result from the upstream"
        return Outcome(
            "answered-without-upstream",
            f"{where}: {why}, and the host got a result (line {reply.n})",
            _ev(host, up, answer, reply),
        )
    asked = differences(host.params, up.params, "params")
    sent = "" if not asked else f"; the request reached it changed: {_named(asked)}"
    said = f"{where}, upstream line {up.n}{sent}; the upstream's result (line {answer.n})"
    changed = differences(answer.obj["result"], reply.obj.get("result"))
    evidence = _ev(host, up, answer, reply)
    if changed:
        return Outcome(
            "changed",
            f"{said} reached the host changed (line {reply.n}): {_named(changed)}",
            evidence,
        )
    name = "request-changed" if asked else "unchanged"
    return Outcome(name, f"{said} reached the host unchanged (line {reply.n})", evidence)


def _named(found: list[str]) -> str:
    """The differences found, counted, the first few named."""
    shown = "; ".join(found[:_SHOWN]) + ("; …" if len(found) > _SHOWN else "")
    return f"{len(found)} difference(s): {shown}"


@rule(
    "relay-forward",
    (*_ORDER, "not-sent", "no-initialize"),
    gate=handshake_failed,
    params={"method": Param("method", "the host's request the proxy forwards", required=True)},
)
def _relay_forward(ctx: Context) -> Outcome:
    method = str(ctx.params["method"])
    ups = [x for x in on_leg(ctx, "upstream") if x.dir == "in" and x.is_request]
    ups = [x for x in ups if x.method == method]
    hosts = [x for x in on_leg(ctx, "host") if x.dir == "out" and x.is_request]
    hosts = [x for x in hosts if x.method == method]
    if not hosts:
        return Outcome("not-sent", f"the host sent no {method} (a step before it did not play)")
    each = []
    for host in hosts:
        reply = response_on(ctx, host, "host", "in")
        end = reply.t if reply is not None else math.inf
        up = next((u for u in ups if host.t <= u.t <= end), None)
        if up is not None:
            ups.remove(up)
        each.append(_one(ctx, host, up))
    worst = min(each, key=lambda o: _ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


@rule(
    "relay-error",
    ("unchanged", "changed", "result-instead", "not-answered", "not-forwarded", "not-sent",
     "no-initialize"),
    gate=handshake_failed,
    params={"method": Param("method", "the host's request the upstream refuses", required=True)},
)  # fmt: skip
def _relay_error(ctx: Context) -> Outcome:
    """The upstream answers the host's request with a JSON-RPC error: whether the host gets
    that error as the upstream wrote it (code, message and data), one the proxy rewrote or
    made itself, or a result in its place. A local error of the proxy and the peer's error
    should not be mistaken for each other, which only an unchanged error guarantees."""
    method = str(ctx.params["method"])
    host = next(
        (x for x in on_leg(ctx, "host") if x.dir == "out" and x.is_request and x.method == method),
        None,
    )
    if host is None:
        return Outcome("not-sent", f"the host sent no {method} (a step before it did not play)")
    up = next(
        (x for x in on_leg(ctx, "upstream") if x.dir == "in" and x.is_request
         and x.method == method and x.t >= host.t),
        None,
    )  # fmt: skip
    sent = response_on(ctx, up, "upstream", "out") if up is not None else None
    got = response_on(ctx, host, "host", "in")
    if up is None or sent is None or "error" not in sent.obj:
        return Outcome("not-forwarded", f"the upstream got no {method} to refuse", _ev(host))
    if got is None:
        return Outcome("not-answered", "the host got no reply to its request", _ev(host, sent))
    if "error" not in got.obj:
        said = f"the host got a result for the upstream's error: {(got.raw or '')[:200]}"
        return Outcome("result-instead", said, _ev(sent, got))
    mine, theirs = got.obj["error"], sent.obj["error"]
    if mine == theirs:
        return Outcome("unchanged", f"the upstream's error as written: {(got.raw or '')[:200]}",
                       _ev(sent, got))  # fmt: skip
    members = (
        sorted(
            k
            for k in {*mine, *theirs}
            if not isinstance(mine, dict) or mine.get(k) != theirs.get(k)
        )
        if isinstance(mine, dict) and isinstance(theirs, dict)
        else ["error"]
    )
    said = f"the error reached the host with {', '.join(members)} changed: {(got.raw or '')[:200]}"
    return Outcome("changed", said[:400], _ev(sent, got))
