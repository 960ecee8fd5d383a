"""Both of our HTTP ends together, as real processes: the scripted client (host end) over
Streamable HTTP or HTTP+SSE to the peer (upstream end) serving it, with no proxy between.

What is asserted is read from the two transcripts: every message is a line with its bytes on
both sides, the HTTP facts are notes (session id, GET stream opened or not), a request of the
peer reaches the client on the GET stream, or is held when there is none; and when the client
is done, nothing it started (the "proxy", the upstream peer it starts first) is left running.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from _revisions import first_after_initialize
from play.test_faults import live_processes_with as _left

from compare.peer.client._http import Out
from compare.play._harness import peer_argv
from compare.play._server_plan import client_argv


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _peer_plan(folder: Path, name: str, transport: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    plan = {
        "revision": "2025-06-18",
        "answer_revision": "2025-06-18",
        "first_modern": first_after_initialize(),
        "control": str(folder / "control"),
        "transcript": f"{name}.jsonl",
        "done": f"{name}.done.json",
        "transport": transport,
        "steps": [
            {"await": "notifications/initialized", "timeout_s": 10, "required": True},
            {"observe_s": 0.5},
            {"request": "roots/list", "timeout_s": 3},
        ],
        "linger_s": 20,
        "hard_deadline_s": 40,
    }
    path = folder / f"{name}-plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


def _play(tmp_path: Path, kind: str, get_stream: bool) -> tuple[list[Any], list[Any], str]:
    port, up_port = _port(), _port()
    path = "/sse" if kind == "sse" else "/mcp"
    server = _peer_plan(tmp_path, "server", {"kind": kind, "port": port, "path": path})
    spare = _peer_plan(tmp_path, "spare", {"kind": "http", "port": up_port, "path": "/mcp"})
    plan = {
        "revision": "2025-06-18",
        "wire_version": "2025-06-18",
        "first_modern": first_after_initialize(),
        "server_argv": peer_argv(server),
        "features": {"roots": {"folders": [{"uri": "file:///tmp/x", "name": "x"}]}},
        "transport": {
            "kind": kind,
            "url": f"http://127.0.0.1:{port}{path}",
            "port": port,
            "get_stream": get_stream,
        },
        "upstream": {
            "kind": "http",
            "argv": peer_argv(spare),
            "port": up_port,
            "stderr": str(tmp_path / "spare.stderr"),
        },
        "steps": [{"request": "tools/list", "timeout_s": 5}, {"observe_s": 2.5}],
        "hard_deadline_s": 40,
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    mark = f"client-http-{secrets.token_hex(6)}"
    env = {**os.environ, "MCP_COMPARE_CLIENT_HTTP_TEST": mark}
    done = subprocess.run(
        client_argv(tmp_path / "plan.json"), env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    host = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    # the peer keeps one record per session (the process's own holds no wire line)
    (session,) = sorted(tmp_path.glob("server-s*.jsonl"))
    up = [json.loads(x) for x in session.read_text().splitlines()]
    return host, up, mark


def _notes(records: list[Any], event: str) -> list[dict[str, Any]]:
    found = [json.loads(r["raw"]) for r in records if r["dir"] == "note"]
    return [n for n in found if n.get("event") == event]


def _wire(records: list[Any], direction: str) -> list[str]:
    return [r["raw"] for r in records if r["dir"] == direction]


@pytest.mark.parametrize("get_stream", [True, False])
def test_streamable_http_both_ends_with_and_without_the_get_stream(
    tmp_path: Path, get_stream: bool
) -> None:
    host, up, mark = _play(tmp_path, "http", get_stream)
    # every message the client sent is a line the peer received, byte for byte, and back
    assert _wire(host, "out")[:2] == _wire(up, "in")[:2]
    assert _wire(up, "out")[0] == _wire(host, "in")[0]
    session = _notes(host, "http-post")[0]["session"]
    assert session and all(n["session"] == session for n in _notes(up, "http-post")[1:])
    got = _notes(host, "get-stream")
    asked = [r for r in host if r["dir"] == "in" and '"roots/list"' in r["raw"]]
    if get_stream:
        assert got[0]["opened"] is True
        assert asked, "the peer's roots/list reaches the client on the GET stream"
        assert any('"roots":[' in x for x in _wire(up, "in"))
    else:
        assert got == [{"event": "get-stream", "opened": False,
                        "why": "the plan says our host opens no GET stream"}]  # fmt: skip
        assert not asked
        assert any(n["to"] == "held" for n in _notes(up, "routed"))
        assert _notes(up, "held-never-delivered")
    assert _notes(host, "upstream-started")[0]["listening"] is True
    assert _notes(host, "upstream-exit")
    deadline = time.monotonic() + 5
    while _left(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _left(mark) == []


def test_legacy_sse_both_ends(tmp_path: Path) -> None:
    host, up, mark = _play(tmp_path, "sse", True)
    assert _notes(host, "sse-endpoint")[0]["endpoint"].startswith("http://127.0.0.1:")
    assert _wire(host, "out")[:2] == _wire(up, "in")[:2]
    assert any('"roots/list"' in x for x in _wire(host, "in"))
    assert any('"roots":[' in x for x in _wire(up, "in"))
    deadline = time.monotonic() + 5
    while _left(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _left(mark) == []


def test_the_client_end_connects_only_to_loopback(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a loopback URL"):
        Out({"kind": "http", "url": "http://192.0.2.1:80/mcp"}, None, 1)  # type: ignore[arg-type]
