"""What the peer serves from a plan's ``serves`` (compare/peer/_catalogue.py), through the peer
process as a client meets it: lists in pages with cursors of ours, each cursor honoured once
handed out and any other refused with -32602; tool results, errors and unknown tools; reads,
prompts and completions; and a kind of thing nothing is served of answered as by a server
without the feature, as before the catalogue existed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .test_peer import INIT, INITIALIZED, _run, _wire

TOOLS = [
    {"name": n, "inputSchema": {"type": "object"}, "answer": {"content": [], "isError": True}}
    for n in ("a", "b", "c")
]
SERVES = {
    "page_size": 2,
    "tools": TOOLS,
    "resources": [{"uri": "x:/1", "name": "one", "contents": [{"uri": "x:/1", "text": "1"}]}],
    "prompts": [
        {"name": "p", "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}
    ],
    "completion": {"values": ["alpha"], "hasMore": False},
}


def ask(tmp_path: Path, requests: list[dict[str, Any]], **plan: Any) -> dict[int, dict[str, Any]]:
    lines = [INIT, INITIALIZED] + [
        json.dumps({"jsonrpc": "2.0", "id": 10 + i, **r}) for i, r in enumerate(requests)
    ]
    records, _ = _run(tmp_path, ("\n".join(lines) + "\n").encode(), **plan)
    answers = [json.loads(r["raw"]) for r in _wire(records, "out")]
    return {a["id"] - 10: a for a in answers if isinstance(a.get("id"), int) and a["id"] >= 10}


def test_lists_come_in_pages_and_only_our_cursors_are_taken(tmp_path: Path) -> None:
    first = ask(tmp_path, [{"method": "tools/list"}], serves=SERVES)[0]["result"]
    assert [t["name"] for t in first["tools"]] == ["a", "b"]
    assert "answer" not in first["tools"][0]  # how to answer is ours, never listed
    cursor = first["nextCursor"]
    assert all(c in cursor for c in "+/=")
    got = ask(
        tmp_path,
        [
            {"method": "tools/list"},
            {"method": "tools/list", "params": {"cursor": cursor}},
            {"method": "tools/list", "params": {"cursor": cursor.replace("+", "%2B")}},
            {"method": "prompts/list", "params": {"cursor": cursor}},
        ],
        serves=SERVES,
    )
    last = got[1]["result"]
    assert [t["name"] for t in last["tools"]] == ["c"] and "nextCursor" not in last
    assert got[2]["error"]["code"] == -32602  # re-encoded: not a cursor we wrote
    assert got[3]["error"]["code"] == -32602  # a tools cursor is not a prompts cursor


def test_calls_reads_prompts_and_completions_answer_from_the_data(tmp_path: Path) -> None:
    got = ask(
        tmp_path,
        [
            {"method": "tools/call", "params": {"name": "a", "arguments": {}}},
            {"method": "tools/call", "params": {"name": "nope", "arguments": {}}},
            {"method": "resources/read", "params": {"uri": "x:/1"}},
            {"method": "resources/read", "params": {"uri": "x:/2"}},
            {"method": "prompts/get", "params": {"name": "p"}},
            {
                "method": "completion/complete",
                "params": {"ref": {"type": "ref/prompt", "name": "p"}},
            },
        ],
        serves=SERVES,
    )
    assert got[0]["result"] == {"content": [], "isError": True}
    assert got[1]["error"]["code"] == -32602
    assert got[2]["result"]["contents"] == [{"uri": "x:/1", "text": "1"}]
    assert got[3]["error"]["code"] == -32602
    assert got[4]["result"]["messages"][0]["content"]["text"] == "hi"
    assert got[5]["result"]["completion"]["values"] == ["alpha"]


def test_a_tool_can_answer_with_a_json_rpc_error(tmp_path: Path) -> None:
    serves = {
        "tools": [
            {"name": "t", "inputSchema": {}, "answer": {"error": {"code": -32000, "message": "x"}}}
        ]
    }
    got = ask(tmp_path, [{"method": "tools/call", "params": {"name": "t"}}], serves=serves)
    assert got[0]["error"] == {"code": -32000, "message": "x"}


def test_without_serves_the_peer_answers_as_it_always_did(tmp_path: Path) -> None:
    probe = [{"name": "probe", "inputSchema": {"type": "object"}}]
    got = ask(
        tmp_path,
        [
            {"method": "tools/list"},
            {"method": "tools/call", "params": {"name": "probe", "arguments": {}}},
            {"method": "resources/list"},
            {"method": "resources/read", "params": {"uri": "x:/1"}},
            {"method": "prompts/get", "params": {"name": "p"}},
            {"method": "completion/complete", "params": {}},
        ],
        tools=probe,
    )
    assert got[0]["result"] == {"tools": probe}
    assert got[1]["result"]["content"] == [{"type": "text", "text": "ok"}]
    assert got[2]["result"] == {"resources": []}
    assert [got[i]["error"]["code"] for i in (3, 4, 5)] == [-32601, -32601, -32601]


def test_the_first_cursor_can_be_the_empty_string(tmp_path: Path) -> None:
    serves = {**SERVES, "empty_first_cursor": True, "page_size": 1}
    got = ask(
        tmp_path,
        [
            {"method": "tools/list"},
            {"method": "tools/list", "params": {"cursor": ""}},
        ],
        serves=serves,
    )
    assert got[0]["result"]["nextCursor"] == ""
    assert [t["name"] for t in got[1]["result"]["tools"]] == ["b"]
    assert got[1]["result"]["nextCursor"].endswith("+/=")
