"""Every message of the program under test, validated against the negotiated revision.

Issue 36 item 5: the judge validated what a client sent in a few named checks (initialize,
a result it was asked for) and nothing a server or a proxy sent. ``wire-valid`` is a common
check of every side: each parsed line the target wrote (``in``) is validated with the
revision's generated models — requests and notifications as their method's definition, every
response as its envelope, and a result as the result of the request it answers (paired per
connection, in order, as ``hygiene`` pairs ids). A line that is not JSON is ``wire-json``'s.

The revision is the one the session ran at: for a server, the version its initialize result
named when that is a pinned revision (the scripted client carries on at the server's
answer); for a client, the one the peer answered with; a 2026-07-28 session has no
initialize and runs at the cell's revision.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from compare.judge._transcript import Line
from compare.judge._validate import validate_as, validate_line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules.hygiene import _has_id, _key, connections, fault_answers, where

#: How many invalid lines a reason names (the evidence keeps five).
SHOWN = 3


@cache
def _result_definitions(revision: str) -> tuple[dict[str, str], frozenset[str]]:
    """``method`` → the definition of its result at ``revision`` (``ListToolsResult`` for
    ``tools/list``), by the schema's own naming, and the revision's definitions."""
    from compare.models import schema_index

    index = schema_index(revision)
    out = {}
    for method, definition in index.methods.items():
        result = definition.removesuffix("Request") + "Result"
        if definition.endswith("Request") and result in index.definitions:
            out[method] = result
    return out, index.definitions


def _session_revision(ctx: Context) -> str:
    """The revision the target's messages are held to (see the module docstring)."""
    if ctx.initialize is None:  # we opened the session (a server cell), or nobody did
        answer = _server_answer(ctx)
        if answer is not None:
            return answer
    return ctx.negotiated


def _server_answer(ctx: Context) -> str | None:
    from compare.pin import load_pins

    ours = next(
        (x for x in ctx.tx.lines if x.dir == "out" and x.method == "initialize" and _has_id(x)),
        None,
    )
    reply = ctx.tx.response_to(ours.obj["id"], ours.n) if ours is not None else None
    result = reply.obj.get("result") if reply is not None else None
    version = result.get("protocolVersion") if isinstance(result, dict) else None
    pinned = {r.name for r in load_pins().revisions}
    return version if isinstance(version, str) and version in pinned else None


def _check_result(line: Line, method: str | None, revision: str) -> list[str]:
    """Why the result of ``line`` (answering ``method``) is invalid; [] when it is valid or
    the revision names no result for that method (ping's is any object)."""
    results, definitions = _result_definitions(revision)
    definition = results.get(method or "")
    value = line.obj.get("result")
    if definition is None:
        return []
    ok, errors = validate_as(value, definition, revision)
    if ok:
        return []
    # From 2026-07-28 a request may be answered with an InputRequiredResult instead.
    if "InputRequiredResult" in definitions:
        alt, _ = validate_as(value, "InputRequiredResult", revision)
        if alt:
            return []
    return [f"as {definition}: {e}" for e in errors]


@rule("wire-valid", ("valid", "invalid", "nothing-to-validate"))
def _wire_valid(ctx: Context) -> Outcome:
    revision = _session_revision(ctx)
    bad: list[tuple[Line, list[str]]] = []
    checked = 0
    for lines in connections(ctx):
        pending: dict[str, str | None] = {}
        faults = fault_answers(lines)
        for x in lines:
            if x.dir == "in" and x.n in faults:
                continue  # answers a fault of ours, which no schema describes: see its checks
            if x.dir == "out":
                if x.is_request and _has_id(x):
                    pending[_key(x.obj["id"])] = x.method
                continue
            if x.parse_error or x.obj is None:
                continue  # wire-json's
            checked += 1
            ok, errors = validate_line(x.raw or "", revision)
            if ok and isinstance(x.obj, dict) and "result" in x.obj and _has_id(x):
                method = pending.pop(_key(x.obj["id"]), None)
                errors = _check_result(x, method, revision)
                ok = not errors
            elif isinstance(x.obj, dict) and x.is_response and _has_id(x):
                pending.pop(_key(x.obj["id"]), None)
            if not ok:
                bad.append((x, errors))
    if not checked:
        return Outcome("nothing-to-validate", "no message from it was parsed")
    if bad:
        shown = "; ".join(
            f"line {x.n}{where(x)} ({_what(x)}): {', '.join(errors[:2])}"
            for x, errors in bad[:SHOWN]
        )
        return Outcome(
            "invalid",
            f"{len(bad)} of {checked} message(s) invalid at {revision}: {shown}",
            _ev(*(x for x, _ in bad[:5])),
        )
    return Outcome("valid", f"{checked} message(s) valid at {revision}")


def _what(line: Line) -> str:
    obj: Any = line.obj
    if isinstance(obj, dict) and isinstance(obj.get("method"), str):
        return str(obj["method"])
    if isinstance(obj, dict) and "result" in obj:
        return "a result"
    if isinstance(obj, dict) and "error" in obj:
        return "an error"
    return "a batch" if isinstance(obj, list) else "a message"
