"""roots/list rules: whether the client answered the peer's request, and what its roots say."""

from __future__ import annotations

from typing import Any

from compare.exchange._rules._context import Context
from compare.exchange._rules._registry import (
    EARLY,
    RIGHT_PATH_BAD_FORM,
    RIGHT_PLACE,
    Gate,
    Outcome,
    _ev,
    _roots,
    best_root,
    rule,
    stopped_early,
)
from compare.exchange._transcript import Line
from compare.exchange._validate import validate_as

_NO_ANSWER = {
    "silence": "no response while the connection stayed open for the step's whole bound",
    "closed": "the client ended the connection before it answered",
    "not-asked": "the request was never sent: the client stopped first",
}
UNDECLARED = "no roots capability; see roots-undeclared"


def _without_roots(name: str, observed: str) -> Gate:
    """A gate: the handshake never completed, or the client has no roots capability (outcome
    ``name``), so a rule about its roots does not apply."""

    def gate(ctx: Context) -> Outcome | None:
        early = stopped_early(ctx)
        if early is not None:
            return early
        if ctx.roots_capability is None:
            return Outcome(name, observed, _ev(ctx.initialize))
        return None

    return gate


_early_or_undeclared = _without_roots("undeclared", UNDECLARED)
_early_or_no_roots = _without_roots("no-roots", "no roots capability")


@rule(
    "roots-answered",
    ("result", "error", "silence", "closed", "not-asked", "undeclared", *EARLY),
    ("roots",),
    gate=_without_roots("undeclared", "the client did not declare roots"),
)
def _roots_answered(ctx: Context) -> Outcome:
    kind, line = ctx.reply("roots")
    observed = line.raw[:300] if line and line.raw else _NO_ANSWER[kind]
    return Outcome(kind, observed, _ev(line))


def _roots_result(ctx: Context, label: str) -> tuple[Any, Line | None]:
    kind, line = ctx.reply(label)
    if kind != "result" or line is None:
        return None, None
    return line.obj.get("result"), line


@rule(
    "roots-result-valid",
    ("valid", "invalid", "no-result", "undeclared", *EARLY),
    ("roots",),
    gate=_early_or_undeclared,
)
def _roots_result_valid(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    if line is None:
        return Outcome("no-result", "no roots/list result")
    ok, errors = validate_as(result, "ListRootsResult", ctx.negotiated)
    if ok:
        return Outcome("valid", f"valid ListRootsResult at {ctx.negotiated}", _ev(line))
    return Outcome("invalid", f"at {ctx.negotiated}: " + "; ".join(errors[:5]), _ev(line))


@rule(
    "workspace-root",
    ("present", "absent", "no-result", "undeclared", *EARLY),
    ("roots",),
    gate=_early_or_undeclared,
)
def _workspace_root(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    if line is None:
        return Outcome("no-result", "no roots/list result")
    outcome, why, _ = best_root(_roots(result), ctx.workspace)
    if outcome in RIGHT_PLACE + RIGHT_PATH_BAD_FORM:
        return Outcome("present", why, _ev(line))
    return Outcome("absent", why, _ev(line))


@rule(
    "root-uri-encoding",
    (
        *RIGHT_PLACE,
        *RIGHT_PATH_BAD_FORM,
        "hash-unencoded",
        "query",
        "host-authority",
        "relative",
        "not-file",
        "wrong-path",
        "no-result",
        "undeclared",
        *EARLY,
    ),
    ("roots",),
    gate=_early_or_undeclared,
)
def _root_uri_encoding(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    roots = _roots(result)
    if line is None or not roots:
        return Outcome("no-result", "no roots to judge", _ev(line))
    outcome, why, _ = best_root(roots, ctx.workspace)
    return Outcome(outcome, why, _ev(line))


@rule(
    "root-name",
    ("named", "unnamed", "no-result", "undeclared", *EARLY),
    ("roots",),
    gate=_early_or_undeclared,
)
def _root_name(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    _, _, root = best_root(_roots(result), ctx.workspace)
    if line is None or root is None:
        return Outcome("no-result", "no roots", _ev(line))
    name = root.get("name")
    if isinstance(name, str) and name:
        return Outcome("named", f"name {name!r}", _ev(line))
    return Outcome("unnamed", "no name", _ev(line))


@rule(
    "undeclared-answer",
    (
        "method-not-found",
        "invalid-request",
        "other-error",
        "empty-list",
        "roots-returned",
        "silence",
        "closed",
        "not-asked",
        "declared",
        *EARLY,
    ),
    ("roots",),
    gate=stopped_early,
)
def _undeclared_answer(ctx: Context) -> Outcome:
    if ctx.roots_capability is not None:
        return Outcome("declared", f"roots = {ctx.roots_capability}", _ev(ctx.initialize))
    kind, line = ctx.reply("roots")
    if line is None:
        return Outcome(kind, _NO_ANSWER[kind])
    observed = (line.raw or "")[:300]
    if kind == "error":
        error = line.obj.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        name = {-32601: "method-not-found", -32600: "invalid-request"}.get(code, "other-error")  # type: ignore[arg-type]
        return Outcome(name, observed, _ev(line))
    roots = (
        line.obj.get("result", {}).get("roots")
        if isinstance(line.obj.get("result"), dict)
        else None
    )
    return Outcome("empty-list" if roots == [] else "roots-returned", observed, _ev(line))
