"""Hypothesis strategies shared by the fuzz tests: hostile JSON, JSON-RPC shapes, raw bytes.

Text here includes lone surrogates (a JSON ``"\\ud800"`` escape decodes to one), control
characters and every plane, because a client can send any of them; numbers include the huge
and the non-finite (Python's ``json`` reads ``NaN`` and ``1e999``).
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import strategies as st

#: Examples run per fuzz target in this session, printed by ``tests/fuzz/conftest.py``.
EXAMPLES: Counter[str] = Counter()
#: (scenario, check, outcome or verdict) triples the judge's fuzz tests reached, to show that
#: the examples get past the gates into the rules.
REACHED: set[tuple[str, str, str]] = set()

#: Any code point, lone surrogates included (hypothesis leaves them out by default).
ANY_CHAR = st.characters(codec=None, exclude_categories=())
any_text = st.text(ANY_CHAR, max_size=12)
#: Pieces a hostile client would try: lone surrogates, markup, table and line breakers.
HOSTILE = (
    "\ud800",
    "\udfff",
    "<script>x</script>",
    "|",
    "`",
    "``",
    "\n",
    "\r",
    "\t",
    "\x00",
    "\u2028",
    "é",
    "😀",
    "*",
    "_",
    "[x](javascript:alert(1))",
    "{{ 1 }}",
    "&amp;",
    "\\",
    " ",
    "#",
    ":",
    "&#124;",
)
hostile_text = st.one_of(st.lists(st.sampled_from(HOSTILE), max_size=6).map("".join), any_text)

#: Method names the judge looks for, so random messages reach the rules, not only the gates.
METHODS = (
    "initialize",
    "notifications/initialized",
    "roots/list",
    "notifications/roots/list_changed",
    "ping",
    "tools/list",
    "tools/call",
    "server/discover",
    "notifications/message",
    "notifications/tools/list_changed",
    "notifications/cancelled",
    "notifications/mcp-compare/unknown-probe",
)
#: Keys the rules read inside params and results.
KEYS = (
    "protocolVersion",
    "capabilities",
    "clientInfo",
    "serverInfo",
    "roots",
    "listChanged",
    "uri",
    "name",
    "arguments",
    "_meta",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "inputRequests",
    "requestState",
    "content",
    "isError",
    "code",
    "message",
    "data",
    "tools",
)
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft")

numbers = st.one_of(
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
)
leaves = st.one_of(
    st.none(),
    st.booleans(),
    numbers,
    any_text,
    st.sampled_from(METHODS + VERSIONS),
    st.just("file:///tmp/x%20y"),
)
json_values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), any_text), inner, max_size=4),
    ),
    max_leaves=12,
)
ids = st.one_of(st.integers(-2, 5), st.sampled_from(["0", "1", "a"]), json_values)
params = st.one_of(
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=4),
    json_values,
)
error_objects = st.fixed_dictionaries(
    {"code": st.one_of(st.sampled_from([-32601, -32600, -32602, -32603, -1]), json_values)},
    optional={"message": json_values, "data": json_values},
)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), json_values),
        "id": ids,
        "method": st.one_of(st.sampled_from(METHODS), json_values),
        "params": params,
        "result": st.one_of(params, st.fixed_dictionaries({"roots": json_values})),
        "error": st.one_of(error_objects, json_values),
    },
)
#: What a client may put on one line: a message, a batch, or any JSON at all.
wire_values = st.one_of(messages, messages, st.lists(messages, max_size=3), json_values)


def deep(depth: int) -> str:
    """JSON nested ``depth`` arrays deep: Python's reader gives up well before 100 000."""
    return "[" * depth + "]" * depth


def dumps(value: Any, ascii_only: bool) -> str:
    """``value`` as a JSON line; without ``ascii_only`` a lone surrogate stays raw in the text."""
    return json.dumps(value, ensure_ascii=ascii_only)


raw_texts = st.one_of(
    st.builds(dumps, wire_values, st.booleans()),
    any_text,
    st.sampled_from(["", " ", "{", "null", "[]", "[1,", '{"id":1}}']),
    st.sampled_from([3, 200, 1500, 20_000]).map(deep),
)


def encode(text: str) -> bytes:
    """UTF-8, except that a lone surrogate becomes the bytes an invalid encoder would write."""
    return text.encode("utf-8", "surrogatepass")
