"""Multi-round-trip rules (2026-07-28): a tools/call answered ``input_required`` is retried
with the input, the request state echoed and a new id.
"""

from __future__ import annotations

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


@rule("mrtr-request-state", ("exact", "altered", "missing", "no-retry", "legacy"))
def _mrtr_state(ctx: Context) -> Outcome:
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    got = retry.params.get("requestState")
    want = ctx.plan.get("mrtr", {}).get("request_state")
    if want is None:
        # An embed step draws its state when it arms, and notes it: the one the retry echoes.
        armed = [f.get("request_state") for _, f in ctx.tx.notes if f.get("event") == "embed-armed"]
        want = got if got in armed else (armed[0] if armed else None)
    if got is None:
        return Outcome("missing", "no requestState", _ev(first, retry))
    name = "exact" if got == want else "altered"
    return Outcome(name, f"sent {want!r}, got back {got!r}", _ev(first, retry))


@rule("mrtr-new-id", ("new", "reused", "no-retry", "legacy"))
def _mrtr_new_id(ctx: Context) -> Outcome:
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    a = first.obj.get("id") if first else None
    b = retry.obj.get("id")
    return Outcome(
        "reused" if a == b else "new", f"first id {a!r}, retry id {b!r}", _ev(first, retry)
    )


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
