"""server-cache-hints from crafted transcripts: the ttlMs and cacheScope a 2026-07-28 server
puts on each page of its cacheable answers, and one scope across the pages of a list.

Each case writes what the scripted client records (the discovery probe, the walks, the read)
and asserts the outcome the rule names and the grade server-cache-hints gives it; between them
the cases reach every outcome the rule names apart from the gates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import Scenario

from .test_server_lists_rules import walk
from .test_server_modern_rules import MODERN, ServerTape

CAPS = {"tools": {}, "prompts": {}, "resources": {}}
PUBLIC = {"ttlMs": 0, "cacheScope": "public"}
ONE_PAGE = ("one-page", "not-exercised")


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture
def scenario(shipped_scenarios: dict[str, Scenario]) -> Scenario:
    return shipped_scenarios["server-cache-hints"]


def discovered(hints: dict[str, Any] | None = None, caps: dict[str, Any] = CAPS) -> ServerTape:
    tape = ServerTape()
    result = {"supportedVersions": [MODERN], "capabilities": caps, "resultType": "complete"}
    tape.discover({"result": {**result, **(PUBLIC if hints is None else hints)}})
    return tape


def tools_page(name: str, hints: dict[str, Any], cursor: str | None = None) -> dict[str, Any]:
    result: dict[str, Any] = {"tools": [{"name": name, "inputSchema": {"type": "object"}}]}
    if cursor is not None:
        result["nextCursor"] = cursor
    return {"result": {"resultType": "complete", **result, **hints}}


def checks(tmp: Path, scenario: Scenario, tape: ServerTape) -> dict[str, dict[str, Any]]:
    got: dict[str, dict[str, Any]] = tape.judge(tmp, scenario, MODERN)["checks"]
    for cid, check in got.items():
        spec = next((c for c in scenario.checks if c.id == cid), None)
        if spec is not None:
            assert check["outcome"] in spec.outcomes, check
    return got


@pytest.mark.parametrize(
    ("pages", "hints", "scope"),
    [
        ([PUBLIC], ("hinted", "pass"), ONE_PAGE),
        ([PUBLIC, {"ttlMs": 60000, "cacheScope": "public"}], ("hinted", "pass"),
         ("hinted", "pass")),
        ([PUBLIC, {"ttlMs": 0, "cacheScope": "private"}], ("scope-varies", "fail"),
         ("scope-varies", "fail")),
        ([PUBLIC, {"ttlMs": 0}], ("missing", "fail"), ("missing", "informational")),
        ([{"cacheScope": "public"}], ("missing", "fail"), ONE_PAGE),
        ([{"ttlMs": -1, "cacheScope": "public"}], ("bad-ttl", "fail"), ONE_PAGE),
        ([PUBLIC, {"ttlMs": 1.5, "cacheScope": "public"}], ("bad-ttl", "fail"),
         ("bad-ttl", "informational")),
        ([{"ttlMs": True, "cacheScope": "public"}], ("bad-ttl", "fail"), ONE_PAGE),
        ([PUBLIC, {"ttlMs": 0, "cacheScope": "shared"}], ("bad-scope", "fail"),
         ("bad-scope", "informational")),
    ],
)  # fmt: skip
def test_each_page_of_a_walk_is_read_for_its_hints_and_its_scope(
    tmp_path: Path,
    scenario: Scenario,
    pages: list[dict[str, Any]],
    hints: tuple[str, str],
    scope: tuple[str, str],
) -> None:
    tape = discovered()
    names = [f"t{n}" for n in range(len(pages))]
    replies = [
        tools_page(name, page, f"c{n + 1}" if n + 1 < len(pages) else None)
        for n, (name, page) in enumerate(zip(names, pages, strict=True))
    ]
    walk(tape, "list-tools", "tools/list", replies)
    got = checks(tmp_path, scenario, tape)
    assert (got["tools-hints"]["outcome"], got["tools-hints"]["verdict"]) == hints
    assert (got["tools-scope-pages"]["outcome"], got["tools-scope-pages"]["verdict"]) == scope
    assert (got["discover-hints"]["outcome"], got["discover-hints"]["verdict"]) == (
        "hinted",
        "pass",
    )


def test_the_values_and_the_page_that_lacks_them_are_named(
    tmp_path: Path, scenario: Scenario
) -> None:
    tape = discovered()
    walk(tape, "list-tools", "tools/list", [tools_page("a", PUBLIC, "c1"), tools_page("b", {})])
    got = checks(tmp_path, scenario, tape)
    assert got["tools-hints"]["observed"] == "page 2 of 2: no ttlMs and no cacheScope"
    tape = discovered({"ttlMs": 300000, "cacheScope": "private"})
    got = checks(tmp_path, scenario, tape)
    assert got["discover-hints"]["observed"] == "one page: ttlMs 300000 private"


def test_a_discovery_result_without_hints_fails_and_its_lists_are_still_read(
    tmp_path: Path, scenario: Scenario
) -> None:
    tape = discovered({})
    walk(tape, "list-prompts", "prompts/list", [{"result": {"prompts": [], **PUBLIC}}])
    got = checks(tmp_path, scenario, tape)
    assert (got["discover-hints"]["outcome"], got["discover-hints"]["verdict"]) == (
        "missing",
        "fail",
    )
    assert got["prompts-hints"]["outcome"] == "hinted"


def test_a_read_is_judged_only_when_a_resource_was_listed_to_read(
    tmp_path: Path, scenario: Scenario
) -> None:
    tape = discovered()
    tape.note(event="step", index=4, step={"label": "read"})
    tape.note(event="step-done", index=4, label="read", outcome="no-value")
    got = checks(tmp_path, scenario, tape)
    assert (got["read-hints"]["outcome"], got["read-hints"]["verdict"]) == (
        "no-value",
        "not-exercised",
    )
    tape = discovered()
    sent = {"id": 3, "method": "resources/read", "params": {"uri": "file:///a"}}
    contents = {"contents": [{"uri": "file:///a", "text": "a"}], "resultType": "complete"}
    tape.step("read", 4, sent, {"result": {**contents, "ttlMs": 5, "cacheScope": "private"}})
    assert checks(tmp_path, scenario, tape)["read-hints"]["outcome"] == "hinted"


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [({"error": {"code": -32603, "message": "no"}}, "error"), (None, "silence")],
)
def test_an_unanswered_list_is_left_to_the_checks_that_grade_it(
    tmp_path: Path, scenario: Scenario, reply: dict[str, Any] | None, outcome: str
) -> None:
    tape = discovered()
    walk(tape, "list-resources", "resources/list", [reply])
    got = checks(tmp_path, scenario, tape)
    assert (got["resources-hints"]["outcome"], got["resources-hints"]["verdict"]) == (
        outcome,
        "informational",
    )


def test_a_list_the_server_did_not_declare_is_not_read(tmp_path: Path, scenario: Scenario) -> None:
    tape = discovered(caps={"tools": {}})
    got = checks(tmp_path, scenario, tape)
    assert got["prompts-hints"]["outcome"] == "undeclared"
    assert got["templates-scope-pages"]["outcome"] == "undeclared"
