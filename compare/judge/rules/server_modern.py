"""Server-side rules past the handshake era (2026-07-28 on), and the rules of ``server-mrtr``,
which plays in both eras.

At 2026-07-28 a server may no longer write a request to the client: it asks for roots by
answering ``tools/call`` (or ``prompts/get``, ``resources/read``) with an
``InputRequiredResult`` whose ``inputRequests`` hold ``roots/list``, and the client retries.
The scripted client opens with ``server/discover`` (step ``discover``) instead of
``initialize``, and records its retry as the step ``<label>:retry``; these rules read those
notes. Which revisions are modern comes from the pins (``ctx.first_modern``).
"""

from __future__ import annotations

from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.server import handshake_failed, roots_requests
from compare.peer import is_modern

#: The gate outcomes of a modern rule: the probe timed out, or it was refused (legacy server).
NO_DISCOVER = ("no-discover", "not-modern")
#: What a rule that plays in both eras may end with before the exchange got going.
EITHER_GATE = ("no-initialize", *NO_DISCOVER)
MISSING_CAPABILITY = -32021


def modern(ctx: Context) -> bool:
    return is_modern(ctx.revision, ctx.first_modern)


def discover_failed(ctx: Context) -> Outcome | None:
    """``not-modern`` when server/discover got an error (a legacy server: nothing of this era
    can be measured), ``no-discover`` when it got no answer at all; None when it was answered."""
    trace = ctx.tx.steps.get("discover")
    if trace is not None and trace.outcome == "ok":
        return None
    evidence = _ev(ctx.tx.by_n(trace.evidence)) if trace is not None else []
    if trace is not None and trace.outcome == "error":
        return Outcome(
            "not-modern",
            "not run, because the server answered server/discover with an error: it does not"
            " speak 2026-07-28",
            evidence,
        )
    return Outcome("no-discover", "the server never answered server/discover", evidence)


def either_gate(ctx: Context) -> Outcome | None:
    """The opening of the cell's own era: discover when modern, initialize before."""
    return discover_failed(ctx) if modern(ctx) else handshake_failed(ctx)


def embedded_roots(ctx: Context) -> list[Line]:
    """Every response that is an InputRequiredResult asking for roots/list."""
    out = []
    for line in ctx.tx.incoming():
        result = line.obj.get("result") if line.is_response else None
        if not isinstance(result, dict) or result.get("resultType") != "input_required":
            continue
        asked = result.get("inputRequests")
        if isinstance(asked, dict) and any(
            isinstance(v, dict) and v.get("method") == "roots/list" for v in asked.values()
        ):
            out.append(line)
    return out


def _declared(ctx: Context) -> bool:
    caps = ctx.plan.get("capabilities")
    return isinstance(caps, dict) and "roots" in caps


def _capability_errors(ctx: Context) -> list[Line]:
    return [
        x
        for x in ctx.tx.incoming()
        if x.is_response
        and isinstance(x.obj.get("error"), dict)
        and x.obj["error"].get("code") == MISSING_CAPABILITY
    ]


@rule("server-asks-modern", ("embedded", "as-request", "never", *NO_DISCOVER), ("call",),
      gate=discover_failed)  # fmt: skip
def _asks_modern(ctx: Context) -> Outcome:
    asks = roots_requests(ctx)
    if asks:
        return Outcome(
            "as-request",
            f"a roots/list request on stdout at line {asks[0].n} ({len(asks)} in all)",
            _ev(*asks[:5]),
        )
    embedded = embedded_roots(ctx)
    if embedded:
        return Outcome(
            "embedded",
            f"roots/list inside an InputRequiredResult at line {embedded[0].n}",
            _ev(embedded[0]),
        )
    return Outcome("never", "no roots/list, embedded or as a request, in the whole exchange")


@rule(
    "server-asks-undeclared-modern",
    ("not-asked", "capability-error", "embedded", "as-request", "declared", *NO_DISCOVER),
    gate=discover_failed,
)
def _asks_undeclared_modern(ctx: Context) -> Outcome:
    if _declared(ctx):
        return Outcome("declared", "the scripted client declared roots in this scenario")
    asks = roots_requests(ctx)
    if asks:
        return Outcome(
            "as-request", f"a roots/list request on stdout at line {asks[0].n}", _ev(*asks[:5])
        )
    embedded = embedded_roots(ctx)
    if embedded:
        return Outcome(
            "embedded",
            f"roots/list inside an InputRequiredResult at line {embedded[0].n} though no roots"
            " capability was declared",
            _ev(embedded[0]),
        )
    refused = _capability_errors(ctx)
    if refused:
        return Outcome(
            "capability-error",
            f"MissingRequiredClientCapabilityError (-32021) at line {refused[0].n}",
            _ev(refused[0]),
        )
    return Outcome("not-asked", "no roots/list, embedded or as a request, in the whole exchange")


def _asked_in_call(ctx: Context) -> tuple[list[Line], list[Line]]:
    """The roots/list requests, and the InputRequiredResults asking for roots, that came
    after our tool call started (a question asked earlier was not the tool's)."""
    call = ctx.tx.steps.get("call")
    start = call.start_n if call is not None else 0
    asks = [x for x in roots_requests(ctx) if x.n > start]
    return asks, [x for x in embedded_roots(ctx) if x.n > start]


@rule("server-roots-asked", ("request", "embedded", "not-asked", *EITHER_GATE), ("call",),
      gate=either_gate)  # fmt: skip
def _roots_asked(ctx: Context) -> Outcome:
    """How the server asked for roots while our tool call was in progress, if it did."""
    asks, embedded = _asked_in_call(ctx)
    if asks:
        return Outcome("request", f"a roots/list request at line {asks[0].n}", _ev(asks[0]))
    if embedded:
        return Outcome(
            "embedded",
            f"roots/list inside an InputRequiredResult at line {embedded[0].n}",
            _ev(embedded[0]),
        )
    return Outcome("not-asked", "the tool call went by without a roots/list")


def _texts(result: dict[str, Any]) -> list[str]:
    """The strings a CallToolResult hands back: text content and structured content."""
    out = [
        str(c.get("text"))
        for c in result.get("content") or []
        if isinstance(c, dict) and isinstance(c.get("text"), str)
    ]
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        out += [v for v in structured.values() if isinstance(v, str)]
    return out


def _final(ctx: Context) -> Line | None:
    """The answer that ended our tool call: the retry's at 2026-07-28, else the call's own."""
    for label in ("call:retry", "call"):
        trace = ctx.tx.steps.get(label)
        if trace is not None and trace.id is not None:
            return ctx.tx.response_to(trace.id, trace.start_n)
    return None


@rule("server-roots-used", ("used", "altered", "not-used", "no-result", "not-asked",
      *EITHER_GATE), ("call",), gate=either_gate)  # fmt: skip
def _roots_used(ctx: Context) -> Outcome:
    """Whether the tool's result holds every root URI we answered with, byte for byte."""
    if not any(_asked_in_call(ctx)):
        return Outcome("not-asked", "no question for roots during the tool call: nothing to use")
    final = _final(ctx)
    result = final.obj.get("result") if final is not None else None
    if final is None or not isinstance(result, dict):
        why = "no answer" if final is None else "a JSON-RPC error"
        return Outcome("no-result", f"the tool call ended with {why}", _ev(final))
    if result.get("resultType") == "input_required":
        return Outcome("no-result", "the retry was answered with input_required again", _ev(final))
    if result.get("isError") is True:
        return Outcome("no-result", "the tool reported an error (isError)", _ev(final))
    folders = ctx.plan.get("folders") or {}
    uris = [str(folders[name]["uri"]) for name in ctx.plan.get("roots", []) if name in folders]
    texts = _texts(result)
    missing = [u for u in uris if not any(u in t for t in texts)]
    if uris and not missing:
        return Outcome("used", f"the result names {len(uris)} root URI(s) exactly", _ev(final))
    names = [name for name in ctx.plan.get("roots", []) if any(name in t for t in texts)]
    if names:
        return Outcome(
            "altered",
            f"the result names the root folder but not the URI we sent ({missing[0]})",
            _ev(final),
        )
    return Outcome("not-used", "the result names none of our roots", _ev(final))
