"""Wire hygiene: who answers what, on each connection the implementation under test holds.

Every rule here reads the transcript one connection at a time: a client or server cell has
one (the target's lines are ``in``, ours ``out``); a proxy cell has its host leg and each
upstream connection, on each of which the proxy's lines are ``in`` too (``_proxy.py``), so
the same rule holds the proxy to the server's duties on one leg and the client's on the
other. Pairing is per connection and in order: a response answers a request sent before it
on the same connection and not yet answered, because each leg numbers its own requests and a
request id may come back once its request is done.

The order is the one our recorder saw, which is why each reading holds for the target and not
for a race of ours: we record a line of ours before it can reach the target, so a response
recorded before our request cannot answer it; a request of the target recorded before our
answer to the same id was sent while that id was pending (never a false "while pending"). A
reuse recorded after our answer may still have left the target before the answer reached it:
it reads ``reused-after-answer``, which fails at the same revisions and at 2026-07-28 errs
toward a pass, never toward a fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, _ev, rule

PROGRESS = "notifications/progress"


def _key(value: Any) -> str:
    """An id or token as a comparable key: 1, 1.0, "1" and true stay four different ones."""
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):  # a hostile value: compare what it shows
        return repr(value)


def where(line: Line) -> str:
    """Which leg of a proxy cell ``line`` travelled, as words ("" in a one-leg cell)."""
    if line.leg == "upstream":
        return f" on upstream connection {line.conn}"
    return f" on the {line.leg} leg" if line.leg else ""


def connections(ctx: Context) -> Iterator[list[Line]]:
    """Each connection's (or session's) wire lines, in order."""
    groups: dict[tuple[str | None, int | None], list[Line]] = {}
    session, last = 0, 0
    for line in ctx.tx.lines:
        if line.session is not None:  # a client over HTTP: each session numbers its own ids
            groups.setdefault(("http-session", line.session), []).append(line)
        elif line.leg is None:
            # Each start of the peer appends its own records numbered from 1: a client that
            # starts its server again opens a new session, whose ids start afresh.
            if line.n < last:
                session += 1
            last = line.n
            groups.setdefault((None, session), []).append(line)
        else:
            groups.setdefault((line.leg, line.conn), []).append(line)
    yield from groups.values()


def fault_pairs(lines: list[Line]) -> dict[int, int]:
    """The target's responses that answer a line of ours broken on purpose (a ``raw``
    step's fault) on one connection, as {response line: fault line}.

    A fault with a readable id is answered by a response with that id. A response with a null
    id (JSON-RPC's answer to a message whose id it could not read) answers a fault of the
    window it falls in: from the fault to the answer to our next request after it (a
    scenario puts a ping after each fault, so that every window holds one fault). Within a
    window a fault that may be answered (a line that is no message, or a request) comes before
    one that is a notification, which no answer is owed; the oldest first. A null-id response
    in no fault's window answers none. No revision's schema describes what answers a fault,
    so the hygiene rules leave these to the scenario's own checks."""
    faults: list[tuple[int, str | None, bool]] = []  # (line, id key, a notification)
    for x in lines:
        if x.dir == "out" and x.fault:
            obj = x.obj if isinstance(x.obj, dict) else {}
            rid = obj.get("id")
            notification = isinstance(obj.get("method"), str) and "id" not in obj
            faults.append((x.n, None if rid is None else _key(rid), notification))
    if not faults:
        return {}
    ends: dict[int, int | None] = {}
    for n, _, _ in faults:
        after = next((x for x in lines if x.n > n and x.dir == "out" and x.is_request
                      and _has_id(x) and not x.fault), None)  # fmt: skip
        answer = None
        if after is not None:
            k = _key(after.obj["id"])
            answer = next((x for x in lines if x.n > after.n and x.dir == "in" and x.is_response
                           and _has_id(x) and _key(x.obj["id"]) == k), None)  # fmt: skip
        ends[n] = answer.n if answer is not None else None
    open_faults = list(faults)
    pairs: dict[int, int] = {}
    for x in lines:
        if not (x.dir == "in" and x.is_response):
            continue
        if _has_id(x):
            k = _key(x.obj["id"])
            match = next((f for f in open_faults if f[1] == k and f[0] < x.n), None)
        else:
            window = [f for f in open_faults if f[0] < x.n and x.n < (ends[f[0]] or x.n + 1)]
            window.sort(key=lambda f: (f[2], f[0]))
            match = window[0] if window else None
        if match is not None:
            open_faults.remove(match)
            pairs[x.n] = match[0]
    return pairs


def fault_answers(lines: list[Line]) -> set[int]:
    """The line numbers of :func:`fault_pairs`' answers."""
    return set(fault_pairs(lines))


def _is_notification(line: Line) -> bool:
    return line.method is not None and not line.is_request


def _has_id(line: Line) -> bool:
    return isinstance(line.obj, dict) and line.obj.get("id") is not None


@rule("wire-ids", ("matched", "unknown-id", "answered-twice", "no-requests"))
def _wire_ids(ctx: Context) -> Outcome:
    """Each response of the target against our requests pending at that moment: one sent
    before it on its connection (``unknown-id`` otherwise: never sent, or only later) and not
    answered already (``answered-twice`` otherwise)."""
    strays: list[Line] = []
    twice: list[Line] = []
    sent = 0
    for lines in connections(ctx):
        pending: set[str] = set()
        answered: set[str] = set()
        faults = fault_answers(lines)
        for x in lines:
            if x.n in faults and x.dir == "in":
                continue  # answers a fault of ours: the scenario's checks read it
            if x.dir == "out" and x.is_request and _has_id(x):
                sent += 1
                pending.add(_key(x.obj["id"]))
            elif x.dir == "in" and x.is_response and _has_id(x):
                k = _key(x.obj["id"])
                if k in pending:
                    pending.discard(k)
                    answered.add(k)
                else:
                    (twice if k in answered else strays).append(x)
    if strays:
        return Outcome(
            "unknown-id",
            f"id {strays[0].obj.get('id')!r}{where(strays[0])} answers no request sent before it",
            _ev(*strays[:5]),
        )
    if twice:
        first = twice[0].obj.get("id")
        return Outcome(
            "answered-twice",
            f"{len(twice)} response(s) to a request already answered, first to id {first!r}"
            + where(twice[0]),
            _ev(*twice[:5]),
        )
    if not sent:
        return Outcome("no-requests", "no request was sent to it, so it had nothing to answer")
    return Outcome("matched", f"{sent} request(s) sent, each answered at most once")


# One rule for two checks: until 2025-11-25 an id may never come back within a session; from
# 2026-07-28 only while its request is pending (the scenario files grade each window).
@rule("wire-request-ids", ("unique", "reused-while-pending", "reused-after-answer", "no-requests"))
def _request_ids(ctx: Context) -> Outcome:
    while_pending: list[Line] = []
    after_answer: list[Line] = []
    count = 0
    for lines in connections(ctx):
        pending: set[str] = set()
        used: set[str] = set()
        for x in lines:
            if x.dir == "in" and x.is_request and _has_id(x):
                count += 1
                k = _key(x.obj["id"])
                if k in pending:
                    while_pending.append(x)
                elif k in used:
                    after_answer.append(x)
                pending.add(k)
                used.add(k)
            elif x.dir == "out" and x.is_response and _has_id(x):
                pending.discard(_key(x.obj["id"]))
    if while_pending:
        rid = while_pending[0].obj.get("id")
        return Outcome(
            "reused-while-pending",
            f"request id {rid!r} sent again{where(while_pending[0])} while its first request"
            " was still unanswered",
            _ev(*while_pending[:5]),
        )
    if after_answer:
        rid = after_answer[0].obj.get("id")
        return Outcome(
            "reused-after-answer",
            f"request id {rid!r} sent again{where(after_answer[0])} after its first request"
            " was answered",
            _ev(*after_answer[:5]),
        )
    if not count:
        return Outcome("no-requests", "it sent no request, so no id could come back")
    return Outcome("unique", f"{count} request(s), each with an id of its own")


@rule("wire-notification-reply", ("no-reply", "replied", "no-id", "no-notifications"))
def _notification_reply(ctx: Context) -> Outcome:
    """A response without an id can answer no request (a request's id is never null), so one
    that follows a notification of ours on its connection answers that notification. One
    before any notification answers nothing we sent (``no-id``)."""
    replied: list[Line] = []
    no_id: list[Line] = []
    notified = 0
    for lines in connections(ctx):
        heard = False
        faults = fault_answers(lines)
        for x in lines:
            if x.n in faults and x.dir == "in":
                continue  # answers a fault of ours (a line without a readable id)
            if x.dir == "out" and _is_notification(x) and not x.fault:
                heard = True
                notified += 1
            elif x.dir == "in" and x.is_response and not _has_id(x):
                (replied if heard else no_id).append(x)
    if replied:
        said = (replied[0].raw or "")[:300]
        return Outcome("replied", f"answered{where(replied[0])}: {said}", _ev(*replied[:5]))
    if no_id:
        return Outcome(
            "no-id",
            f"a response without an id{where(no_id[0])} before any notification: "
            + (no_id[0].raw or "")[:200],
            _ev(*no_id[:5]),
        )
    if not notified:
        return Outcome(
            "no-notifications", "no notification was sent to it, so none could be answered"
        )
    return Outcome("no-reply", f"{notified} notification(s) sent, none answered")


def _token(line: Line) -> tuple[bool, Any]:
    params = line.params
    return ("progressToken" in params), params.get("progressToken")


def _carried(line: Line) -> tuple[bool, Any]:
    meta = line.params.get("_meta")
    if isinstance(meta, dict) and "progressToken" in meta:
        return True, meta["progressToken"]
    return False, None


@rule("wire-progress", ("no-progress", "active-tokens", "unknown-token", "after-completion"))
def _wire_progress(ctx: Context) -> Outcome:
    """Each progress notification of the target against the tokens our requests carried on
    its connection: active while the request waits for its response, completed after it."""
    unknown: list[Line] = []
    late: list[Line] = []
    seen = 0
    for lines in connections(ctx):
        token_of: dict[str, str] = {}  # request id -> token
        active: set[str] = set()
        done: set[str] = set()
        for x in lines:
            if x.dir == "out" and x.is_request and _has_id(x):
                has, token = _carried(x)
                if has:
                    token_of[_key(x.obj["id"])] = _key(token)
                    active.add(_key(token))
            elif x.dir == "in" and x.is_response and _has_id(x):
                token = token_of.pop(_key(x.obj["id"]), None)
                if token is not None:
                    active.discard(token)
                    done.add(token)
            elif x.dir == "in" and x.method == PROGRESS and not x.is_request:
                seen += 1
                has, token = _token(x)
                k = _key(token)
                if has and k in active:
                    continue
                (late if has and k in done else unknown).append(x)
    if unknown:
        has, token = _token(unknown[0])
        shown = f"token {token!r}" if has else "no progressToken"
        return Outcome(
            "unknown-token",
            f"{len(unknown)} progress notification(s) for a token no request of ours carried"
            f" (first: {shown}{where(unknown[0])})",
            _ev(*unknown[:5]),
        )
    if late:
        return Outcome(
            "after-completion",
            f"{len(late)} progress notification(s) after the response to the request that"
            f" carried the token (first: {_token(late[0])[1]!r}{where(late[0])})",
            _ev(*late[:5]),
        )
    if seen:
        return Outcome(
            "active-tokens", f"{seen} progress notification(s), each for an active request"
        )
    return Outcome("no-progress", "no progress notifications")


@rule("wire-client-responses", ("none", "responses", "legacy"))
def _client_responses(ctx: Context) -> Outcome:
    """From 2026-07-28 a stdio client writes no responses at all: the server sends it no
    requests (they travel inside results), so any response answers nothing. A client that
    opened with ``initialize`` speaks an older revision's session, in which it answers the
    server's requests, so the check does not apply to it."""
    if ctx.initialize is not None:
        return Outcome("legacy", "the client opened with initialize (an older revision's session)")
    responses = [x for x in ctx.tx.incoming() if x.is_response]
    if responses:
        return Outcome(
            "responses",
            f"{len(responses)} response(s), first {(responses[0].raw or '')[:200]}",
            _ev(*responses[:5]),
        )
    return Outcome("none", "no responses")
