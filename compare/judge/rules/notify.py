"""Notification rules: an unknown notification (ignored, and the connection still answers),
and the root a roots/list_changed announced (listed by the next roots/list). Whether the
notification itself was sent is the generic ``notification-sent`` rule (``generic.py``).
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import (
    ADDED_ROOT,
    EARLY,
    MISENCODED,
    OTHER_FORM,
    Outcome,
    _ev,
    _roots,
    best_root,
    rule,
    stopped_early,
)
from compare.judge.rules.roots import _early_or_no_roots, _roots_result


def _probe_sent(ctx: Context) -> int | None:
    """The transcript line of the unknown notification, if it reached the client's pipe."""
    probe = ctx.tx.steps.get("probe")
    start = probe.evidence if probe and probe.evidence else None
    return None if start is None or ctx.write_failed(start) else start


@rule(
    "unknown-notification-reply",
    ("no-reply", "replied", "not-sent", *EARLY),
    ("probe", "ping"),
    gate=stopped_early,
)
def _unknown_reply(ctx: Context) -> Outcome:
    start = _probe_sent(ctx)
    if start is None:
        return Outcome("not-sent", "the notification was never sent: the client closed first")
    ping = ctx.tx.steps.get("ping")
    ping_id = ping.id if ping else None
    # A list, not a set: an id on the wire may be any JSON value, a list or object included.
    ours = [
        x.obj["id"]
        for x in ctx.tx.lines
        if x.dir == "out" and x.is_request and x.obj["id"] is not None
    ]
    replies = [
        x
        for x in ctx.tx.incoming()
        if x.n > start
        and (x.is_response or (isinstance(x.obj, dict) and "error" in x.obj))
        and (x.obj.get("id") != ping_id and x.obj.get("id") not in ours)
    ]
    if replies:
        return Outcome("replied", (replies[0].raw or "")[:300], _ev(*replies[:5]))
    return Outcome("no-reply", "nothing answered the notification")


@rule(
    "still-responsive",
    ("answered", "silent", "closed-after-probe", "closed-before-probe", *EARLY),
    ("probe", "ping"),
    gate=stopped_early,
)
def _still_responsive(ctx: Context) -> Outcome:
    """Whether the connection outlived the notification, told apart from a client that simply
    ends after its own job: the scenario keeps a quiet window (nothing sent) right before the
    notification, so a client that closes without provocation does so there, before it.
    A close after the notification is recorded with that control beside it, never assumed
    to be caused by it; only an unanswered ping on an open connection breaks a MUST."""
    kind, line = ctx.reply("ping")
    if line is not None:
        return Outcome("answered", (line.raw or "")[:200], _ev(line))
    probe = _probe_sent(ctx)
    closed = ctx.ended_at()
    if probe is None or (closed is not None and closed < probe):
        where = f" (closed at line {closed})" if closed is not None else ""
        return Outcome(
            "closed-before-probe",
            "the client ended the connection by itself, before the notification was sent" + where,
            [n for n in (closed,) if n is not None],
        )
    if kind == "silence":
        return Outcome("silent", "ping sent on an open connection, never answered", [probe])
    quiet = ctx.tx.steps.get("quiet")
    control = (
        f"; it had stayed open through the {quiet.step.get('observe_s')} s quiet window before it"
        if quiet is not None and quiet.done_n is not None and quiet.done_n < probe
        else "; no quiet window was played before it, so nothing shows whether it would have"
        " ended anyway"
    )
    where = f"line {closed}" if closed is not None else "an unrecorded point"
    return Outcome(
        "closed-after-probe",
        f"the connection ended at {where}, after the notification (line {probe}){control}",
        [n for n in (probe, closed) if n is not None],
    )


# -- list changed (whether it was sent: the generic notification-sent) ------------------
@rule(
    "new-root-listed",
    (
        "listed",
        "listed-other-form",
        "listed-misencoded",
        "missing",
        "no-result",
        "no-roots",
        *EARLY,
    ),
    ("after",),
    gate=_early_or_no_roots,
)
def _new_root(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "after")
    if line is None:
        return Outcome("no-result", "no result for the second roots/list")
    outcome, why, _ = best_root(_roots(result), f"{ctx.workspace}/{ADDED_ROOT}")
    if outcome == "encoded":
        return Outcome("listed", why, _ev(line))
    if outcome in OTHER_FORM:
        return Outcome("listed-other-form", why, _ev(line))
    if outcome in MISENCODED:
        return Outcome("listed-misencoded", why, _ev(line))
    return Outcome("missing", why, _ev(line))
