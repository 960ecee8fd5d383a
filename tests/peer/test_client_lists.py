"""The scripted client's reading of a server's own answers (compare/peer/client/_lists.py):
params filled from an earlier answer, and a list walked by the cursors the server hands out,
each sent back exactly as it came, bounded by max_pages. The walk is played here against a
stand-in that answers from a table; real servers that page are played in the matrix."""

from __future__ import annotations

from typing import Any

from compare.peer.client import _lists

PROMPTS = {
    "result": {
        "prompts": [
            {"name": "plain"},
            {"name": "optional", "arguments": [{"name": "x"}]},
            {"name": "greet", "arguments": [{"name": "who", "required": True}]},
        ]
    }
}


def test_pick_takes_the_first_item_for_which_has_holds() -> None:
    answers = {"list-prompts": PROMPTS}
    spec = {"from": "list-prompts", "items": "result.prompts", "take": "name"}
    assert _lists.pick(answers, spec) == "plain"
    assert _lists.pick(answers, {**spec, "has": "arguments[].required"}) == "greet"
    assert _lists.pick(answers, {**spec, "has": "arguments"}) == "optional"
    assert _lists.pick(answers, {**spec, "has": "nothing[].here"}) is None
    assert _lists.pick(answers, {**spec, "from": "never-asked"}) is None
    assert _lists.pick({"list-prompts": None}, spec) is None


def test_filled_leaves_the_request_unsent_when_nothing_matches() -> None:
    step = {
        "request": "prompts/get",
        "params": {"arguments": {}},
        "params_from": {
            "name": {"from": "list-prompts", "items": "result.prompts", "take": "name"}
        },
    }
    assert _lists.filled(step, {"list-prompts": PROMPTS}) == (
        {"arguments": {}, "name": "plain"},
        "",
    )
    params, missing = _lists.filled(step, {"list-prompts": {"error": {"code": -32601}}})
    assert params is None and "list-prompts" in missing


def test_a_dotted_name_fills_a_member_of_an_object_param_and_leaves_the_step_alone() -> None:
    spec = {"from": "list-prompts", "items": "result.prompts", "has": "arguments.0.name"}
    step = {
        "request": "completion/complete",
        "params": {"ref": {"type": "ref/prompt"}, "argument": {"value": ""}},
        "params_from": {
            "ref.name": {**spec, "take": "name"},
            "argument.name": {**spec, "take": "arguments.0.name"},
        },
    }
    params, missing = _lists.filled(step, {"list-prompts": PROMPTS})
    assert missing == ""
    assert params == {
        "ref": {"type": "ref/prompt", "name": "optional"},
        "argument": {"value": "", "name": "x"},
    }
    assert step["params"] == {"ref": {"type": "ref/prompt"}, "argument": {"value": ""}}


class Stand:
    """Answers each list request with the next of ``replies`` (None: left unanswered) and
    records the params it was sent."""

    def __init__(self, replies: list[dict[str, Any] | None]) -> None:
        self.replies = list(replies)
        self.sent: list[dict[str, Any] | None] = []
        self.notes: list[dict[str, Any]] = []
        self.answers: dict[str, Any] = {}
        self.tools: list[dict[str, Any]] = []
        self.closed = False
        self.tx = self

    def note(self, **fields: Any) -> None:
        self.notes.append(fields)

    def call(self, method: str, params: dict[str, Any] | None, timeout: float) -> Any:
        self.sent.append(params)
        reply = self.replies.pop(0) if self.replies else None
        return len(self.sent), (None if reply is None else (100 + len(self.sent), reply))


def page(items: list[str], cursor: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"tools": [{"name": n} for n in items]}
    if cursor is not None:
        result["nextCursor"] = cursor
    return {"result": result}


def test_walk_sends_each_cursor_back_as_it_came_until_a_page_has_none() -> None:
    odd = {"k": "opaque/+=", "n": 1}  # not a string: still sent back unchanged
    stand = Stand([page(["a"], ""), page(["b"], odd), page(["c"])])
    record: dict[str, Any] = {"index": 3}
    _lists.walk(stand, {"paginate": "tools/list", "label": "list-tools"}, 5.0, record)
    # an empty string is a cursor too (2026-07-28 says so outright)
    assert stand.sent == [None, {"cursor": ""}, {"cursor": odd}]
    assert record["outcome"] == "ok" and record["pages"] == 3
    labels = [n["label"] for n in stand.notes if n["event"] == "step-done"]
    assert labels == ["list-tools:page-2", "list-tools:page-3"]
    assert set(stand.answers) == {"list-tools", "list-tools:page-2", "list-tools:page-3"}
    assert [t["name"] for t in stand.tools] == ["a", "b", "c"]  # a tool_call picks from all


def test_walk_stops_at_max_pages_and_says_so() -> None:
    stand = Stand([page(["a"], "c")] * 5)
    record: dict[str, Any] = {"index": 0}
    _lists.walk(stand, {"paginate": "tools/list", "label": "l", "max_pages": 3}, 5.0, record)
    assert len(stand.sent) == 3 and record["outcome"] == "max-pages"


def test_walk_ends_on_an_unanswered_page() -> None:
    stand = Stand([page(["a"], "c"), None])
    record: dict[str, Any] = {"index": 0}
    _lists.walk(stand, {"paginate": "tools/list", "label": "l"}, 5.0, record)
    assert len(stand.sent) == 2 and record["outcome"] == "timeout"


def test_walk_ends_on_a_refused_page() -> None:
    stand = Stand([page(["a"], "c"), {"error": {"code": -32602, "message": "bad cursor"}}])
    record: dict[str, Any] = {"index": 0}
    _lists.walk(stand, {"paginate": "tools/list", "label": "l"}, 5.0, record)
    assert len(stand.sent) == 2 and record["outcome"] == "ok"
