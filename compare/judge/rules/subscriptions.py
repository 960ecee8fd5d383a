"""A 2026-07-28 ``subscriptions/listen`` stream, read in a server cell.

- ``listen-acknowledged``: the first message of the server carrying our listen's id in
  ``_meta["io.modelcontextprotocol/subscriptionId"]`` must be
  ``notifications/subscriptions/acknowledged``, whose filter reflects the subset of the types
  asked for that the server agreed to send. A listen answered at once (an error, or a result
  that ends it) was not opened, which is recorded as such.
- ``listen-cancelled``: once our ``notifications/cancelled`` for the listen had a second to
  arrive, nothing more carrying its id, and no response to it, may come (the stdio transport's
  rule for a cancelled request).
"""

from __future__ import annotations

from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules.hygiene import _key
from compare.judge.rules.server_modern import EITHER_GATE, either_gate

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
_STEP = Param("label", "the subscriptions/listen step (sent with wait: false)", required=True)


def _listen(ctx: Context) -> Line | None:
    """The subscriptions/listen request of the check's step."""
    return ctx.sent_request(ctx.params["step"])


def _tag(line: Line) -> Any:
    meta = line.params.get("_meta")
    if line.is_response and isinstance(line.obj.get("result"), dict):
        meta = line.obj["result"].get("_meta")
    return meta.get(SUBSCRIPTION_ID) if isinstance(meta, dict) else None


def _tagged(ctx: Context, listen: Line) -> list[Line]:
    """The server's messages after the listen that carry its id as their subscription."""
    want = _key(listen.obj["id"])
    return [
        x for x in ctx.tx.incoming()
        if x.n > listen.n and _tag(x) is not None and _key(_tag(x)) == want
    ]  # fmt: skip


def _asked(listen: Line) -> dict[str, Any]:
    asked = listen.params.get("notifications")
    return asked if isinstance(asked, dict) else {}


def _widened(asked: dict[str, Any], honoured: Any) -> list[str]:
    """The types the acknowledgement names that the listen did not ask for."""
    if not isinstance(honoured, dict):
        return []
    out = []
    for key, value in honoured.items():
        if key == "resourceSubscriptions":
            extra = set(map(str, value or [])) - set(map(str, asked.get(key) or []))
            out += sorted(extra)
        elif value is True and asked.get(key) is not True:
            out.append(key)
    return out


@rule(
    "listen-acknowledged",
    ("acknowledged", "not-first", "widened", "untagged", "refused", "ended", "no-ack", "not-sent",
     *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP},
)  # fmt: skip
def _listen_acknowledged(ctx: Context) -> Outcome:
    listen = _listen(ctx)
    if listen is None:
        return Outcome("not-sent", "no subscriptions/listen was sent")
    answer = ctx.tx.response_to(listen.obj["id"], listen.n)
    tagged = _tagged(ctx, listen)
    acks = [x for x in ctx.tx.incoming() if x.n > listen.n and x.method == ACKNOWLEDGED]
    if not tagged and not acks:
        if answer is not None and "error" in answer.obj:
            return Outcome("refused", (answer.raw or "")[:300], _ev(listen, answer))
        if answer is not None:
            return Outcome("ended", (answer.raw or "")[:300], _ev(listen, answer))
        return Outcome("no-ack", "no acknowledgement and no answer to the listen", _ev(listen))
    if not tagged:
        said = f"{ACKNOWLEDGED} without the listen's id under {SUBSCRIPTION_ID}"
        return Outcome("untagged", f"{said}: {(acks[0].raw or '')[:200]}", _ev(listen, acks[0]))
    first = tagged[0]
    if first.method != ACKNOWLEDGED:
        what = first.method or "a response"
        said = f"{what} carried the listen's id before any acknowledgement"
        return Outcome("not-first", said, _ev(listen, first))
    honoured = first.params.get("notifications")
    extra = _widened(_asked(listen), honoured)
    if extra:
        said = (
            f"acknowledged {honoured!r}, naming {', '.join(extra)} that the listen did not ask for"
        )
        return Outcome("widened", said[:300], _ev(listen, first))
    return Outcome("acknowledged", f"acknowledged first, honouring {honoured!r}"[:300],
                   _ev(listen, first))  # fmt: skip


@rule(
    "listen-cancelled",
    ("stopped", "continued", "not-open", "not-cancelled", *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP, "cancel": Param("label", "the cancel step", required=True)},
)
def _listen_cancelled(ctx: Context) -> Outcome:
    listen = _listen(ctx)
    trace = ctx.tx.steps.get(str(ctx.params["cancel"]))
    cancel = ctx.tx.by_n(trace.evidence) if trace is not None else None
    if listen is None or cancel is None or cancel.method != "notifications/cancelled":
        return Outcome("not-cancelled", "the listen or its cancel was never sent")
    answer = ctx.tx.response_to(listen.obj["id"], listen.n)
    opened = [x for x in _tagged(ctx, listen) if x.n < cancel.n and x.method == ACKNOWLEDGED]
    if not opened or (answer is not None and answer.n < cancel.n):
        said = "the listen was not open when the cancel went (never acknowledged, or answered)"
        return Outcome("not-open", said, _ev(listen, cancel))
    late = [x for x in _tagged(ctx, listen) if x.n > cancel.n and x.t - cancel.t > 1.0]
    if answer is not None and answer.n > cancel.n and answer.t - cancel.t > 1.0:
        late.append(answer)
    if late:
        first = late[0]
        what = first.method or "a response"
        said = f"{what} for the listen {first.t - cancel.t:.1f} s after the cancel"
        return Outcome("continued", said, _ev(cancel, *late[:4]))
    return Outcome("stopped", "nothing for the listen from a second after the cancel on",
                   _ev(cancel))  # fmt: skip


@rule(
    "listen-ended",
    ("result", "error", "cancelled", "both", "nothing", "not-open", *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP},
)
def _listen_ended(ctx: Context) -> Outcome:
    """What the server says about a listen still open when the scripted client closes its
    stdin at the end of the cell (the stdio shutdown): a result carrying the subscription's
    id (the subscriptions page's graceful end), a ``notifications/cancelled`` naming it (the
    cancellation page's rule for a server ending a listen), both, an error, or nothing. The pages
    disagree, so what each server does is recorded."""
    listen = _listen(ctx)
    if listen is None:
        return Outcome("not-open", "no subscriptions/listen was sent")
    last = ctx.last_step_end() or listen.n
    early = ctx.tx.response_to(listen.obj["id"], listen.n)
    acked = [x for x in _tagged(ctx, listen) if x.method == ACKNOWLEDGED]
    if not acked or (early is not None and early.n < last):
        return Outcome("not-open", "the listen was not open when the cell ended", _ev(listen))
    rid = _key(listen.obj["id"])
    result = early if early is not None and "result" in early.obj else None
    cancelled = next(
        (
            x for x in ctx.tx.incoming()
            if x.n > last and x.method == "notifications/cancelled"
            and _key(x.params.get("requestId")) == rid
        ),
        None,
    )  # fmt: skip
    if result is not None and cancelled is not None:
        return Outcome("both", "a result and notifications/cancelled", _ev(result, cancelled))
    if result is not None:
        tagged = _tag(result) is not None and _key(_tag(result)) == rid
        said = "a result ending the listen" + (" with its id" if tagged else ", without its id")
        return Outcome("result", f"{said}: {(result.raw or '')[:200]}", _ev(result))
    if cancelled is not None:
        return Outcome("cancelled", (cancelled.raw or "")[:300], _ev(cancelled))
    if early is not None:
        return Outcome("error", f"an error answered the listen: {(early.raw or '')[:200]}",
                       _ev(early))  # fmt: skip
    return Outcome("nothing", "the server said nothing about the open listen as its input closed")


#: The list_changed notifications a listen filter asks for, by the filter's flag.
FLAGS = {
    "toolsListChanged": "notifications/tools/list_changed",
    "promptsListChanged": "notifications/prompts/list_changed",
    "resourcesListChanged": "notifications/resources/list_changed",
}


def _changes_after(ctx: Context, label: str) -> tuple[Line | None, list[Line]]:
    """The step ``label``'s tools/call, and the server's list_changed notifications after it."""
    trace = ctx.tx.steps.get(label)
    if trace is None or trace.outcome in ("no-tool", "no-value"):
        return None, []
    call = next(
        (x for x in ctx.tx.lines if x.dir == "out" and x.is_request and x.n > trace.start_n),
        None,
    )
    if call is None:
        return None, []
    sent = [
        x for x in ctx.tx.incoming()
        if x.n > call.n and x.method in FLAGS.values() and not x.is_request
    ]  # fmt: skip
    return call, sent


def _open(ctx: Context, listen: Line) -> bool:
    acked = [x for x in _tagged(ctx, listen) if x.method == ACKNOWLEDGED]
    answer = ctx.tx.response_to(listen.obj["id"], listen.n)
    return bool(acked) and (answer is None or answer.n > acked[0].n)


_CHANGE = Param("label", "the tools/call step that changes a list", required=True)


def _after_change(ctx: Context) -> tuple[Line, Line, list[Line], set[str]] | Outcome:
    """The open listen of step ``step``, the change's call, the server's list_changed after
    it, and the notifications the listen asked for; or why there is nothing to read."""
    listen = _listen(ctx)
    if listen is None or not _open(ctx, listen):
        return Outcome("not-open", "the listen was not open (refused, ended or not acknowledged)")
    call, sent = _changes_after(ctx, str(ctx.params["change"]))
    if call is None:
        return Outcome("no-tool", "the server lists no tool that changes a list at run time")
    asked = {FLAGS[k] for k, v in _asked(listen).items() if k in FLAGS and v is True}
    return listen, call, sent, asked


@rule(
    "listen-notified",
    ("tagged", "untagged", "none", "not-open", "no-tool", *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP, "change": _CHANGE},
)
def _listen_notified(ctx: Context) -> Outcome:
    """After a change the listen asked to hear of, the notification: carrying the listen's
    id in ``_meta`` (every message of a listen stream must), or without it."""
    read = _after_change(ctx)
    if isinstance(read, Outcome):
        return read
    listen, call, sent, asked = read
    wanted = [x for x in sent if x.method in asked]
    if not wanted:
        return Outcome("none", "no list_changed the listen asked for came after the change",
                       _ev(call))  # fmt: skip
    mine = _key(listen.obj["id"])
    tagged = [x for x in wanted if _tag(x) is not None and _key(_tag(x)) == mine]
    if tagged:
        return Outcome("tagged", f"{tagged[0].method} with the listen's id {listen.obj['id']!r}",
                       _ev(call, tagged[0]))  # fmt: skip
    said = f"{wanted[0].method} without the listen's id: {(wanted[0].raw or '')[:200]}"
    return Outcome("untagged", said, _ev(call, wanted[0]))


@rule(
    "listen-only-requested",
    ("only-requested", "unrequested", "nothing-sent", "not-open", "no-tool", *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP, "change": _CHANGE},
)
def _listen_only_requested(ctx: Context) -> Outcome:
    """After a change this listen did not ask to hear of (another listen did), whether a
    notification of that type still came on this listen's stream (carrying its id)."""
    read = _after_change(ctx)
    if isinstance(read, Outcome):
        return read
    listen, call, sent, asked = read
    if not sent:
        return Outcome("nothing-sent", "no list_changed at all after the change: nothing shows"
                       " what the server would send this listen", _ev(call))  # fmt: skip
    mine = _key(listen.obj["id"])
    stray = [
        x for x in sent
        if x.method not in asked and _tag(x) is not None and _key(_tag(x)) == mine
    ]  # fmt: skip
    if stray:
        said = f"{stray[0].method} on this listen, which asked only for {sorted(asked)}"
        return Outcome("unrequested", said, _ev(call, stray[0]))
    return Outcome("only-requested", f"{len(sent)} list_changed after the change, none on this"
                   " listen of a type it did not ask for", _ev(call, *sent[:3]))  # fmt: skip
