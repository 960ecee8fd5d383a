"""Relay rules for the protocol's utilities: what a proxy does with the ``_meta`` of its host's
tools/call (a progressToken, keys of other names) and with the host's cancellation of it.

The host's call is followed to the upstream as the other relay rules follow it (``_legs.calls``:
the first forwarded tools/call that arrived while the host's was pending), so each question is
about one call on both legs:

- ``relay-progress-token``: does the forwarded call carry a progressToken at all, the host's
  or one of the proxy's own? Without one the upstream may send no progress, so nothing can
  reach the host; a proxy that maps tokens between its legs is doing what a party to two
  sessions must (each token names a request of its own leg), so both are facts, not faults.
- ``relay-meta-keys``: which keys of the host's ``params._meta`` reach the upstream unchanged.
  Nothing says a proxy forwards ``_meta``; what each one does decides whether a trace or a
  vendor key survives a hop, so it is recorded key by key.
- ``relay-cancel-forwarded``: after the host's ``notifications/cancelled`` for its call, does
  one reach the upstream naming the forwarded request (the id on that leg, which a proxy that
  renumbers must translate)?
- ``relay-cancel-answer``: does the host still get a response to the call it cancelled? A
  receiver of a cancellation should not send one. Our upstream answers anyway once the cancel
  reached it (or its wait ran out), so a proxy's own choice shows: drop the late answer, or
  pass it on. Through a bridge that only forwards the host's own session (``forwarded_session``)
  the late answer is the upstream's, sent after a cancel the bridge did pass on: that is our
  peer's doing, so it reads apart from the proxy's.
"""

from __future__ import annotations

import json
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._legs import Call, calls, ended_between, on_leg
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.relay_calls import forwarded_session
from compare.judge.rules.server import handshake_failed

CANCELLED = "notifications/cancelled"
TOKEN = "progressToken"
#: Shared not-exercised outcomes: the host made no call of the kind read, or the proxy never
#: put it on the upstream while it was pending (``relay-call`` records that as the proxy's).
NOT_CALLED = "not-called"
NOT_FORWARDED = "call-not-forwarded"


def _canon(value: Any) -> str:
    """One text per JSON value, so 1 and "1" (a string and an integer token) stay apart."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _meta(line: Line | None) -> dict[str, Any]:
    meta = line.params.get("_meta") if line is not None else None
    return meta if isinstance(meta, dict) else {}


def _where(call: Call) -> str:
    up = f", upstream connection {call.up.conn} line {call.up.n}" if call.up is not None else ""
    return f"{call.name} (host line {call.host.n}{up})"


def _calls_with_meta(ctx: Context, key: str | None) -> list[Call] | Outcome:
    """The host's tools/calls whose ``_meta`` carries ``key`` (any key when None); or why
    there is nothing to read: no such call, or none reached the upstream while pending."""
    mine = [c for c in calls(ctx) if (key in _meta(c.host) if key else _meta(c.host))]
    what = f"a _meta {key}" if key else "a _meta"
    if not mine:
        return Outcome(NOT_CALLED, f"the host sent no tools/call with {what} (no tool listed)")
    if all(c.up is None for c in mine):
        said = ", ".join(_where(c) for c in mine)
        return Outcome(
            NOT_FORWARDED,
            f"no tools/call reached the upstream while the host's was pending: {said}",
            _ev(*[c.host for c in mine]),
        )
    return [c for c in mine if c.up is not None]


#: Worst first when the host made several calls: none, then a token of the proxy's, then the
#: host's own.
_TOKEN_ORDER = ("no-token", "own-token", "same-token")


@rule(
    "relay-progress-token",
    (*_TOKEN_ORDER, NOT_CALLED, NOT_FORWARDED, "no-initialize"),
    gate=handshake_failed,
)
def _relay_progress_token(ctx: Context) -> Outcome:
    found = _calls_with_meta(ctx, TOKEN)
    if isinstance(found, Outcome):
        return found
    each: list[Outcome] = []
    for call in found:
        mine, theirs = _meta(call.host).get(TOKEN), _meta(call.up).get(TOKEN)
        said = f"{_where(call)}: the host asked progress under {_canon(mine)}"
        evidence = _ev(call.host, call.up)
        if theirs is None:
            each.append(Outcome("no-token", f"{said}; the forwarded call carries none", evidence))
        elif _canon(theirs) == _canon(mine):
            each.append(Outcome("same-token", f"{said}; the forwarded call carries it", evidence))
        else:
            each.append(
                Outcome(
                    "own-token",
                    f"{said}; the forwarded call carries {_canon(theirs)}, a token of the proxy's",
                    evidence,
                )
            )
    worst = min(each, key=lambda o: _TOKEN_ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


#: Worst first: nothing of the host's _meta arrived, then some keys dropped, then every key
#: arrived but some with another value, then every key as sent.
_META_ORDER = ("none-kept", "dropped", "changed", "unchanged")


def _keys_one(call: Call) -> Outcome:
    sent, got = _meta(call.host), _meta(call.up)
    kept = [k for k in sent if k in got and _canon(got[k]) == _canon(sent[k])]
    changed = [f"{k} arrived as {_canon(got[k])[:80]}" for k in sent if k in got and k not in kept]
    dropped = [k for k in sent if k not in got]
    added = [k for k in got if k not in sent]
    parts = [
        f"kept: {', '.join(kept) or 'none'}",
        *([f"changed: {'; '.join(changed)}"] if changed else []),
        *([f"dropped: {', '.join(dropped)}"] if dropped else []),
        *([f"added by the proxy: {', '.join(added)}"] if added else []),
    ]
    said = f"{_where(call)}: {len(sent)} key(s) sent; " + "; ".join(parts)
    if not kept and not changed:
        name = "none-kept"
    elif dropped:
        name = "dropped"
    else:
        name = "changed" if changed else "unchanged"
    return Outcome(name, said, _ev(call.host, call.up))


@rule(
    "relay-meta-keys",
    (*_META_ORDER, NOT_CALLED, NOT_FORWARDED, "no-initialize"),
    gate=handshake_failed,
)
def _relay_meta_keys(ctx: Context) -> Outcome:
    found = _calls_with_meta(ctx, None)
    if isinstance(found, Outcome):
        return found
    each = [_keys_one(c) for c in found]
    worst = min(each, key=lambda o: _META_ORDER.index(o.name))
    return Outcome(worst.name, "; ".join(o.observed for o in each), worst.evidence)


def _host_cancel(ctx: Context) -> tuple[Call, Line] | Outcome:
    """The host's first cancel that names one of its tools/calls, with that call; or why there
    is none (no call, no cancel sent)."""
    mine = calls(ctx)
    if not mine:
        return Outcome(NOT_CALLED, "the host sent no tools/call (no tool listed), so no cancel")
    for line in on_leg(ctx, "host"):
        if line.dir != "out" or line.method != CANCELLED or ctx.write_failed(line.n):
            continue
        rid = line.params.get("requestId")
        hit = next((c for c in mine if _canon(c.host.obj.get("id")) == _canon(rid)), None)
        if hit is not None:
            return hit, line
    return Outcome("not-cancelled", "the host sent no notifications/cancelled for its call")


def _watch_end(ctx: Context, after: int) -> int | None:
    """The host's last step-done note after line ``after``: the end of its watch."""
    done = [
        n
        for n, note in ctx.tx.notes
        if n > after and note.get("leg") == "host" and note.get("event") == "step-done"
    ]
    return done[-1] if done else None


def _upstream_cancels(ctx: Context, call: Call, after: Line) -> list[Line]:
    """The proxy's notifications/cancelled on the forwarded call's connection after ``after``."""
    assert call.up is not None
    return [
        x
        for x in on_leg(ctx, "upstream")
        if x.dir == "in" and x.method == CANCELLED and x.conn == call.up.conn and x.n > after.n
    ]


def _names(line: Line, request: Line) -> bool:
    return _canon(line.params.get("requestId")) == _canon(request.obj.get("id"))


def _reason(line: Line) -> str:
    reason = line.params.get("reason")
    return f" with reason {_canon(reason)[:80]}" if reason is not None else " with no reason"


@rule(
    "relay-cancel-forwarded",
    ("forwarded", "other-id", "closed-instead", "not-forwarded", "answered-first",
     "not-cancelled", NOT_CALLED, NOT_FORWARDED, "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_cancel_forwarded(ctx: Context) -> Outcome:
    found = _host_cancel(ctx)
    if isinstance(found, Outcome):
        return found
    call, cancel = found
    where = f"{_where(call)}: cancelled at host line {cancel.n}{_reason(cancel)}"
    up = call.up
    if up is None or up.n > cancel.n:
        return Outcome(
            NOT_FORWARDED,
            f"{where}; the call had not reached the upstream before the cancel",
            _ev(call.host, cancel),
        )
    if call.up_reply is not None and call.up_reply.n < cancel.n:
        return Outcome(
            "answered-first",
            f"{where}; the upstream had answered (line {call.up_reply.n}) before the cancel",
            _ev(call.host, up, call.up_reply, cancel),
        )
    sent = _upstream_cancels(ctx, call, cancel)
    hit = next((x for x in sent if _names(x, up)), None)
    if hit is not None:
        return Outcome(
            "forwarded",
            f"{where}; the upstream got notifications/cancelled for the forwarded request"
            f" (id {_canon(up.obj.get('id'))}) at line {hit.n}{_reason(hit)},"
            f" {hit.t - cancel.t:.3f} s later",
            _ev(cancel, up, hit),
        )
    if sent:
        other = sent[0]
        return Outcome(
            "other-id",
            f"{where}; the upstream got notifications/cancelled at line {other.n} naming"
            f" {_canon(other.params.get('requestId'))}, not the forwarded request's id"
            f" {_canon(up.obj.get('id'))}",
            _ev(cancel, up, other),
        )
    end = ended_between(ctx, "upstream", up.conn, cancel.n, _watch_end(ctx, cancel.n))
    if end is not None:
        return Outcome(
            "closed-instead",
            f"{where}; no cancel reached the upstream, whose connection {up.conn} the proxy"
            " ended instead while the host watched",
            _ev(cancel, up),
        )
    return Outcome(
        "not-forwarded",
        f"{where}; no notifications/cancelled reached the upstream (connection {up.conn})",
        _ev(cancel, up),
    )


@rule(
    "relay-cancel-answer",
    ("no-response", "answered", "forwarded-session", "closed", "answered-first",
     "not-cancelled", NOT_CALLED, "no-initialize"),
    gate=handshake_failed,
)  # fmt: skip
def _relay_cancel_answer(ctx: Context) -> Outcome:
    found = _host_cancel(ctx)
    if isinstance(found, Outcome):
        return found
    call, cancel = found
    where = f"{_where(call)}: cancelled at host line {cancel.n}"
    reply = call.host_reply
    if reply is not None and reply.n < cancel.n:
        return Outcome(
            "answered-first",
            f"{where}; the host had its response (line {reply.n}) before it cancelled",
            _ev(call.host, reply, cancel),
        )
    if reply is None:
        end = _watch_end(ctx, cancel.n)
        if ended_between(ctx, "host", cancel.conn, cancel.n, end) is not None:
            return Outcome(
                "closed",
                f"{where}; the proxy's connection to the host ended before the watch was over",
                _ev(cancel),
            )
        return Outcome(
            "no-response", f"{where}; no response to it while the host watched", _ev(cancel)
        )
    kind = "an error" if "error" in reply.obj else "a result"
    said = f"{where}; {kind} for it came {reply.t - cancel.t:.3f} s later (line {reply.n})"
    up = call.up
    passed = (
        up is not None
        and call.up_reply is not None
        and any(_names(x, up) for x in _upstream_cancels(ctx, call, cancel))
    )
    bridge = forwarded_session(ctx, up.conn) if up is not None else None
    if passed and bridge:
        assert call.up_reply is not None
        return Outcome(
            "forwarded-session",
            f"{said}: the upstream's own answer (line {call.up_reply.n}), sent after the"
            f" cancel reached it; {bridge}",
            _ev(cancel, call.up_reply, reply),
        )
    return Outcome("answered", said, _ev(call.host, cancel, reply))
