"""Multi-round-trip rules (2026-07-28): a tools/call answered ``input_required`` is retried
with the input, the request state echoed and a new id.
"""

from __future__ import annotations

from typing import Any

from compare.judge._transcript import Line
from compare.judge._validate import validate_as, validate_line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import (
    MISENCODED,
    OTHER_FORM,
    Outcome,
    Param,
    _ev,
    _roots,
    best_root,
    rule,
)


def _mrtr_calls(ctx: Context) -> tuple[Line | None, Line | None]:
    first = retry = None
    for line in ctx.modern_requests():
        if line.method != "tools/call":
            continue
        if "inputResponses" in line.params or "requestState" in line.params:
            retry = retry or line
        elif first is None:
            first = line
    return first, retry


@rule("speaks-modern", ("modern", "legacy"))
def _speaks_modern(ctx: Context) -> Outcome:
    modern = ctx.modern_requests()
    if modern:
        return Outcome("modern", f"{modern[0].method} carried 2026-07-28 _meta", _ev(modern[0]))
    init = ctx.initialize
    asked = ctx.init_params.get("protocolVersion")
    return Outcome(
        "legacy", f"initialize with {asked!r}" if init else "no modern request", _ev(init)
    )


@rule("mrtr-retried", ("retried", "retried-without-input", "no-retry", "no-call", "legacy"))
def _mrtr_retried(ctx: Context) -> Outcome:
    if not ctx.modern_requests():
        return Outcome("legacy", "the client does not speak 2026-07-28")
    first, retry = _mrtr_calls(ctx)
    if first is None and retry is None:
        return Outcome("no-call", "no 2026-07-28 tools/call")
    if retry is None:
        return Outcome("no-retry", "the input-required call was not retried", _ev(first))
    key = ctx.plan.get("mrtr", {}).get("key")
    responses = retry.params.get("inputResponses")
    if isinstance(responses, dict) and key in responses:
        return Outcome("retried", f"inputResponses has {key!r}", _ev(first, retry))
    return Outcome(
        "retried-without-input", f"inputResponses = {responses!r}"[:300], _ev(first, retry)
    )


def _retry_or(ctx: Context) -> tuple[Outcome | None, Line | None, Line | None]:
    if not ctx.modern_requests():
        return Outcome("legacy", "the client does not speak 2026-07-28"), None, None
    first, retry = _mrtr_calls(ctx)
    if retry is None:
        return Outcome("no-retry", "no retry", _ev(first)), first, None
    return None, first, retry


def _asked(ctx: Context) -> list[tuple[Line, str | None]]:
    """Our InputRequiredResults as written on the wire, each with the requestState it
    carried (None when it had none): what the next retry must echo."""
    out = []
    for line in ctx.tx.lines:
        result = (
            line.obj.get("result") if line.dir == "out" and isinstance(line.obj, dict) else None
        )
        if isinstance(result, dict) and result.get("resultType") == "input_required":
            state = result.get("requestState")
            out.append((line, state if isinstance(state, str) else None))
    return out


def _chain(ctx: Context) -> list[tuple[Line, Line | None, str | None]]:
    """Every retry of a 2026-07-28 tools/call, in order, with the InputRequiredResult just
    before it and the state that one carried (a retry answers the latest one it was given)."""
    asked = _asked(ctx)
    # by position in the file: a transcript of several sessions numbers each from 1 again
    at = {id(x): i for i, x in enumerate(ctx.tx.lines)}
    chain = []
    for line in ctx.modern_requests():
        if line.method != "tools/call":
            continue
        if "inputResponses" not in line.params and "requestState" not in line.params:
            continue
        before = [a for a in asked if at[id(a[0])] < at[id(line)]]
        irr, state = before[-1] if before else (None, ctx.plan.get("mrtr", {}).get("request_state"))
        chain.append((line, irr, state))
    return chain


@rule("mrtr-request-state", ("exact", "altered", "missing", "no-retry", "legacy"))
def _mrtr_state(ctx: Context) -> Outcome:
    """Each retry echoes the requestState of the InputRequiredResult it answers, byte for
    byte: read on our own lines, so a scenario that asks again checks every round."""
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    chain = _chain(ctx)
    for k, (line, irr, want) in enumerate(chain, 1):
        got = line.params.get("requestState")
        where = f"retry {k} of {len(chain)}: " if len(chain) > 1 else ""
        if got is None and want is not None:
            return Outcome("missing", f"{where}no requestState", _ev(irr or first, line))
        if got != want:
            return Outcome(
                "altered", f"{where}sent {want!r}, got back {got!r}", _ev(irr or first, line)
            )
    line, irr, want = chain[-1]
    if len(chain) == 1:
        return Outcome("exact", f"sent {want!r}, got back {want!r}", _ev(irr or first, line))
    return Outcome("exact", f"all {len(chain)} retries echoed their state", _ev(irr or first, line))


@rule("mrtr-new-id", ("new", "reused", "no-retry", "legacy"))
def _mrtr_new_id(ctx: Context) -> Outcome:
    """Every retry is a request of its own: its id differs from the first call's and from
    each earlier retry's."""
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    a = first.obj.get("id") if first else None
    seen: list[tuple[Any, Line | None]] = [(a, first)]
    chain = _chain(ctx)
    for line, _irr, _state in chain:
        b = line.obj.get("id")
        earlier = next((x for x in seen if x[0] == b), None)
        if earlier is not None:
            return Outcome("reused", f"retry id {b!r} was used before", _ev(earlier[1], line))
        seen.append((b, line))
    if len(chain) == 1:
        return Outcome(
            "new", f"first id {a!r}, retry id {chain[0][0].obj.get('id')!r}", _ev(first, retry)
        )
    ids = ", ".join(repr(x[0]) for x in seen)
    return Outcome("new", f"ids {ids}", _ev(first, chain[-1][0]))


def _rounds(ctx: Context) -> int:
    """The rounds the scenario's embed step asks for (1 when it names none)."""
    steps = ctx.plan.get("steps") or []
    return max(
        (int(s.get("rounds", 1)) for s in steps if isinstance(s, dict) and "embed" in s), default=1
    )


@rule("mrtr-rounds", ("all-rounds", "stopped", "no-retry", "legacy"))
def _mrtr_rounds(ctx: Context) -> Outcome:
    """How many InputRequiredResults in a row a client follows for one call: the peer asks
    again on each retry until the scenario's rounds are used up (mrtr.mdx lets a server do
    so and sets no limit, so how far a client goes is recorded)."""
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    rounds, chain = _rounds(ctx), _chain(ctx)
    last = chain[-1][0]
    if len(chain) >= rounds:
        return Outcome("all-rounds", f"{len(chain)} retries for {rounds} rounds", _ev(first, last))
    return Outcome("stopped", f"{len(chain)} of {rounds} rounds retried", _ev(first, last))


@rule(
    "mrtr-retry-valid",
    ("valid", "invalid", "no-retry", "legacy"),
    params={
        "definition": Param(
            "definition",
            "what the retry's answer to the scenario's embedded request must validate as",
        )
    },
)
def _mrtr_valid(ctx: Context) -> Outcome:
    """The whole retry validates at the revision; with ``definition`` (the result type of the
    request the scenario's ``mrtr`` embeds), so does its ``inputResponses`` entry."""
    early, _first, retry = _retry_or(ctx)
    if early or retry is None or retry.raw is None:
        return early or Outcome("no-retry", "no retry")
    ok, errors = validate_line(retry.raw, ctx.revision)
    key = ctx.plan.get("mrtr", {}).get("key")
    definition = ctx.params.get("definition")
    responses = retry.params.get("inputResponses")
    if definition and isinstance(responses, dict) and key in responses:
        ok2, errors2 = validate_as(responses[key], str(definition), ctx.revision)
        ok, errors = ok and ok2, errors + [f"inputResponses.{key}: {e}" for e in errors2]
    if ok:
        return Outcome("valid", f"valid at {ctx.revision}", _ev(retry))
    return Outcome("invalid", "; ".join(errors[:5]), _ev(retry))


@rule(
    "mrtr-retry-roots",
    ("encoded", "other-form", "misencoded", "absent", "no-retry", "legacy"),
)
def _mrtr_roots(ctx: Context) -> Outcome:
    early, _first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    key = ctx.plan.get("mrtr", {}).get("key")
    responses = retry.params.get("inputResponses")
    value = responses.get(key) if isinstance(responses, dict) else None
    outcome, why, root = best_root(_roots(value), ctx.workspace)
    if root is None or outcome not in ("encoded", *OTHER_FORM, *MISENCODED):
        return Outcome("absent", why, _ev(retry))
    name = "misencoded" if outcome in MISENCODED else outcome
    return Outcome("other-form" if outcome in OTHER_FORM else name, why, _ev(retry))
