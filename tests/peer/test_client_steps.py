"""The scripted client's steps of issue 40, played by the real client against a stand-in.

``wait: false`` leaves a request open (outcome ``sent``), a ``cancel`` step sends
notifications/cancelled for the request of an earlier step (its id, the step's reason, or no
id at all with ``omit_id``), a ``raw`` step writes its line byte for byte and records it with
the fault mark, and a step's ``meta`` lands in ``params._meta`` before 2026-07-28. The
stand-in server (written below, standard library only) answers the handshake, tools/list and
ping, never a tools/call, and keeps every line it read, so what reached it is checked as it
arrived, not as the client says it sent it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.models import first_modern
from compare.peer.client._play import _with_step_meta
from compare.play._server_plan import client_argv

LEGACY = "2025-11-25"
STAND_IN = """\
import json, sys

log = open(sys.argv[1], "ab")
for line in sys.stdin.buffer:
    log.write(line)
    log.flush()
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if not isinstance(msg, dict):
        continue
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "s", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "slow", "inputSchema": {"type": "object"}}]}
    elif method == "ping":
        result = {}
    else:
        continue  # a tools/call stays pending: there is something to cancel
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\\n")
    sys.stdout.flush()
"""
#: A raw line with spaces, a key order and a character a re-serialized one would change.
ODD = '{ "id": "mcp-compare-b1",  "jsonrpc": "2.0", "method": 7, "note": "é" }'
BROKEN = '{"jsonrpc":"2.0","id":'
REASON = "mcp-compare: the caller no longer needs the answer"


def play(tmp: Path, steps: list[dict[str, Any]], revision: str = LEGACY) -> dict[str, Any]:
    """Run the scripted client on ``steps`` against the stand-in: its step log (done.json),
    its transcript records, and the lines the stand-in read (bytes, newline kept)."""
    server = tmp / "stand_in.py"
    server.write_text(STAND_IN, encoding="utf-8")
    received = tmp / "received.bin"
    plan = {
        "revision": revision,
        "first_modern": first_modern(revisions()),
        "server_argv": [sys.executable, str(server), str(received)],
        "steps": steps,
        "step_timeout_s": 5,
        "init_timeout_s": 10,
        "shutdown_s": 2,
        "hard_deadline_s": 60,
    }
    path = tmp / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    done = subprocess.run(client_argv(path), capture_output=True, timeout=90)
    assert done.returncode == 0, done.stderr
    records = [json.loads(x) for x in (tmp / "transcript.jsonl").read_text("utf-8").splitlines()]
    return {
        "done": json.loads((tmp / "done.json").read_text("utf-8")),
        "records": records,
        "received": received.read_bytes().splitlines(keepends=True),
    }


def by_label(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(r["step"].get("label")): r for r in run["done"]["steps"]}


def received(run: dict[str, Any], method: str) -> list[dict[str, Any]]:
    """The messages of ``method`` the stand-in read, parsed."""
    out = []
    for line in run["received"]:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if isinstance(msg, dict) and msg.get("method") == method:
            out.append(msg)
    return out


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run holding every step under test (one client start for the module)."""
    steps = [
        {"request": "tools/list", "label": "list-tools", "timeout_s": 5},
        {
            "tool_call": [{"name": "slow", "arguments": {}}],
            "only_listed": True,
            "meta": {"progressToken": "mcp-compare-cancel-1"},
            "wait": False,
            "label": "long-call",
        },
        {"cancel": "long-call", "reason": REASON, "label": "cancel"},
        {"cancel": "long-call", "omit_id": True, "label": "cancel-bare"},
        {"cancel": "never-sent", "label": "cancel-nothing"},
        {"raw": ODD, "label": "odd"},
        {"raw": BROKEN, "label": "broken"},
        {
            "request": "ping",
            "label": "still-there",
            "timeout_s": 5,
            "meta": {"progressToken": 7, "com.example/left-out": None},
        },
    ]
    return play(tmp_path_factory.mktemp("steps"), steps)


def test_the_run_ends_with_its_steps(played: dict[str, Any]) -> None:
    assert played["done"]["reason"] == "steps complete"
    assert by_label(played)["still-there"]["outcome"] == "ok"


def test_a_request_left_open_is_sent_and_not_waited_for(played: dict[str, Any]) -> None:
    step = by_label(played)["long-call"]
    assert step["outcome"] == "sent" and isinstance(step["id"], int)
    [call] = received(played, "tools/call")
    assert call["id"] == step["id"]
    assert call["params"]["_meta"] == {"progressToken": "mcp-compare-cancel-1"}


def test_a_cancel_names_the_earlier_request_and_gives_the_reason(played: dict[str, Any]) -> None:
    steps = by_label(played)
    rid = steps["long-call"]["id"]
    assert steps["cancel"]["outcome"] == "ok" and steps["cancel"]["cancels"] == rid
    first, _ = received(played, "notifications/cancelled")
    assert first == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": rid, "reason": REASON},
    }
    # the step's evidence is the line it wrote
    line = next(r for r in played["records"] if r["n"] == steps["cancel"]["evidence"])
    assert line["dir"] == "out" and json.loads(line["raw"]) == first


def test_omit_id_leaves_the_request_id_out(played: dict[str, Any]) -> None:
    _, bare = received(played, "notifications/cancelled")
    assert bare["params"] == {}
    assert by_label(played)["cancel-bare"]["outcome"] == "ok"


def test_a_cancel_of_a_label_that_sent_nothing_reads_no_request(played: dict[str, Any]) -> None:
    step = by_label(played)["cancel-nothing"]
    assert step["outcome"] == "no-request" and step["evidence"] is None
    assert len(received(played, "notifications/cancelled")) == 2  # nothing written for it


def test_a_raw_line_reaches_the_server_byte_for_byte(played: dict[str, Any]) -> None:
    assert (ODD + "\n").encode("utf-8") in played["received"]
    assert (BROKEN + "\n").encode("utf-8") in played["received"]


def test_a_raw_line_is_recorded_as_ours_with_the_fault_mark(played: dict[str, Any]) -> None:
    steps = by_label(played)
    for label, text, rid in (("odd", ODD, "mcp-compare-b1"), ("broken", BROKEN, None)):
        step = steps[label]
        assert step["outcome"] == "ok" and step["id"] == rid, step
        line = next(r for r in played["records"] if r["n"] == step["evidence"])
        assert line["dir"] == "out" and line["raw"] == text and line["fault"] is True
    # nothing else of ours carries the mark
    marked = [r for r in played["records"] if r.get("fault")]
    assert [r["raw"] for r in marked] == [ODD, BROKEN]


def test_meta_lands_in_params_meta_before_2026_07_28(played: dict[str, Any]) -> None:
    """A null leaves its key out; a request without meta carries no _meta at all (no
    handshake-era request has one of its own)."""
    [ping] = received(played, "ping")
    assert ping["params"] == {"_meta": {"progressToken": 7}}
    [listed] = received(played, "tools/list")
    assert "params" not in listed or "_meta" not in listed["params"]
    [init] = received(played, "initialize")
    assert "_meta" not in init["params"]


def test_step_meta_merges_over_the_params_own_meta() -> None:
    params = {"name": "t", "_meta": {"a": 1, "b": 2}}
    assert _with_step_meta(params, {"b": None, "c": 3}) == {"name": "t", "_meta": {"a": 1, "c": 3}}
    assert params == {"name": "t", "_meta": {"a": 1, "b": 2}}  # the step's own is left alone
    assert _with_step_meta(None, {"progressToken": "x"}) == {"_meta": {"progressToken": "x"}}
    assert _with_step_meta({"name": "t"}, {"gone": None}) == {"name": "t"}


def test_a_null_that_empties_the_meta_leaves_it_out() -> None:
    assert _with_step_meta({"name": "t", "_meta": {"a": 1}}, {"a": None}) == {"name": "t"}
