"""roots/list rules: what a client's roots say, and what a client without roots answers.

Whether roots/list was answered at all, and whether its result validates, are the generic
``request-answered`` and ``result-valid`` rules (``generic.py``) with ``method: roots/list``.
"""

from __future__ import annotations

from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import (
    EARLY,
    NO_ANSWER,
    RIGHT_PATH_BAD_FORM,
    RIGHT_PLACE,
    Outcome,
    _ev,
    _roots,
    best_root,
    rule,
    stopped_early,
    without_capability,
)

UNDECLARED = "no roots capability; see roots-undeclared"

_early_or_undeclared = without_capability("roots", "undeclared", UNDECLARED)
_early_or_no_roots = without_capability("roots", "no-roots", "no roots capability")


def _roots_result(ctx: Context, label: str) -> tuple[Any, Line | None]:
    kind, line = ctx.reply(label)
    if kind != "result" or line is None:
        return None, None
    return line.obj.get("result"), line


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
    roots = ctx.capability("roots")
    if roots is not None:
        return Outcome("declared", f"roots = {roots}", _ev(ctx.initialize))
    kind, line = ctx.reply("roots")
    if line is None:
        return Outcome(kind, NO_ANSWER[kind])
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
