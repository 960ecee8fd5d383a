"""Notifications of the target that a revision limits, read on its whole connection.

- ``server-cancels``: every ``notifications/cancelled`` the server sent, against the requests
  it had issued on the connection and not yet seen answered: a cancellation may only name a
  request the sender issued and believes still in progress.
- ``client-notifications``: the notifications a 2026-07-28 client sent. That revision's
  schema leaves a client one, ``notifications/cancelled``; the methods are recorded (an
  unknown one is also an invalid message, which ``wire-valid`` grades).
"""

from __future__ import annotations

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.hygiene import _has_id, _key, connections, where

CANCELLED = "notifications/cancelled"


@rule("server-cancels", ("own-pending", "not-pending", "none"))
def _server_cancels(ctx: Context) -> Outcome:
    bad: list[Line] = []
    sent = 0
    for lines in connections(ctx):
        pending: set[str] = set()
        for x in lines:
            if x.dir == "in" and x.is_request and _has_id(x):
                pending.add(_key(x.obj["id"]))
            elif x.dir == "out" and x.is_response and _has_id(x):
                pending.discard(_key(x.obj["id"]))
            elif x.dir == "in" and x.method == CANCELLED and not x.is_request:
                sent += 1
                named = x.params.get("requestId")
                if named is None or _key(named) not in pending:
                    bad.append(x)
                else:
                    pending.discard(_key(named))
    if bad:
        named = bad[0].params.get("requestId")
        said = (
            f"{len(bad)} cancellation(s) naming no request of its own still in progress"
            f" (first: requestId {named!r}{where(bad[0])})"
        )
        return Outcome("not-pending", said, _ev(*bad[:5]))
    if sent:
        return Outcome("own-pending", f"{sent} cancellation(s), each of its own pending request")
    return Outcome("none", "no notifications/cancelled from it")


@rule("client-notifications", ("cancelled-only", "others", "none", "legacy"))
def _client_notifications(ctx: Context) -> Outcome:
    if ctx.initialize is not None:
        return Outcome("legacy", "the client opened with initialize (an older revision's session)")
    sent = [x for x in ctx.tx.incoming() if x.method is not None and not x.is_request]
    if not sent:
        return Outcome("none", "no notifications")
    others = [x for x in sent if x.method != CANCELLED]
    if others:
        methods = ", ".join(sorted({str(x.method) for x in others}))
        return Outcome("others", f"{len(others)} notification(s) other than {CANCELLED}:"
                       f" {methods}"[:300], _ev(*others[:5]))  # fmt: skip
    return Outcome("cancelled-only", f"{len(sent)} × {CANCELLED}", _ev(*sent[:5]))
