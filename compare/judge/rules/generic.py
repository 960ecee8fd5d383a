"""Generic rules: the shapes every client feature's exchange shares, with the feature named by
the check (``with:`` in the scenario file), not by the rule.

- ``request-answered``: did the client answer the peer's request of ``method``? Sent plainly,
  the answer is the JSON-RPC response; embedded in an InputRequiredResult (a step with
  ``embed:``, from the era boundary on), it is the retry's ``inputResponses`` entry.
- ``result-valid``: does that answer's result validate as ``definition`` at the negotiated
  revision (through the models of that revision)?
- ``capability-declared``: what the client declares as ``capability`` (and its ``member``).
- ``notification-sent``: did the client send the notification ``method`` (after a step)?
- ``request-sent``: did the client send a request of ``method`` by itself (after a step)?
- ``result-field``: does the answer's result carry ``field`` equal to ``equals`` (the action a
  host's handler gave, say)?
- ``request-refused``: the peer asked for something the client did not declare (a mode, a
  member of a capability it declared); did the client refuse it with the error ``code`` the
  spec names? A client that did declare the ``member`` was asked legitimately and reads
  ``member-declared``.

Each takes an optional ``capability``: a client that did not declare it reads ``undeclared``
(the gate every feature's checks share), so a rule about what a capability promises is never
applied to a client that promised nothing. A new area's checks name their method, definition
and capability here instead of adding a rule.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from compare.judge._transcript import Line
from compare.judge._validate import validate_as
from compare.judge.rules._context import Context
from compare.judge.rules._registry import (
    EARLY,
    NO_ANSWER,
    Outcome,
    Param,
    _ev,
    error_code,
    measured_start_failure,
    rule,
    stopped_early,
)

#: The gate outcome of a check whose ``capability`` the client did not declare.
UNDECLARED = "undeclared"

_METHOD = Param("method", "the JSON-RPC method of the peer's request", required=True)
_STEP = Param("label", "the step that sends the request (default: the first step requesting it)")
_CAPABILITY = Param(
    "capability", "the client capability the exchange needs: without it the check is undeclared"
)
_DEFINITION = Param(
    "definition", "the schema definition the result must validate as", required=True
)
_MEMBER = Param(
    "member",
    "a member of the capability (listChanged, form …) the outcome tells apart",
    needs="capability",
)


def _gated(base: tuple[str, ...]) -> Callable[[Mapping[str, Any]], tuple[str, ...]]:
    """``outcomes_for``: ``base``, plus ``undeclared`` when the check names a capability."""

    def outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
        extra = (UNDECLARED,) if params.get("capability") else ()
        return (*base, *extra, *EARLY)

    return outcomes


def _early_or_undeclared(ctx: Context) -> Outcome | None:
    """The handshake never completed, or the client lacks the check's ``capability``."""
    early = stopped_early(ctx)
    if early is not None:
        return early
    name = ctx.params.get("capability")
    if name and ctx.capability(name) is None:
        return Outcome(UNDECLARED, f"no {name} capability", _ev(ctx.initialize))
    return None


def _step(ctx: Context) -> str:
    """The label of the step that sent the request: the check's ``step``, else the first step
    of the transcript whose request is the check's ``method`` (empty: none was played)."""
    label = ctx.params.get("step")
    if label:
        return str(label)
    method = ctx.params.get("method")
    return next((k for k, t in ctx.tx.steps.items() if t.step.get("request") == method), "")


def _member_declared(capability: dict[str, Any], member: str) -> bool:
    """A member counts as declared when it is ``true`` or a sub-capability object."""
    value = capability.get(member)
    return value is True or isinstance(value, dict)


_ANSWERED = ("result", "error", "silence", "closed", "not-asked")
_NOT_EMBEDDED = (
    "never asked: no 2026-07-28 tools/call came while the step waited to embed the request"
    " in its InputRequiredResult"
)


@rule(
    "request-answered",
    (*_ANSWERED, UNDECLARED, *EARLY),
    gate=_early_or_undeclared,
    params={"method": _METHOD, "step": _STEP, "capability": _CAPABILITY},
    outcomes_for=_gated(_ANSWERED),
)
def _request_answered(ctx: Context) -> Outcome:
    label = _step(ctx)
    embedded = _embedded(ctx, label)
    if embedded is not None:
        kind, line, value = embedded
        if line is None:
            return Outcome(kind, _NOT_EMBEDDED if kind == "not-asked" else NO_ANSWER[kind])
        shown = json.dumps(value, ensure_ascii=False)[:300]
        return Outcome(kind, f"inputResponses of the retry (line {line.n}): {shown}", _ev(line))
    kind, line = ctx.reply(label)
    observed = (line.raw or "")[:300] if line is not None else NO_ANSWER[kind]
    return Outcome(kind, observed, _ev(line))


def _embedded(ctx: Context, label: str) -> tuple[str, Line | None, Any] | None:
    """How a request the peer embedded in an InputRequiredResult (a step with ``embed:``,
    played from the era boundary on) was answered: (kind, the retry line, the answer), or
    None when the step's request went out plainly.

    The answer is the retry's ``inputResponses`` entry under the step's key; ``silence`` when
    no retry held it while the connection stayed open for the step's bound, ``closed`` when the
    connection ended first — the same reading as a plain request's (``Context.reply``).
    """
    trace = ctx.tx.steps.get(label)
    if trace is None:
        return None
    key = next(
        (
            note.get("key")
            for _, note in ctx.tx.notes
            if note.get("event") == "embed-armed" and note.get("index") == trace.index
        ),
        None,
    )
    if not isinstance(key, str):
        return None
    if not any(_asks(x, key) for x in ctx.tx.lines if x.dir == "out" and x.n > trace.start_n):
        return "not-asked", None, None  # no 2026-07-28 tools/call came to carry it
    retry = ctx.tx.by_n(trace.evidence)
    responses = retry.params.get("inputResponses") if retry is not None else None
    if isinstance(responses, dict) and key in responses:
        return "result", retry, responses[key]
    closed = ctx.ended_at()
    if closed is not None and (trace.done_n is None or closed < trace.done_n):
        return "closed", None, None
    if trace.done_n is None:
        return "closed", None, None  # the peer stopped mid-step: nothing says an answer was due
    return "silence", None, None


def _answer(ctx: Context) -> tuple[str, Line | None, Any]:
    """How the check's request was answered, plain or embedded: (kind, line, result)."""
    label = _step(ctx)
    embedded = _embedded(ctx, label)
    if embedded is not None:
        return embedded
    kind, line = ctx.reply(label)
    return kind, line, (line.obj.get("result") if line is not None else None)


def _asks(line: Line, key: str) -> bool:
    """Whether our ``line`` is an InputRequiredResult asking for input under ``key``."""
    result = line.obj.get("result") if isinstance(line.obj, dict) else None
    asked = result.get("inputRequests") if isinstance(result, dict) else None
    return isinstance(asked, dict) and key in asked


_VALID = ("valid", "invalid", "no-result")


@rule(
    "result-valid",
    (*_VALID, UNDECLARED, *EARLY),
    gate=_early_or_undeclared,
    params={
        "method": _METHOD,
        "definition": _DEFINITION,
        "step": _STEP,
        "capability": _CAPABILITY,
    },
    outcomes_for=_gated(_VALID),
)
def _result_valid(ctx: Context) -> Outcome:
    kind, line, result = _answer(ctx)
    if kind != "result" or line is None:
        return Outcome("no-result", f"no {ctx.params.get('method')} result")
    definition, at = str(ctx.params["definition"]), ctx.negotiated
    ok, errors = validate_as(result, definition, at)
    if ok:
        return Outcome("valid", f"valid {definition} at {at}", _ev(line))
    return Outcome("invalid", f"at {at}: " + "; ".join(errors[:5]), _ev(line))


def _declared_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    member = ("member-declared",) if params.get("member") else ()
    return (*member, "declared", "absent", "exited-before-initialize")


@rule(
    "capability-declared",
    ("member-declared", "declared", "absent", "exited-before-initialize"),
    gate=measured_start_failure,
    params={
        "capability": Param("capability", "the client capability to read", required=True),
        "member": _MEMBER,
    },
    outcomes_for=_declared_outcomes,
)
def _capability_declared(ctx: Context) -> Outcome:
    name = str(ctx.params["capability"])
    value = ctx.capability(name)
    if value is None:
        return Outcome("absent", f"no {name} capability", _ev(ctx.initialize))
    member = ctx.params.get("member")
    found = "member-declared" if member and _member_declared(value, str(member)) else "declared"
    return Outcome(found, f"{name} = {value}", _ev(ctx.initialize))


def _notified_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    if params.get("member"):
        base: tuple[str, ...] = (
            "sent-declared",
            "missing-declared",
            "sent-undeclared",
            "missing-undeclared",
        )
    else:
        base = ("sent", "missing")
    return _gated(base)(params)


@rule(
    "notification-sent",
    (
        "sent",
        "missing",
        "sent-declared",
        "missing-declared",
        "sent-undeclared",
        "missing-undeclared",
        UNDECLARED,
        *EARLY,
    ),
    gate=_early_or_undeclared,
    params={
        "method": Param("method", "the notification the client should send", required=True),
        "after": Param("label", "count only what the client sent after this step began"),
        "capability": _CAPABILITY,
        "member": _MEMBER,
    },
    outcomes_for=_notified_outcomes,
)
def _notification_sent(ctx: Context) -> Outcome:
    after = _after(ctx)
    method = ctx.params.get("method")
    note = next((x for x in ctx.tx.incoming() if x.n > after and x.method == method), None)
    sent = note is not None
    name, member = ctx.params.get("capability"), ctx.params.get("member")
    if not (name and member):
        return Outcome("sent" if sent else "missing", f"notified={sent}", _ev(note))
    cap = ctx.capability(str(name)) or {}  # the gate saw it declared
    declared = _member_declared(cap, str(member))
    outcome = ("sent-" if sent else "missing-") + ("declared" if declared else "undeclared")
    return Outcome(outcome, f"{member}={cap.get(str(member))!r}; notified={sent}", _ev(note))


def _after(ctx: Context) -> int:
    """The transcript line after which a notification counts: the start of the ``after``
    step; a step that never began lets nothing count (it is not there to follow)."""
    label = ctx.params.get("after")
    if not label:
        return 0
    trace = ctx.tx.steps.get(str(label))
    return trace.start_n if trace is not None else 10**12


_REFUSED = ("code", "other-error", "result", "silence", "closed", "not-asked")


def _refused_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    member = ("member-declared",) if params.get("member") else ()
    return (*_gated(_REFUSED)(params), *member)


@rule(
    "request-refused",
    (*_REFUSED, "member-declared", UNDECLARED, *EARLY),
    gate=_early_or_undeclared,
    params={
        "method": _METHOD,
        "code": Param("code", "the JSON-RPC error code the refusal must carry", required=True),
        "step": _STEP,
        "capability": _CAPABILITY,
        "member": _MEMBER,
    },
    outcomes_for=_refused_outcomes,
)
def _request_refused(ctx: Context) -> Outcome:
    name, member = ctx.params.get("capability"), ctx.params.get("member")
    if name and member:
        cap = ctx.capability(str(name)) or {}  # the gate saw it declared
        if _member_declared(cap, str(member)):
            return Outcome(
                "member-declared",
                f"{name} = {cap}: the request was one it accepts",
                _ev(ctx.initialize),
            )
    kind, line = ctx.reply(_step(ctx))
    if line is None:
        return Outcome(kind, NO_ANSWER[kind])
    shown = (line.raw or "")[:300]
    if kind == "result":
        return Outcome("result", shown, _ev(line))
    code, wanted = error_code(line), ctx.params.get("code")
    if code is not None and str(code) == str(wanted):
        return Outcome("code", shown, _ev(line))
    return Outcome("other-error", f"code {code!r}, not {wanted}: {shown}", _ev(line))


_FIELD = ("equal", "different", "no-result")


@rule(
    "result-field",
    (*_FIELD, UNDECLARED, *EARLY),
    gate=_early_or_undeclared,
    params={
        "method": _METHOD,
        "field": Param("text", "the member of the result to read", required=True),
        "equals": Param("text", "the value it must have (compared as text)", required=True),
        "step": _STEP,
        "capability": _CAPABILITY,
    },
    outcomes_for=_gated(_FIELD),
)
def _result_field(ctx: Context) -> Outcome:
    kind, line, result = _answer(ctx)
    if kind != "result" or line is None or not isinstance(result, dict):
        return Outcome("no-result", f"no {ctx.params.get('method')} result")
    name, wanted = str(ctx.params["field"]), str(ctx.params["equals"])
    value = result.get(name)
    shown = json.dumps(value, ensure_ascii=False)[:200]
    if isinstance(value, str) and value == wanted:
        return Outcome("equal", f"{name} = {shown}", _ev(line))
    return Outcome("different", f"{name} = {shown}, not {wanted!r}", _ev(line))


@rule(
    "request-sent",
    ("sent", "missing", *EARLY),
    gate=stopped_early,
    params={
        "method": Param("method", "the request the client may send", required=True),
        "after": Param("label", "count only what the client sent after this step began"),
    },
)
def _request_sent(ctx: Context) -> Outcome:
    after = _after(ctx)
    method = ctx.params.get("method")
    line = next(
        (x for x in ctx.tx.incoming() if x.n > after and x.is_request and x.method == method),
        None,
    )
    if line is None:
        return Outcome("missing", f"no {method} request")
    return Outcome("sent", (line.raw or "")[:300], _ev(line))
