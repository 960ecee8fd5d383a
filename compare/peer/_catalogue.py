"""What the peer serves when it is the server: tools, resources, resource templates, prompts and
completions, all from the plan's ``serves`` (a client scenario's data), so a client is measured
on what it does with them — whether it pages through a list, reads structured content, tells
an ``isError`` result from a protocol error — without the peer naming any feature.

- Lists come in pages of ``page_size`` items when the plan sets one (else whole), with a
  ``nextCursor`` of ours that holds ``+``, ``/`` and ``=`` so a client that re-encodes it is
  caught (with ``empty_first_cursor`` the first one is the empty string, which 2026-07-28
  says is a cursor like any other); a cursor we never handed out is refused with -32602, as
  the pagination page asks.
- ``tools/call`` answers with the tool's ``answer`` (a CallToolResult as written, or an
  ``error`` object sent as a JSON-RPC error), ``ok`` for a tool without one, and -32602 for a
  tool we do not list (a plan naming no tools at all answers every call ``ok``).
- ``resources/read`` answers with the resource's ``contents`` (a listed URI) or -32602 (from
  2026-07-28 the code for a missing resource; earlier revisions name -32002, and the peer is
  not what is measured there). A kind of thing the plan serves none of (no resources, no
  prompts, no completion) is answered -32601, as by a server without the feature.
- ``prompts/get`` answers with the prompt's ``messages``; ``completion/complete`` with the
  plan's ``completion`` result; ``resources/subscribe`` and ``unsubscribe`` with ``{}``.

Everything here is plain data in, plain data out: the peer sends and records it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: Each list method: the member of its result, and the key of ``serves`` it lists.
LISTS = {
    "tools/list": ("tools", "tools"),
    "resources/list": ("resources", "resources"),
    "resources/templates/list": ("resourceTemplates", "resource_templates"),
    "prompts/list": ("prompts", "prompts"),
}
#: Members of a served item that are ours (how to answer), never sent in a list.
_OURS = ("answer", "contents", "messages")
INVALID_PARAMS = -32602
#: A feature with nothing served answers as a server without it would.
METHOD_NOT_FOUND = -32601


class Catalogue:
    """The plan's ``serves``, answered request by request."""

    def __init__(self, serves: dict[str, Any], default_tools: list[Any] | None) -> None:
        self.serves = serves
        self.tools: list[dict[str, Any]] = list(serves.get("tools", default_tools or []))
        #: A plan that names no tools at all (a hand-written one) has every call answered ok.
        self.any_tool = "tools" not in serves and default_tools is None
        self.page_size = int(serves.get("page_size") or 0)
        #: Every cursor handed out, and the offset it stands for: a cursor is checked
        #: against these only, never parsed.
        self.cursors: dict[str, tuple[str, int]] = {}

    def items(self, key: str) -> list[dict[str, Any]]:
        found = self.tools if key == "tools" else self.serves.get(key, [])
        return [i for i in found if isinstance(i, dict)]

    def handles(self, method: str) -> bool:
        return method in LISTS or method in _SINGLE

    def answer(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        """(result, None) or (None, error object) for one request of a method it handles."""
        if method in LISTS:
            return self.page(method, params)
        return _SINGLE[method](self, params)

    def page(self, method: str, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        member, key = LISTS[method]
        shown = [{k: v for k, v in i.items() if k not in _OURS} for i in self.items(key)]
        start = 0
        if "cursor" in params:
            cursor = params["cursor"]
            known = self.cursors.get(cursor) if isinstance(cursor, str) else None
            if known is None or known[0] != method:
                return None, _error(INVALID_PARAMS, "Invalid params: unknown cursor")
            start = known[1]
        size = self.page_size or len(shown) or 1
        result: dict[str, Any] = {member: shown[start : start + size]}
        if start + size < len(shown):
            cursor = f"mcpc.{member}.{start + size}+/="
            if start == 0 and self.serves.get("empty_first_cursor"):
                cursor = ""  # 2026-07-28: an empty string is a cursor, not the end
            self.cursors[cursor] = (method, start + size)
            result["nextCursor"] = cursor
        return result, None

    def call_tool(self, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        name = params.get("name")
        tool = next((t for t in self.tools if t.get("name") == name), None)
        if tool is None and not self.any_tool:
            return None, _error(INVALID_PARAMS, f"Unknown tool: {name}")
        answer = tool.get("answer") if tool is not None else None
        if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
            return None, answer["error"]
        if isinstance(answer, dict):
            return dict(answer), None
        return {"content": [{"type": "text", "text": "ok"}], "isError": False}, None

    def lookup(self, key: str, member: str, value: Any, what: str) -> tuple[Any, Any]:
        """The served item of ``key`` whose ``member`` is ``value``, or (None, error): -32601
        when nothing of that kind is served (as a server without the feature), else -32602."""
        if not self.items(key):
            return None, _error(METHOD_NOT_FOUND, "Method not found")
        found = next((i for i in self.items(key) if i.get(member) == value), None)
        if found is None:
            return None, _error(INVALID_PARAMS, f"Unknown {what}: {value}")
        return found, None

    def read(self, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        uri = params.get("uri")
        found, error = self.lookup("resources", "uri", uri, "resource")
        if error is not None:
            return None, error
        return {"contents": found.get("contents") or [{"uri": uri, "text": ""}]}, None

    def get_prompt(self, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        found, error = self.lookup("prompts", "name", params.get("name"), "prompt")
        if error is not None:
            return None, error
        return {"messages": found.get("messages") or []}, None

    def complete(self, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        completion = self.serves.get("completion")
        if not isinstance(completion, dict):
            return None, _error(METHOD_NOT_FOUND, "Method not found")
        return {"completion": completion}, None

    def subscribe(self, params: dict[str, Any]) -> tuple[dict[str, Any] | None, Any]:
        if not self.items("resources"):
            return None, _error(METHOD_NOT_FOUND, "Method not found")
        return {}, None


def _error(code: int, message: str) -> dict[str, Any]:
    return {"code": code, "message": message}


_SINGLE = {
    "tools/call": Catalogue.call_tool,
    "resources/read": Catalogue.read,
    "prompts/get": Catalogue.get_prompt,
    "completion/complete": Catalogue.complete,
    "resources/subscribe": Catalogue.subscribe,
    "resources/unsubscribe": Catalogue.subscribe,
}
