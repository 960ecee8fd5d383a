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

import json
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules.server_generic import _CAPABILITY, _OTHER_SIDE, NO_VALUE, _gate
from compare.judge.rules.server_modern import EITHER_GATE, either_gate

_OWN = ("sent", "other-uri", "missing", "not-begun", "no-tool", NO_VALUE)


def _outcomes(params: Any) -> tuple[str, ...]:
    return (*_OWN, *_OTHER_SIDE.get(str(params.get("when")), ()), *EITHER_GATE)


def _start(ctx: Context, label: Any) -> int | None:
    """The transcript line the step ``label`` began at; None when it never began."""
    trace = ctx.tx.steps.get(str(label))
    return trace.start_n if trace is not None else None


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
    wanted = _uri(ctx.sent_request(ctx.params["uri_of"])) if ctx.params.get("uri_of") else None
    matching = [x for x in sent if wanted is None or _uri(x) == wanted]
    if not matching:
        said = f"{len(sent)} × {method} {window}, none about {wanted}: {_uri(sent[0])}"
        return Outcome("other-uri", said, _ev(*sent[:3]))
    about = f" about {wanted}" if wanted is not None else ""
    return Outcome("sent", f"{len(matching)} × {method}{about} {window}", _ev(*matching[:3]))


#: The lists a server may announce changes to, and the notification of each.
LISTS = {
    "tools": "notifications/tools/list_changed",
    "prompts": "notifications/prompts/list_changed",
    "resources": "notifications/resources/list_changed",
}


def _list_answer(ctx: Context, label: str) -> list[Any] | None:
    """The items the server's answer to our list request of step ``label`` held (None when
    it gave no result holding them)."""
    request = ctx.sent_request(label)
    reply = ctx.tx.response_to(request.obj["id"], request.n) if request is not None else None
    result = reply.obj.get("result") if reply is not None else None
    items = result.get(str(ctx.params["list"])) if isinstance(result, dict) else None
    return items if isinstance(items, list) else None


def _ids(items: list[Any]) -> list[str]:
    """Each item as a comparable key (its name, or its uri for a resource)."""
    return sorted(
        json.dumps(item.get("uri") or item.get("name"), sort_keys=True)
        if isinstance(item, dict)
        else json.dumps(item, sort_keys=True)
        for item in items
    )


@rule(
    "list-changed-sent",
    ("notified", "changed-silently", "unchanged", "notified-unchanged", "not-listed", "no-tool",
     NO_VALUE, "undeclared", *EITHER_GATE),
    gate=_gate,
    params={
        "list": Param("text", "tools, prompts or resources", required=True),
        "before": Param("label", "the list request before the change", required=True),
        "after": Param("label", "the same list request after it", required=True),
        "given": Param("label", "the step that makes the list change", required=True),
        "capability": _CAPABILITY,
        "when": Param("text", "declared: judge only servers that declared the capability",
                      needs="capability"),
        "member": Param("member", "with when: declared, only servers whose capability sets this "
                        "member (listChanged)", needs="when"),
    },
)  # fmt: skip
def _list_changed_sent(ctx: Context) -> Outcome:
    """Whether a list that changed between two of our list requests was announced with its
    list_changed notification in between: the two answers are compared, so a server whose
    list did not change (its tool failed, or it registered nothing) owes no notification."""
    trace = ctx.tx.steps.get(str(ctx.params["given"]))
    if trace is not None and trace.outcome in ("no-tool", NO_VALUE):
        return Outcome(trace.outcome, "the step that would change the list was not sent")
    name = str(ctx.params["list"])
    before = _list_answer(ctx, str(ctx.params["before"]))
    after = _list_answer(ctx, str(ctx.params["after"]))
    if before is None or after is None:
        return Outcome("not-listed", f"the server did not answer both {name}/list requests")
    start, end = _start(ctx, ctx.params["given"]), _start(ctx, ctx.params["after"])
    method = LISTS.get(name, f"notifications/{name}/list_changed")
    sent = [
        x for x in ctx.tx.incoming()
        if x.method == method and not x.is_request and start is not None and x.n > start
        and (end is None or x.n < end)
    ]  # fmt: skip
    changed = _ids(before) != _ids(after)
    counts = f"{len(before)} item(s) before, {len(after)} after"
    if changed and sent:
        return Outcome("notified", f"{counts}; {method} in between", _ev(*sent[:3]))
    if changed:
        return Outcome("changed-silently", f"{counts}; no {method} in between")
    if sent:
        return Outcome("notified-unchanged", f"{counts}, the same; {method} all the same",
                       _ev(*sent[:3]))  # fmt: skip
    return Outcome("unchanged", f"{counts}, the same: nothing to announce")


@rule("list-changed-declared", ("declared-sent", "undeclared-sent", "none", *EITHER_GATE),
      gate=either_gate)  # fmt: skip
def _list_changed_declared(ctx: Context) -> Outcome:
    """Every list_changed notification of the server against the listChanged it declared
    for that list: a notification about a list it did not declare changes for uses a
    capability that was not negotiated."""
    from compare.judge.rules.server_generic import server_capabilities

    caps, evidence = server_capabilities(ctx)
    sent = [x for x in ctx.tx.incoming() if x.method in LISTS.values() and not x.is_request]
    if not sent:
        return Outcome("none", "no list_changed notification")
    undeclared = []
    for x in sent:
        name = str(x.method).split("/")[1]
        cap = caps.get(name)
        if not (isinstance(cap, dict) and cap.get("listChanged") is True):
            undeclared.append(x)
    if undeclared:
        name = str(undeclared[0].method).split("/")[1]
        said = f"{undeclared[0].method} while {name} = {caps.get(name)!r} (no listChanged)"
        return Outcome("undeclared-sent", said, _ev(*undeclared[:3]) + evidence)
    return Outcome("declared-sent", f"{len(sent)} notification(s), each for a list declared"
                   " with listChanged", _ev(*sent[:3]))  # fmt: skip
