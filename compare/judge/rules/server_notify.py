"""Notifications a server sends on its own, read between two steps of the scripted client.

- ``server-notified``: whether the server sent the notification ``method`` after step
  ``after`` began (and, with ``before``, before that step began). With ``uri_of``, only a
  notification whose ``params.uri`` is the URI the request of that step named counts, so an
  update about another resource is told apart from one about the resource subscribed to.
  With ``given``, a cell where that earlier step was not sent (no listed tool to call, nothing
  to fill it with) reads as that step did: silence after it would say nothing.

A server's notifications are its own to send or not (a subscription promises updates "when
they change", and a resource may not change while we watch), so what this reads is mostly
recorded; the grade is the scenario's.
"""

from __future__ import annotations

from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules.server_generic import _CAPABILITY, _OTHER_SIDE, NO_VALUE, _gate
from compare.judge.rules.server_modern import EITHER_GATE

_OWN = ("sent", "other-uri", "missing", "not-begun", "no-tool", NO_VALUE)


def _outcomes(params: Any) -> tuple[str, ...]:
    return (*_OWN, *_OTHER_SIDE.get(str(params.get("when")), ()), *EITHER_GATE)


def _start(ctx: Context, label: Any) -> int | None:
    """The transcript line the step ``label`` began at; None when it never began."""
    trace = ctx.tx.steps.get(str(label))
    return trace.start_n if trace is not None else None


def _request_of(ctx: Context, label: Any) -> Line | None:
    """The request our scripted client sent in step ``label`` (None when it sent none)."""
    trace = ctx.tx.steps.get(str(label))
    if trace is None or trace.id is None:
        return None
    ours = (x for x in ctx.tx.lines if x.dir == "out" and x.is_request)
    return next((x for x in ours if x.obj.get("id") == trace.id), None)


def _uri(line: Line | None) -> Any:
    return line.params.get("uri") if line is not None else None


@rule(
    "server-notified",
    (*_OWN, "undeclared", "declared", *EITHER_GATE),
    gate=_gate,
    params={
        "method": Param("method", "the notification the server may send", required=True),
        "after": Param("label", "count only what the server sent after this step began",
                       required=True),
        "before": Param("label", "and before this step began"),
        "given": Param("label", "read only where this earlier step was sent (the one that "
                       "makes something change)"),
        "uri_of": Param("label", "count only notifications about the URI this step's request "
                        "named"),
        "capability": _CAPABILITY,
        "when": Param("text", "declared or undeclared: judge only servers that have the "
                      "capability, or not", needs="capability"),
        "member": Param("member", "with when: declared, judge only servers whose capability "
                        "also sets this member (resources: subscribe)", needs="when"),
    },
    outcomes_for=_outcomes,
)  # fmt: skip
def _server_notified(ctx: Context) -> Outcome:
    after = ctx.params["after"]
    for label in (ctx.params.get("given"), after):
        trace = ctx.tx.steps.get(str(label)) if label else None
        if trace is not None and trace.outcome in ("no-tool", NO_VALUE):
            said = f"{label} not sent: the server listed nothing the step could name"
            return Outcome(trace.outcome, said)
    start = _start(ctx, after)
    if start is None:
        return Outcome("not-begun", f"step {after} never began: nothing to watch after it")
    end = _start(ctx, ctx.params.get("before")) if ctx.params.get("before") else None
    method = str(ctx.params["method"])
    sent = [
        x for x in ctx.tx.incoming()
        if x.method == method and not x.is_request and x.n > start and (end is None or x.n < end)
    ]  # fmt: skip
    window = f"after {after}" + (f", before {ctx.params['before']}" if end is not None else "")
    if not sent:
        return Outcome("missing", f"no {method} {window}")
    wanted = _uri(_request_of(ctx, ctx.params["uri_of"])) if ctx.params.get("uri_of") else None
    matching = [x for x in sent if wanted is None or _uri(x) == wanted]
    if not matching:
        said = f"{len(sent)} × {method} {window}, none about {wanted}: {_uri(sent[0])}"
        return Outcome("other-uri", said, _ev(*sent[:3]))
    about = f" about {wanted}" if wanted is not None else ""
    return Outcome("sent", f"{len(matching)} × {method}{about} {window}", _ev(*matching[:3]))
