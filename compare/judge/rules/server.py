"""Server-side rules: what a server does with roots, read from the scripted client's transcript.

In a server cell the scripted client is "us": ``out`` lines are ours, ``in`` lines are the
server's. Every rule here first asks whether the handshake happened (the scripted client's
``initialize`` step); a server that never answered it gave the scenario nothing to read.
When a roots/list came is told by the step notes the scripted client wrote around each step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule

#: The outcome of every server rule when the handshake never completed.
NO_INIT = ("no-initialize",)


def handshake_failed(ctx: Context) -> Outcome | None:
    """``no-initialize`` when the server never answered our initialize with a result."""
    trace = ctx.tx.steps.get("initialize")
    if trace is not None and trace.outcome == "ok":
        return None
    if trace is None or trace.outcome is None:
        return Outcome("no-initialize", "the scripted client never finished initialize")
    why = {"error": "answered it with an error", "timeout": "never answered it"}
    said = why.get(str(trace.outcome), str(trace.outcome))
    return Outcome("no-initialize", f"the server {said}", _ev(ctx.tx.by_n(trace.evidence)))


def _initialized_n(ctx: Context) -> int | None:
    return next(
        (x.n for x in ctx.tx.lines if x.dir == "out" and x.method == "notifications/initialized"),
        None,
    )


def requests_of(ctx: Context, method: str) -> list[Line]:
    """Every request of ``method`` the server sent, in order."""
    return [x for x in ctx.tx.incoming() if x.is_request and x.method == method]


def roots_requests(ctx: Context) -> list[Line]:
    """Every roots/list request the server sent, in order."""
    return requests_of(ctx, "roots/list")


def _when(ctx: Context, first: Line) -> str:
    """The phase the first roots/list came in, by the step notes around it."""
    initialized = _initialized_n(ctx)
    if initialized is None or first.n < initialized:
        return "before-initialized"
    changed = ctx.tx.steps.get("changed")
    if changed is not None and first.n > changed.start_n:
        return "on-list-changed"
    call = ctx.tx.steps.get("call")
    if call is not None and first.n > call.start_n:
        return "on-tool-call"
    return "after-initialized"


@rule(
    "server-asks",
    ("after-initialized", "on-tool-call", "on-list-changed", "before-initialized", "never",
     *NO_INIT),
    ("call",),
    gate=handshake_failed,
)  # fmt: skip
def _server_asks(ctx: Context) -> Outcome:
    asks = roots_requests(ctx)
    if not asks:
        return Outcome("never", "no roots/list request in the whole exchange")
    first = asks[0]
    phase = _when(ctx, first)
    return Outcome(
        phase,
        f"first roots/list at line {first.n} ({first.t:.2f} s), {len(asks)} in all",
        _ev(first),
    )


@rule(
    "server-requests",
    ("asked", "not-asked", *NO_INIT),
    gate=handshake_failed,
    params={"method": Param("method", "the server-to-client request looked for", required=True)},
)
def _server_requests(ctx: Context) -> Outcome:
    """Whether the server sent ``method`` at all (to a client that declared what it needs:
    the other half of ``server-asks-undeclared``)."""
    method = str(ctx.params["method"])
    asks = requests_of(ctx, method)
    if asks:
        return Outcome(
            "asked", f"{method} at line {asks[0].n} ({len(asks)} in all)", _ev(*asks[:5])
        )
    return Outcome("not-asked", f"no {method} request in the whole exchange")


def _asks_undeclared_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    base = ("not-asked", "asked", "declared", *NO_INIT)
    return (*base, "no-trigger") if params.get("trigger") else base


def _triggered(ctx: Context, label: str) -> Outcome | None:
    """``no-trigger`` unless our tools/call of step ``label`` named one of its candidates:
    the tools known to send the request. A server that lists none of them was called on its
    first tool (or not at all), and its not asking then shows nothing about the capability."""
    step = next((s for s in ctx.plan.get("steps") or [] if s.get("label") == label), None)
    candidates = {c.get("name") for c in (step or {}).get("tool_call") or []}
    trace = ctx.tx.steps.get(label)
    start = trace.start_n if trace is not None else None
    sent = next(
        (
            x
            for x in ctx.tx.lines
            if start is not None and x.dir == "out" and x.method == "tools/call" and x.n > start
        ),
        None,
    )
    name = sent.params.get("name") if sent is not None else None
    if name in candidates:
        return None
    known = ", ".join(sorted(str(c) for c in candidates))
    said = f"called {name!r} instead" if name else "called no tool"
    return Outcome(
        "no-trigger",
        f"the server lists none of the tools known to send it ({known}); {said}",
        _ev(sent) if sent is not None else [],
    )


@rule(
    "server-asks-undeclared",
    ("not-asked", "asked", "declared", "no-trigger", *NO_INIT),
    gate=handshake_failed,
    params={
        "method": Param("method", "the server-to-client request (default roots/list)"),
        "capability": Param("capability", "the client capability it needs (default roots)"),
        "trigger": Param(
            "label",
            "the tool_call step whose candidates are the tools known to send the request; a"
            " server that lists none of them and never asks is no-trigger, not a pass",
        ),
    },
    outcomes_for=_asks_undeclared_outcomes,
)
def _server_asks_undeclared(ctx: Context) -> Outcome:
    method = str(ctx.params.get("method") or "roots/list")
    name = str(ctx.params.get("capability") or "roots")
    caps = ctx.plan.get("capabilities")
    if isinstance(caps, dict) and name in caps:
        return Outcome("declared", f"the scripted client declared {name} in this scenario")
    asks = requests_of(ctx, method)
    if asks:
        return Outcome(
            "asked",
            f"{method} at line {asks[0].n} though no {name} capability was declared"
            f" ({len(asks)} in all)",
            _ev(*asks[:5]),
        )
    trigger = ctx.params.get("trigger")
    unexercised = _triggered(ctx, str(trigger)) if trigger else None
    return unexercised or Outcome("not-asked", f"no {method} request in the whole exchange")


def _notification_sent(ctx: Context) -> int | None:
    """Our notifications/roots/list_changed line, if it reached the server's stdin."""
    changed = ctx.tx.steps.get("changed")
    n = changed.evidence if changed is not None else None
    return None if n is None or ctx.write_failed(n) else n


@rule("server-refresh", ("asked-again", "not-asked-again", "not-sent", *NO_INIT), ("changed",),
      gate=handshake_failed)  # fmt: skip
def _server_refresh(ctx: Context) -> Outcome:
    sent = _notification_sent(ctx)
    if sent is None:
        return Outcome("not-sent", "notifications/roots/list_changed never reached the server")
    again = [x for x in roots_requests(ctx) if x.n > sent]
    if again:
        wait = again[0].t - (ctx.tx.by_n(sent) or again[0]).t
        return Outcome("asked-again", f"roots/list {wait:.2f} s after list_changed", _ev(again[0]))
    return Outcome("not-asked-again", f"no roots/list after list_changed (line {sent})", [sent])


@rule(
    "list-changed-reply",
    ("no-reply", "replied", "not-sent", "closed", *NO_INIT),
    ("changed",),
    gate=handshake_failed,
)
def _list_changed_reply(ctx: Context) -> Outcome:
    sent = _notification_sent(ctx)
    if sent is None:
        return Outcome("not-sent", "notifications/roots/list_changed never reached the server")
    ours = [x.obj.get("id") for x in ctx.tx.lines if x.dir == "out" and x.is_request]
    replies = [
        x
        for x in ctx.tx.incoming()
        if x.n > sent
        and x.is_response
        and not any(type(i) is type(x.obj.get("id")) and i == x.obj.get("id") for i in ours)
    ]
    if replies:
        return Outcome(
            "replied",
            f"a response (id {replies[0].obj.get('id')!r}) after the notification",
            _ev(*replies[:5]),
        )
    closed = next(
        (n for n, note in ctx.tx.notes if note.get("event") == "server-closed" and n > sent), None
    )
    done = next((n for n, note in ctx.tx.notes if note.get("event") == "done"), None)
    if closed is not None and (done is None or closed < done):
        return Outcome("closed", f"the server closed its stdout (line {closed}) before the end")
    return Outcome("no-reply", f"no response to the notification (line {sent})", [sent])
