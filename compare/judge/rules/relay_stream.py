"""What a proxy does with an upstream request when no stream toward its host is open.

Over Streamable HTTP a server may send a request to the client only on a stream: the
response stream of a POST still in flight, or the standalone GET stream, which a client MAY
never open. Scenario ``relay-no-stream`` makes that moment on purpose: our HTTP host opens no
GET stream and has no POST in flight when the upstream asks. This rule first reads from the
host leg's notes whether the moment really was so (else the outcome says which stream was
open), then what became of the question: delivered later (on a stream the host opened
afterwards), answered by the proxy itself, refused with an error, or dropped without a word.
"""

from __future__ import annotations

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._legs import (
    host_asks,
    main_asks,
    on_leg,
    response_on,
    upstream_asks,
    upstream_inits,
)
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.server import handshake_failed


def _open_stream(ctx: Context, ask: Line) -> str | None:
    """Which stream toward our host was open when ``ask`` was sent, or None."""
    for n, note in ctx.tx.notes:
        if note.get("leg") == "host" and note.get("event") == "get-stream" and note.get("opened"):
            before = [x.t for x in ctx.tx.lines if x.n < n]  # a note's time: the line before
            if (before[-1] if before else 0.0) <= ask.t:
                return f"the host's GET stream (opened at note {n})"
    for req in on_leg(ctx, "host"):
        if req.dir != "out" or not req.is_request or req.t > ask.t:
            continue
        got = response_on(ctx, req, "host", "in")
        if got is None or got.t > ask.t:
            return f"the host's POST of {req.method} (line {req.n}) was in flight"
    return None


@rule(
    "relay-no-stream",
    ("delivered-later", "refused", "answered-by-proxy", "dropped", "stream-open", "host-stdio",
     "upstream-not-asked", "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_no_stream(ctx: Context) -> Outcome:
    asks = main_asks(ctx) or upstream_asks(ctx)
    if not asks:
        inits = upstream_inits(ctx)
        return Outcome("upstream-not-asked", "the upstream never sent roots/list", _ev(*inits[:1]))
    ask = asks[0]
    kind = (ctx.plan.get("transport") or {}).get("kind", "stdio")
    if kind != "http":
        return Outcome(
            "host-stdio",
            f"our host speaks {kind} to this proxy, whose stream toward the host is always open;"
            f" the upstream asked at line {ask.n} (what became of it: check asks)",
            _ev(ask),
        )
    open_ = _open_stream(ctx, ask)
    if open_ is not None:
        return Outcome("stream-open", f"at the ask (line {ask.n}) {open_}", _ev(ask))
    later = [h for h in host_asks(ctx) if h.t >= ask.t]
    got = response_on(ctx, ask, "upstream", "in")
    if later:
        h = later[0]
        return Outcome(
            "delivered-later",
            f"asked at line {ask.n} with no stream open; reached the host at line {h.n},"
            f" {h.t - ask.t:.3f} s later",
            _ev(ask, h),
        )
    if got is not None and "error" in got.obj:
        return Outcome(
            "refused", f"never reached the host; the upstream got an error (line {got.n})",
            _ev(ask, got),
        )  # fmt: skip
    if got is not None:
        return Outcome(
            "answered-by-proxy",
            f"never reached the host; the upstream got a result anyway (line {got.n})",
            _ev(ask, got),
        )
    return Outcome(
        "dropped",
        f"asked at line {ask.n} with no stream toward the host open: it never reached the host"
        " and the upstream got no answer",
        _ev(ask),
    )
