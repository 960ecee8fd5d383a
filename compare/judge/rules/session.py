"""What an SDK handed our host for each request of a scripted session, read from the cell's
session record (``host-session.jsonl``, compare/hosts/README.md).

The wire shows what a client sent and what the peer answered, not what the SDK then did with
the answer: whether it checked a tool's structured result against the tool's output schema,
turned an ``isError`` result into an exception, or kept a content type it does not know. Our
host makes each request through the SDK's documented call and records what came back to it —
a value or an error — so that part of the SDK's behaviour is evidence too. The host adds
nothing: it writes what the SDK returned with the SDK's own serializer.

- ``host-step`` (``request``: the request's index in the scenario's ``host_session``;
  ``holds``: a text the returned value must contain, where a value alone proves nothing):
  ``returned`` (the SDK returned a value, holding ``holds`` when given), ``returned-without``
  (a value without it), ``raised`` (the SDK raised or returned an error instead),
  ``not-reached`` (the record stops before this request: the session ended or the host hung
  on an earlier one), ``no-record`` (the host wrote no record at all). The evidence is the
  wire request the scripted request made, and the peer's answer to it.
- ``host-notified`` (``holds``: a text the update handed on must contain): whether the SDK
  handed the handler our host registered for a subscribed resource the
  ``notifications/resources/updated`` our peer sent. ``delivered`` (a record line of it,
  holding ``holds`` when given), ``delivered-without`` (a line without it), ``not-delivered``
  (none, though the peer sent one), ``not-sent`` (the peer sent none: the precondition, a
  subscription, never held), ``no-record``. The evidence is the peer's notification.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, Param, rule, stopped_early

#: The JSON-RPC method each kind of scripted request sends.
METHODS = {
    "call": "tools/call",
    "read": "resources/read",
    "subscribe": "resources/subscribe",
    "unsubscribe": "resources/unsubscribe",
    "get_prompt": "prompts/get",
    "complete": "completion/complete",
}
LIST_METHODS = {
    "tools": "tools/list",
    "prompts": "prompts/list",
    "resources": "resources/list",
    "resource_templates": "resources/templates/list",
}


def _outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    held = ("returned-without",) if "holds" in params else ()
    return ("returned", *held, "raised", "not-reached", "no-record", *EARLY)


def _method(request: dict[str, Any]) -> str | None:
    if "list" in request:
        return LIST_METHODS.get(str(request["list"]))
    return next((m for k, m in METHODS.items() if k in request), None)


def _wire(ctx: Context, index: int) -> list[Line]:
    """The client's request that request ``index`` of the script made, and the peer's answer
    to it (the evidence): the k-th request of its method, k counting the script's earlier
    requests of the same method (a list's first page: a request without a cursor)."""
    script = ctx.host_requests
    method = _method(script[index]) if index < len(script) else None
    if method is None:
        return []
    k = sum(1 for r in script[:index] if _method(r) == method)
    sent = [x for x in ctx.tx.incoming() if x.is_request and x.method == method]
    if method in LIST_METHODS.values():
        sent = [x for x in sent if "cursor" not in x.params]
    if k >= len(sent):
        return []
    ask = sent[k]
    answer = next(
        (
            x
            for x in ctx.tx.lines
            if x.dir == "out" and x.n > ask.n and isinstance(x.obj, dict)
            and x.obj.get("id") == ask.obj.get("id") and x.method is None
        ),
        None,
    )  # fmt: skip
    return [ask, *([answer] if answer else [])]


def _shown(value: Any) -> tuple[str, str]:
    """What the SDK handed our host, as JSON, and as an observation shows it (cut at 200)."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text, text if len(text) <= 200 else text[:200] + "…"


@rule(
    "host-step",
    _outcomes({"holds": ""}),
    gate=stopped_early,
    params={
        "request": Param("index", "the request's index in the scenario's host_session",
                         required=True),
        "holds": Param("text", "a text the value the SDK returned must contain"),
    },
    outcomes_for=_outcomes,
)  # fmt: skip
def _host_step(ctx: Context) -> Outcome:
    index = int(ctx.params["request"])
    script = ctx.host_requests
    request = script[index] if index < len(script) else {}
    lines = _wire(ctx, index)
    evidence = [x.n for x in lines]
    sent = f"; on the wire: {lines[0].method}, line {lines[0].n}" if lines else ""
    if ctx.host_session is None:
        return Outcome("no-record", "our host wrote no session record (see its stderr)")
    entry = next((e for e in ctx.host_session if e.get("step") == index), None)
    if entry is None:
        made = sum(1 for e in ctx.host_session if "step" in e)
        return Outcome(
            "not-reached",
            f"the record holds {made} request(s) and stops before request"
            f" {index} ({json.dumps(request, ensure_ascii=False)[:80]})",
            evidence,
        )
    if entry.get("ok") is not True:
        code = f" (code {entry['code']})" if isinstance(entry.get("code"), int) else ""
        said = " ".join(str(entry.get("error", "")).split())[:300]
        return Outcome("raised", f"the SDK raised: {said}{code}{sent}", evidence)
    value, shown = _shown(entry.get("result"))
    marker = ctx.params.get("holds")
    if marker is not None and str(marker) not in value:
        return Outcome(
            "returned-without", f"the SDK returned {shown}, without {marker}{sent}", evidence
        )
    return Outcome("returned", f"the SDK returned {shown}{sent}", evidence)


#: The notification ``host-notified`` reads (the one a plan's subscribe records).
UPDATED = "notifications/resources/updated"


def _notified_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    held = ("delivered-without",) if "holds" in params else ()
    return ("delivered", *held, "not-delivered", "not-sent", "no-record", *EARLY)


@rule(
    "host-notified",
    _notified_outcomes({"holds": ""}),
    gate=stopped_early,
    params={"holds": Param("text", "a text what the SDK handed on must contain")},
    outcomes_for=_notified_outcomes,
)  # fmt: skip
def _host_notified(ctx: Context) -> Outcome:
    sent = [
        x for x in ctx.tx.lines
        if x.dir == "out" and x.method == UPDATED and isinstance(x.obj, dict) and "id" not in x.obj
    ]  # fmt: skip
    evidence = [x.n for x in sent]
    if not sent:
        return Outcome("not-sent", f"our peer sent no {UPDATED}: nothing was subscribed to")
    on_wire = f"; the peer sent it on line {sent[0].n}"
    if ctx.host_session is None:
        return Outcome("no-record", "our host wrote no session record (see its stderr)", evidence)
    handed = [e for e in ctx.host_session if e.get("notification") == UPDATED]
    if not handed:
        return Outcome("not-delivered", f"the SDK handed our handler no update{on_wire}", evidence)
    _value, shown = _shown(handed[0].get("params"))
    marker = ctx.params.get("holds")
    count = f" ({len(handed)} updates)" if len(handed) > 1 else ""
    if marker is not None and not any(
        str(marker) in json.dumps(e.get("params"), ensure_ascii=False) for e in handed
    ):
        return Outcome(
            "delivered-without",
            f"the SDK handed our handler {shown}{count}, without {marker}{on_wire}",
            evidence,
        )
    return Outcome("delivered", f"the SDK handed our handler {shown}{count}{on_wire}", evidence)
