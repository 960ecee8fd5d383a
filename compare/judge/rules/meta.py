"""``_meta`` keys the target writes, held to its revision's key format.

From 2025-06-18 a ``_meta`` key is an optional prefix (dot-separated labels, then a slash) and
a name; some prefixes are reserved for MCP (2025-06-18: a label ``mcp`` or
``modelcontextprotocol`` followed by another label; from 2025-11-25: either as the second
label). From 2026-07-28 ``traceparent`` is reserved for W3C Trace Context and its value must
follow that format. ``wire-meta-keys`` reads every ``_meta`` object anywhere in the target's
messages and names the worst it found; every key is listed, so what each program sends is on
record whatever the grade.

The check's ``with:`` says which reservation rule holds (``reserved: forward`` or
``reverse``; none before 2025-06-18, where keys have no rules) and whether trace values are
read (``trace: w3c``): the scenario file holds the windows, the rule the reading.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules._revision import revision_schema

_LABEL = re.compile(r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?\Z")
_NAME = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?\Z")
_MCP = frozenset({"mcp", "modelcontextprotocol"})
#: W3C Trace Context's traceparent: version, trace-id, parent-id, flags (lower-case hex).
_TRACEPARENT = re.compile(r"[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}\Z")


def metas(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Every ``_meta`` object inside ``value`` (a hostile nesting is read 40 levels deep)."""
    if depth > 40:
        return []
    out: list[dict[str, Any]] = []
    if isinstance(value, dict):
        meta = value.get("_meta")
        if isinstance(meta, dict):
            out.append(meta)
        for item in value.values():
            out += metas(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            out += metas(item, depth + 1)
    return out


def keys_in(value: Any) -> list[str]:
    """Every key of every ``_meta`` object inside ``value``."""
    return [str(k) for meta in metas(value) for k in meta]


def _trace_values(value: Any) -> list[Any]:
    return [meta["traceparent"] for meta in metas(value) if "traceparent" in meta]


def malformed(key: str) -> bool:
    """Whether ``key`` breaks the format: a prefix of labels then a slash, then a name."""
    prefix, slash, name = key.rpartition("/")
    if slash and not all(_LABEL.match(label) for label in prefix.split(".")):
        return True
    return not _NAME.match(name)


def reserved(key: str, how: str) -> bool:
    """Whether ``key``'s prefix is reserved for MCP under the ``forward`` (2025-06-18) or
    ``reverse`` (2025-11-25 on) rule."""
    prefix, slash, _ = key.rpartition("/")
    if not slash:
        return False
    labels = [label.lower() for label in prefix.split(".")]
    if how == "forward":
        return any(label in _MCP for label in labels[:-1])
    if how == "reverse":
        return len(labels) > 1 and labels[1] in _MCP
    return False


@cache
def _schema_text(revision: str) -> str:
    """The revision's schema as text: a reserved key the schema names is the spec's own."""
    schema = revision_schema(revision)
    return json.dumps(schema) if schema is not None else ""


@rule(
    "wire-meta-keys",
    ("none", "well-formed", "reserved-own", "malformed", "bad-trace"),
    params={
        "reserved": Param("text", "the reservation rule: forward (2025-06-18) or reverse"),
        "trace": Param("text", "w3c: read traceparent values as W3C Trace Context"),
    },
)
def _wire_meta_keys(ctx: Context) -> Outcome:
    lines: list[tuple[Line, list[str]]] = []
    for x in ctx.tx.incoming():
        if isinstance(x.obj, dict | list):
            found = keys_in(x.obj)
            if found:
                lines.append((x, found))
    if not lines:
        return Outcome("none", "no _meta keys in its messages")
    every = sorted({k for _, found in lines for k in found})
    listed = ", ".join(every[:20]) + (f" and {len(every) - 20} more" if len(every) > 20 else "")
    bad = [(x, [k for k in found if malformed(k)]) for x, found in lines]
    bad = [(x, keys) for x, keys in bad if keys]
    if bad and ctx.params.get("reserved"):
        said = f"malformed key(s) {', '.join(sorted({k for _, ks in bad for k in ks}))[:200]}"
        return Outcome("malformed", f"{said}; keys: {listed}"[:400], _ev(*(x for x, _ in bad[:5])))
    if ctx.params.get("trace") == "w3c":
        wrong = [(x, v) for x, _ in lines for v in _trace_values(x.obj) if not _w3c(v)]
        if wrong:
            said = f"traceparent {wrong[0][1]!r} is not W3C Trace Context; keys: {listed}"
            return Outcome("bad-trace", said[:400], _ev(*(x for x, _ in wrong[:5])))
    how = str(ctx.params.get("reserved") or "")
    schema = _schema_text(ctx.revision) if how else ""
    own = sorted({k for k in every if reserved(k, how) and json.dumps(k) not in schema})
    if own:
        said = f"key(s) under a prefix reserved for MCP that its schema does not name: {own}"
        hits = [x for x, found in lines if set(found) & set(own)]
        return Outcome("reserved-own", f"{said}; keys: {listed}"[:400], _ev(*hits[:5]))
    return Outcome("well-formed", f"keys: {listed}"[:400], _ev(*(x for x, _ in lines[:5])))


def _w3c(value: Any) -> bool:
    if not isinstance(value, str) or not _TRACEPARENT.match(value):
        return False
    _, trace_id, parent_id, _ = value.split("-")
    return value[:2] != "ff" and set(trace_id) != {"0"} and set(parent_id) != {"0"}
