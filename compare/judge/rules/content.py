"""The content blocks of a server's tool results, against the block types its revision has.

- ``content-block-types``: every ``type`` of every content block in the server's answers to
  our ``tools/call`` requests, against the types the session's revision lets a
  ``CallToolResult`` hold (read from its schema: audio first exists at 2025-03-26, a link to a
  resource at 2025-06-18). A block of a type the revision lacks makes the message invalid at
  that revision; this rule names the block, where ``wire-valid`` names the whole message.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, _ev, rule
from compare.judge.rules._revision import revision_definitions
from compare.judge.rules.valid import _session_revision


@cache
def block_types(revision: str) -> frozenset[str]:
    """The ``type`` of each block a ``CallToolResult`` may hold at ``revision``."""
    defs = revision_definitions(revision)

    def leaves(node: Any, seen: frozenset[str]) -> list[dict[str, Any]]:
        if not isinstance(node, dict):
            return []
        ref = node.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            return [] if name in seen else leaves(defs.get(name), seen | {name})
        members = node.get("anyOf") or node.get("oneOf")
        if isinstance(members, list):
            return [leaf for m in members for leaf in leaves(m, seen)]
        return [node]

    content = defs.get("CallToolResult", {}).get("properties", {}).get("content", {})
    found = set()
    for leaf in leaves(content.get("items"), frozenset()):
        const = (leaf.get("properties") or {}).get("type", {}).get("const")
        if isinstance(const, str):
            found.add(const)
    return frozenset(found)


@rule("content-block-types", ("known", "newer-type", "no-blocks"))
def _content_block_types(ctx: Context) -> Outcome:
    revision = _session_revision(ctx)
    allowed = block_types(revision)
    calls = {
        x.obj["id"]
        for x in ctx.tx.lines
        if x.dir == "out" and x.is_request and x.method == "tools/call"
    }  # fmt: skip
    answers: list[Line] = [
        x for x in ctx.tx.incoming()
        if x.is_response and x.obj.get("id") in calls and isinstance(x.obj.get("result"), dict)
    ]  # fmt: skip
    seen: list[tuple[Line, str]] = []
    for x in answers:
        for block in x.obj["result"].get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("type"), str):
                seen.append((x, block["type"]))
    if not seen:
        return Outcome("no-blocks", "no content block in any tool result")
    newer = [(x, t) for x, t in seen if t not in allowed]
    if newer:
        kinds = ", ".join(sorted({t for _, t in newer}))
        said = f"block type(s) {kinds} in a tool result at {revision}, which has {sorted(allowed)}"
        return Outcome("newer-type", said, _ev(*(x for x, _ in newer[:5])))
    kinds = ", ".join(sorted({t for _, t in seen}))
    return Outcome("known", f"{len(seen)} block(s) of {kinds}, each a type {revision} has",
                   _ev(*answers[:5]))  # fmt: skip
