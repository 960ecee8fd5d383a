"""The rules that read a server's lists and tool results, from crafted transcripts:
server-pages (a list walked by its cursors), server-tool-names, server-list-order,
server-structured, server-structured-text and server-item-fields (the optional members of
listed items), and server-answered's no-value (a request
filled from an earlier answer that held nothing).

Each case writes what the scripted client would have recorded and asserts the outcome the rule
names and that the scenario grades it; between them the cases reach every outcome the rules
name apart from the gates, which tests/judge/test_server_modern_rules.py covers. At 2026-07-28
the capability gate reads the server/discover result, which one case shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_server_modern_rules import LEGACY, MODERN, ServerTape

TOOLS = {"tools": {}, "prompts": {}, "resources": {}}
ADD = {
    "name": "add",
    "inputSchema": {"type": "object"},
    "outputSchema": {
        "type": "object",
        "properties": {"sum": {"type": "number"}},
        "required": ["sum"],
    },
}


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture
def scenarios(shipped_scenarios: dict[str, Scenario]) -> dict[str, Scenario]:
    return shipped_scenarios


def opened(caps: dict[str, Any] = TOOLS, revision: str = LEGACY) -> ServerTape:
    tape = ServerTape()
    if revision == MODERN:
        tape.discover({"result": {"supportedVersions": [MODERN], "capabilities": caps}})
        return tape
    result = {"protocolVersion": revision, "capabilities": caps, "serverInfo": {"name": "s"}}
    tape.step("initialize", -1, {"id": 1, "method": "initialize"}, {"result": result})
    tape.add("out", {"jsonrpc": "2.0", "method": "notifications/initialized"})
    return tape


def graded(
    tmp: Path, scenario: Scenario, check: str, tape: ServerTape, revision: str = LEGACY
) -> tuple[str, str]:
    got = tape.judge(tmp, scenario, revision)["checks"][check]
    grades = next(c for c in scenario.checks if c.id == check).outcomes
    assert got["outcome"] in grades, got
    return str(got["outcome"]), str(grades[got["outcome"]]["verdict"])


def walk(tape: ServerTape, label: str, method: str, pages: list[Any], first_id: int = 2) -> None:
    """A paginate step: the first page under ``label``, the rest as ``label:page-n``; a None
    page is one left unanswered."""
    for n, reply in enumerate(pages, 1):
        name = label if n == 1 else f"{label}:page-{n}"
        params = {} if n == 1 else {"cursor": f"c{n - 1}"}
        sent = {"id": first_id + n - 1, "method": method, "params": params}
        tape.step(name, 0, sent, reply)


def page(names: list[str], cursor: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "tools": [{"name": n, "inputSchema": {"type": "object"}} for n in names]
    }
    if cursor is not None:
        result["nextCursor"] = cursor
    return {"result": result}


@pytest.mark.parametrize(
    ("pages", "outcome", "verdict"),
    [
        ([page(["a", "b"])], "single-page", "not-exercised"),
        ([page(["a"], "c1"), page(["b"])], "paged", "pass"),
        ([page(["a"], "c1"), page(["b"], "c2"), page([])], "paged", "pass"),
        (
            [page(["a"], "c1"), {"error": {"code": -32602, "message": "bad cursor"}}],
            "cursor-refused",
            "non-strict",
        ),
        ([page(["a"], "c1"), page(["b"], "c1")], "cursor-repeated", "non-strict"),
        ([page(["a"], "c1"), page(["a"])], "repeated-items", "informational"),
        ([page(["a"], "c1"), page(["b"], "c2")], "unended", "informational"),
        ([page(["a"], "c1"), None], "no-cursor-answer", "fail"),
        ([{"error": {"code": -32601, "message": "no"}}], "error", "informational"),
    ],
)
def test_server_pages_reads_every_page_of_the_walk(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    pages: list[Any],
    outcome: str,
    verdict: str,
) -> None:
    tape = opened()
    walk(tape, "list-tools", "tools/list", pages)
    assert graded(tmp_path, scenarios["server-pages"], "tools-pages", tape) == (outcome, verdict)


def test_a_server_without_the_capability_is_not_judged_on_its_pages(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = opened({"tools": {}})
    walk(tape, "list-prompts", "prompts/list", [{"error": {"code": -32601, "message": "no"}}])
    got = graded(tmp_path, scenarios["server-pages"], "prompts-pages", tape)
    assert got == ("undeclared", "informational")


@pytest.mark.parametrize(
    ("names", "outcome", "verdict"),
    [
        (["echo", "get_sum.v2", "A-b"], "conforming", "pass"),
        (["echo", "say hello"], "nonconforming", "non-strict"),
        (["x" * 129], "nonconforming", "non-strict"),
        (["echo", "echo"], "duplicated", "non-strict"),
        ([], "no-tools", "not-exercised"),
    ],
)
def test_tool_names_are_read_against_the_recommended_form(
    tmp_path: Path, scenarios: dict[str, Scenario], names: list[str], outcome: str, verdict: str
) -> None:
    tape = opened()
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, page(names))
    tape.step("list-tools-again", 1, {"id": 3, "method": "tools/list"}, page(names))
    got = graded(tmp_path, scenarios["server-tools-twice"], "tool-names", tape)
    assert got == (outcome, verdict)


@pytest.mark.parametrize(
    ("second", "revision", "check", "outcome", "verdict"),
    [
        (["a", "b"], MODERN, "tools-order-2026-07-28", "same-order", "pass"),
        (["b", "a"], MODERN, "tools-order-2026-07-28", "reordered", "non-strict"),
        (["a"], MODERN, "tools-order-2026-07-28", "changed", "informational"),
        (["b", "a"], LEGACY, "tools-order", "reordered", "informational"),
    ],
)
def test_two_listings_are_compared_for_order(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    second: list[str],
    revision: str,
    check: str,
    outcome: str,
    verdict: str,
) -> None:
    tape = opened(revision=revision)
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, page(["a", "b"]))
    tape.step("list-tools-again", 1, {"id": 3, "method": "tools/list"}, page(second))
    got = graded(tmp_path, scenarios["server-tools-twice"], check, tape, revision)
    assert got == (outcome, verdict)


def called(
    tool: dict[str, Any], reply: dict[str, Any] | None, revision: str = LEGACY
) -> ServerTape:
    tape = opened(revision=revision)
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, {"result": {"tools": [tool]}})
    params = {"name": tool["name"], "arguments": {"a": 2, "b": 3}}
    tape.step("call-structured", 1, {"id": 3, "method": "tools/call", "params": params}, reply)
    return tape


def answer(structured: Any = None, text: str | None = None, **more: Any) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}] if text else [], **more}
    if structured is not None:
        result["structuredContent"] = structured
    return {"result": result}


@pytest.mark.parametrize(
    ("tool", "reply", "outcome", "verdict"),
    [
        (ADD, answer({"sum": 5}, '{"sum": 5}'), "conforms", "pass"),
        (ADD, answer({"sum": "five"}), "nonconforming", "fail"),
        (ADD, answer({"total": 5}), "nonconforming", "fail"),
        (ADD, answer(None, "5"), "missing", "fail"),
        (
            {"name": "add", "inputSchema": {"type": "object"}},
            answer(None, "5"),
            "no-schema",
            "not-exercised",
        ),
        (ADD, answer(None, "boom", isError=True), "is-error", "not-exercised"),
        (ADD, {"error": {"code": -32603, "message": "x"}}, "error", "informational"),
        (ADD, None, "silence", "fail"),
    ],
)
def test_structured_content_is_held_to_the_tools_own_output_schema(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    tool: dict[str, Any],
    reply: dict[str, Any] | None,
    outcome: str,
    verdict: str,
) -> None:
    tape = called(tool, reply)
    got = graded(tmp_path, scenarios["server-tool-structured"], "structured-conforms", tape)
    assert got == (outcome, verdict)


@pytest.mark.parametrize(
    ("reply", "outcome", "verdict"),
    [
        (answer({"sum": 5}, '{"sum":5}'), "text-copy", "pass"),
        (answer({"sum": 5}, "the sum is 5"), "no-text-copy", "non-strict"),
        (answer({"sum": 5}), "no-text-copy", "non-strict"),
        (answer(None, "5"), "no-structured", "not-exercised"),
    ],
)
def test_structured_content_is_looked_for_in_the_text_blocks(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    reply: dict[str, Any],
    outcome: str,
    verdict: str,
) -> None:
    tape = called(ADD, reply)
    got = graded(tmp_path, scenarios["server-tool-structured"], "structured-text", tape)
    assert got == (outcome, verdict)


def test_a_call_never_made_reads_no_tool(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    tape = opened()
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, page(["navigate"]))
    tape.note(event="step", index=1, step={"label": "call-structured"})
    tape.note(event="step-done", index=1, label="call-structured", outcome="no-tool")
    got = graded(tmp_path, scenarios["server-tool-structured"], "structured-conforms", tape)
    assert got == ("no-tool", "not-exercised")


def test_the_capability_gate_reads_the_discover_result_at_2026_07_28(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = called(ADD, answer({"sum": 5}, '{"sum": 5}', resultType="complete"), MODERN)
    scenario = scenarios["server-tool-structured"]
    assert graded(tmp_path, scenario, "structured-conforms", tape, MODERN) == ("conforms", "pass")
    bare = opened({}, MODERN)
    bare.step("list-tools", 0, {"id": 2, "method": "tools/list"}, page([]))
    got = graded(tmp_path, scenario, "structured-conforms", bare, MODERN)
    assert got == ("undeclared", "informational")


def test_a_request_with_nothing_to_fill_it_reads_no_value(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = opened()
    prompts = {"result": {"prompts": [{"name": "plain"}]}}
    tape.step("list-prompts", 0, {"id": 2, "method": "prompts/list"}, prompts)
    tape.note(event="step", index=1, step={"label": "get-without-arguments"})
    tape.note(event="step-done", index=1, label="get-without-arguments", outcome="no-value")
    got = graded(tmp_path, scenarios["server-prompt-arguments"], "missing-arguments", tape)
    assert got == ("no-value", "not-exercised")


def tools_page(tools: list[dict[str, Any]], cursor: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"tools": [{"inputSchema": {"type": "object"}, **t} for t in tools]}
    if cursor is not None:
        result["nextCursor"] = cursor
    return {"result": result}


@pytest.mark.parametrize(
    ("check", "pages", "outcome", "shown"),
    [
        ("tools-title", [tools_page([{"name": "a", "title": "A"}])], "every", "a: \"A\""),
        (
            "tools-title",
            [tools_page([{"name": "a", "title": "A"}], "c1"), tools_page([{"name": "b"}])],
            "some",
            "1 of 2 tools",
        ),
        ("tools-icons", [tools_page([{"name": "a"}, {"name": "b"}])], "none", "none of 2"),
        ("tools-title", [tools_page([])], "no-items", "no tools"),
        (
            "tools-execution",
            [tools_page([{"name": "a", "execution": {"taskSupport": "optional"}},
                         {"name": "b", "execution": {}}])],
            "some",
            "a: \"optional\"",
        ),
        (
            "tools-title",
            [{"error": {"code": -32603, "message": "boom"}}],
            "error",
            "boom",
        ),
    ],
)  # fmt: skip
def test_the_members_of_listed_items_are_recorded_across_every_page(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    check: str,
    pages: list[Any],
    outcome: str,
    shown: str,
) -> None:
    tape = opened()
    walk(tape, "list-tools", "tools/list", pages)
    got = tape.judge(tmp_path, scenarios["server-list-members"], LEGACY)["checks"][check]
    assert (got["outcome"], got["verdict"]) == (outcome, "informational"), got
    assert shown in got["observed"], got


def test_a_member_of_a_listed_items_list_is_read_in_each_of_its_members(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    """A prompt's arguments are a list: an argument title anywhere in it counts."""
    tape = opened()
    prompts = [
        {"name": "greet", "arguments": [{"name": "who"}, {"name": "how", "title": "How"}]},
        {"name": "plain", "arguments": [{"name": "x"}]},
        {"name": "bare"},
    ]
    walk(tape, "list-prompts", "prompts/list", [{"result": {"prompts": prompts}}])
    got = tape.judge(tmp_path, scenarios["server-list-members"], LEGACY)["checks"]
    assert got["prompts-argument-title"]["outcome"] == "some"
    assert "1 of 3 prompts" in got["prompts-argument-title"]["observed"]
    assert got["prompts-title"]["outcome"] == "none"


def test_a_server_without_the_capability_has_nothing_listed_to_read(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = opened({"tools": {}})
    walk(tape, "list-resources", "resources/list", [{"result": {"resources": []}}])
    got = graded(tmp_path, scenarios["server-list-members"], "resources-title", tape)
    assert got == ("undeclared", "informational")


COMPLETING = {"tools": {}, "prompts": {}, "completions": {}}


def completion(values: int, **more: Any) -> dict[str, Any]:
    return {"result": {"completion": {"values": [f"v{i}" for i in range(values)], **more}}}


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        (completion(3), "bounded"),
        (completion(3, total=10, hasMore=True), "bounded"),
        (completion(0, total=0, hasMore=False), "bounded"),
        (completion(101), "over-100"),
        (completion(5, total=2), "total-below"),
        (completion(3, total=10), "more-unsaid"),
        (completion(3, total=10, hasMore=False), "more-unsaid"),
        ({"error": {"code": -32602, "message": "no"}}, "error"),
        (None, "silence"),
    ],
)
def test_completion_values_are_read_against_the_bound_total_and_has_more(
    tmp_path: Path, scenarios: dict[str, Scenario], reply: Any, outcome: str
) -> None:
    tape = opened(COMPLETING)
    prompts = {"result": {"prompts": [{"name": "greet", "arguments": [{"name": "who"}]}]}}
    tape.step("list-prompts", 0, {"id": 2, "method": "prompts/list"}, prompts)
    sent = {"id": 3, "method": "completion/complete", "params": {}}
    tape.step("complete", 1, sent, reply)
    got = graded(tmp_path, scenarios["server-completion-values"], "values", tape)
    assert got[0] == outcome


def test_completion_values_without_a_prompt_to_complete_are_not_exercised(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = opened(COMPLETING)
    tape.step("list-prompts", 0, {"id": 2, "method": "prompts/list"}, {"result": {"prompts": []}})
    tape.note(event="step", index=1, step={"label": "complete"})
    tape.note(event="step-done", index=1, label="complete", outcome="no-value")
    got = graded(tmp_path, scenarios["server-completion-values"], "values", tape)
    assert got == ("no-value", "not-exercised")
    # a server that did not declare completions is not read at all
    tape = opened()
    got = graded(tmp_path, scenarios["server-completion-values"], "values", tape)
    assert got == ("undeclared", "informational")


LINK = {"type": "resource_link", "uri": "x:1", "name": "a"}


@pytest.mark.parametrize(
    ("content", "outcome"),
    [
        ([LINK], "every"),
        ([{"type": "text", "text": "t"}, LINK], "some"),
        ([{"type": "text", "text": "t"}], "none"),
        ([], "no-items"),
    ],
)  # fmt: skip
def test_a_tool_results_blocks_are_counted_by_their_type(
    tmp_path: Path, scenarios: dict[str, Scenario], content: list[Any], outcome: str
) -> None:
    tape = opened()
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, tools_page([{"name": "x"}]))
    sent = {"id": 3, "method": "tools/call", "params": {"name": "get-resource-links"}}
    tape.step("call-links", 1, sent, {"result": {"content": content}})
    got = graded(tmp_path, scenarios["server-tool-content"], "resource-links", tape)
    assert got == (outcome, "informational")


def test_a_tool_the_server_does_not_list_is_not_exercised(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = opened()
    tape.step("list-tools", 0, {"id": 2, "method": "tools/list"}, tools_page([{"name": "x"}]))
    tape.note(event="step", index=1, step={"label": "call-image"})
    tape.note(event="step-done", index=1, label="call-image", outcome="no-tool")
    got = graded(tmp_path, scenarios["server-tool-content"], "image", tape)
    assert got == ("no-tool", "not-exercised")


@pytest.mark.parametrize(
    ("resources", "reply", "outcome"),
    [
        ({"subscribe": True}, {"result": {}}, ("result", "pass")),
        ({"subscribe": True}, {"error": {"code": -1, "message": "no"}}, ("error", "informational")),
        ({"subscribe": True}, None, ("silence", "fail")),
        ({"listChanged": True}, {"result": {}}, ("undeclared", "informational")),
        ({"subscribe": False}, {"result": {}}, ("undeclared", "informational")),
    ],
)  # fmt: skip
def test_a_subscription_is_judged_only_where_the_capability_sets_subscribe(
    tmp_path: Path,
    scenarios: dict[str, Scenario],
    resources: dict[str, Any],
    reply: Any,
    outcome: tuple[str, str],
) -> None:
    tape = opened({"resources": resources})
    listed = {"result": {"resources": [{"uri": "x:/a", "name": "a"}]}}
    tape.step("list-resources", 0, {"id": 2, "method": "resources/list"}, listed)
    sent = {"id": 3, "method": "resources/subscribe", "params": {"uri": "x:/a"}}
    tape.step("subscribe", 1, sent, reply)
    assert graded(tmp_path, scenarios["server-resource-subscribe"], "subscribe", tape) == outcome
