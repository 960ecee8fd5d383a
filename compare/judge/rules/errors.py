"""Errors: what a server answers to a line of ours broken on purpose, and the codes it uses.

- ``fault-answered``: the answer to the fault of step ``step`` (a ``raw`` step's line that is
  no valid MCP message): an error with the ``code`` the check names, another code, a code
  that is no integer, a result, silence, or a close.
- ``fault-answer-id``: the id of that answer, where the fault carried an id that can be read:
  the same id, or null (JSON-RPC's answer to a message whose id could not be read). An answer
  with yet another id answers no line of ours: that is wire-ids' ``unknown-id``.
- ``wire-error-codes``: every error code the target wrote, held to the bands the check names
  (``retired``, ``reserved``, ``legacy``: text ranges such as ``-32099..-32020``) and to the
  codes the cell's revision defines (its schema's error definitions) beside JSON-RPC's own.

Which line answers which fault is paired as the hygiene rules pair it
(:func:`~compare.judge.rules.hygiene.fault_answers`), so one reading serves both.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules._revision import revision_definitions
from compare.judge.rules.hygiene import connections, fault_pairs
from compare.judge.rules.server_modern import EITHER_GATE, either_gate

#: JSON-RPC 2.0's own codes, which every revision's schema names (PARSE_ERROR and the rest).
JSONRPC_CODES = frozenset({-32700, -32600, -32601, -32602, -32603})


def _fault(ctx: Context) -> Line | None:
    trace = ctx.tx.steps.get(str(ctx.params["step"]))
    line = ctx.tx.by_n(trace.evidence) if trace is not None else None
    return line if line is not None and line.fault else None


def _answer(ctx: Context, fault: Line) -> Line | None:
    for lines in connections(ctx):
        if fault in lines:
            pairs = fault_pairs(lines)
            return next((x for x in lines if pairs.get(x.n) == fault.n), None)
    return None


def _no_answer(ctx: Context, fault: Line) -> Outcome:
    closed = ctx.server_closed()
    if closed is not None:
        said = "no answer; the server closed its output after the line (it may have exited on it)"
        return Outcome("closed", said, [*_ev(fault), closed])
    return Outcome("silence", "no answer to the line to the end of the cell", _ev(fault))


@rule(
    "fault-answered",
    ("code", "other-code", "not-integer", "result", "silence", "closed", "not-sent",
     *EITHER_GATE),
    gate=either_gate,
    params={
        "step": Param("label", "the raw step whose line is answered", required=True),
        "code": Param("code", "the JSON-RPC error code the answer would carry", required=True),
    },
)  # fmt: skip
def _fault_answered(ctx: Context) -> Outcome:
    fault = _fault(ctx)
    if fault is None:
        return Outcome("not-sent", "the raw step wrote no line")
    answer = _answer(ctx, fault)
    if answer is None:
        return _no_answer(ctx, fault)
    shown = (answer.raw or "")[:300]
    error = answer.obj.get("error")
    if not isinstance(error, dict):
        return Outcome("result", shown, _ev(fault, answer))
    code = error.get("code")
    if not isinstance(code, int) or isinstance(code, bool):
        return Outcome("not-integer", shown, _ev(fault, answer))
    wanted = int(ctx.params["code"])
    return Outcome("code" if code == wanted else "other-code", shown, _ev(fault, answer))


@rule(
    "fault-answer-id",
    ("same-id", "null-id", "unreadable", "no-answer", "not-sent", *EITHER_GATE),
    gate=either_gate,
    params={"step": Param("label", "the raw step whose line's id is read", required=True)},
)
def _fault_answer_id(ctx: Context) -> Outcome:
    fault = _fault(ctx)
    if fault is None:
        return Outcome("not-sent", "the raw step wrote no line")
    sent = fault.obj.get("id") if isinstance(fault.obj, dict) else None
    if sent is None:
        return Outcome("unreadable", "the line carries no id that can be read", _ev(fault))
    answer = _answer(ctx, fault)
    if answer is None:
        return Outcome("no-answer", "no answer to the line", _ev(fault))
    got = answer.obj.get("id")
    if got is None:
        return Outcome("null-id", f"answered with a null id, where the line's id {sent!r} can be"
                       f" read: {(answer.raw or '')[:200]}", _ev(fault, answer))  # fmt: skip
    # the pairing matched it by this id, or by a null id: no other id reaches here
    return Outcome("same-id", f"answered with the line's id {sent!r}", _ev(fault, answer))


def _ranges(text: Any) -> list[tuple[int, int]]:
    """``"-32099..-32020, -32002"`` → [(-32099, -32020), (-32002, -32002)]."""
    out = []
    for part in str(text or "").split(","):
        part = part.strip()
        if not part:
            continue
        low, _, high = part.partition("..")
        a, b = int(low), int(high or low)
        out.append((min(a, b), max(a, b)))
    return out


def _within(code: int, ranges: list[tuple[int, int]]) -> bool:
    return any(low <= code <= high for low, high in ranges)


@cache
def defined_codes(revision: str) -> frozenset[int]:
    """The error codes ``revision``'s schema defines (a ``code`` const of an error
    definition), beside JSON-RPC's own."""
    defs = revision_definitions(revision)
    found: set[int] = set()

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            code = value.get("code")
            if isinstance(code, dict) and isinstance(code.get("const"), int):
                found.add(int(code["const"]))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(defs)
    return JSONRPC_CODES | frozenset(found)


@rule(
    "wire-error-codes",
    ("defined", "retired", "reserved-undefined", "legacy-band", "jsonrpc-reserved", "other",
     "not-integer", "none"),
    params={
        "retired": Param("text", "codes the revision forbids (ranges: -32002, -32042)"),
        "reserved": Param("text", "the band only the spec defines codes in (-32099..-32020)"),
        "legacy": Param("text", "the band new implementations should not use (-32019..-32000)"),
        "jsonrpc": Param("text", "JSON-RPC's reserved range, for codes of no one's definition"
                         " (-32768..-32000)"),
    },
)  # fmt: skip
def _wire_error_codes(ctx: Context) -> Outcome:
    """Each error the target wrote, worst first: a retired code, an undefined code of the
    reserved band, a code that is no integer, a code of the legacy band, an undefined code of
    JSON-RPC's reserved range; else all defined (JSON-RPC's or the revision's) or other (an
    application's own, outside the reserved range)."""
    errors = [
        x for x in ctx.tx.incoming() if x.is_response and isinstance(x.obj.get("error"), dict)
    ]
    if not errors:
        return Outcome("none", "no error responses")
    defined = defined_codes(ctx.revision)
    retired, reserved = _ranges(ctx.params.get("retired")), _ranges(ctx.params.get("reserved"))
    legacy, jsonrpc = _ranges(ctx.params.get("legacy")), _ranges(ctx.params.get("jsonrpc"))
    found: dict[str, list[Line]] = {}
    codes: list[Any] = []
    for x in errors:
        code = x.obj["error"].get("code")
        codes.append(code)
        if not isinstance(code, int) or isinstance(code, bool):
            kind = "not-integer"
        elif _within(code, retired):
            kind = "retired"
        elif code in defined:
            kind = "defined"
        elif _within(code, reserved):
            kind = "reserved-undefined"
        elif _within(code, legacy):
            kind = "legacy-band"
        elif _within(code, jsonrpc):
            kind = "jsonrpc-reserved"
        else:
            kind = "other"
        found.setdefault(kind, []).append(x)
    seen = ", ".join(sorted({repr(c) for c in codes}))
    worst = ("retired", "reserved-undefined", "not-integer", "legacy-band", "jsonrpc-reserved")
    for kind in (*worst, "other"):
        if kind in found:
            lines = found[kind]
            first = (lines[0].raw or "")[:200]
            said = f"{len(lines)} error(s) {kind}: {first} (codes seen: {seen})"
            return Outcome(kind, said[:400], _ev(*lines[:5]))
    return Outcome("defined", f"{len(errors)} error(s), codes {seen}", _ev(*errors[:5]))
