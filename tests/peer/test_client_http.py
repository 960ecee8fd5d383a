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


#: The session's steps of the plain plays (the http steps' test gives its own).
STEPS: list[dict[str, Any]] = [{"request": "tools/list", "timeout_s": 5}, {"observe_s": 2.5}]


def _play(
    tmp_path: Path, kind: str, get_stream: bool, steps: list[dict[str, Any]] = STEPS
) -> tuple[list[Any], list[Any], str]:
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
        "steps": steps,
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


def _ping(rid: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "ping"}


def test_http_steps_send_what_they_say_and_note_the_answers(tmp_path: Path) -> None:
    """The mechanism of the ``http`` step, against our own peer over Streamable HTTP: each
    probe goes out changed as its step says (and only so), its answer is a note, the
    messages of a 2xx body are lines from the server, and a probe whose precondition does not
    hold is not sent. What a real server answers is the matrix's to measure."""
    steps = [
        {"http": {"method": "GET"}, "label": "get", "timeout_s": 3},
        {"http": {"message": _ping("p-origin"), "origin": "http://x.example"}, "label": "origin"},
        {"http": {"message": _ping("p-version"), "version": "1999-01-01"}, "label": "version"},
        {"http": {"message": _ping("p-none"), "session": "none"}, "label": "none"},
        {"http": {"message": _ping("p-made"), "session": "made-up"}, "label": "made-up"},
        {"http": {"message": _ping("p-early"), "session": "ended"}, "label": "early"},
        {"http": {"method": "DELETE"}, "label": "delete"},
        {"http": {"message": _ping("p-ended"), "session": "ended"}, "label": "ended"},
    ]
    host, _up, _mark = _play(tmp_path, "http", False, steps)
    probes = {n["label"]: n for n in _notes(host, "http-probe")}
    assert set(probes) == {s["label"] for s in steps}
    session = _notes(host, "http-post")[0]["session"]
    sent = {label: note.get("sent") or {} for label, note in probes.items()}
    assert sent["get"]["Accept"] == "text/event-stream"
    assert sent["origin"]["Origin"] == "http://x.example"
    assert sent["origin"]["Mcp-Session-Id"] == session
    assert sent["version"]["MCP-Protocol-Version"] == "1999-01-01"
    assert "Mcp-Session-Id" not in sent["none"]
    assert sent["made-up"]["Mcp-Session-Id"] not in (session, None)
    # no DELETE had ended the session yet: not sent, and says why
    assert probes["early"]["ran"] is False and "DELETE" in probes["early"]["why"]
    assert all(isinstance(probes[x].get("status"), int) for x in ("get", "origin", "delete"))
    if 200 <= probes["delete"]["status"] < 300:
        assert sent["ended"]["Mcp-Session-Id"] == session
    else:
        assert probes["ended"]["ran"] is False
    # the probes' own requests are lines we sent; a 2xx answer's messages are lines we got
    outgoing = _wire(host, "out")
    assert any('"p-origin"' in line for line in outgoing)
    if 200 <= probes["origin"]["status"] < 300:
        assert any('"p-origin"' in line for line in _wire(host, "in"))
    listening = _notes(host, "proxy-listening")[0]
    assert listening["bound"] == ["127.0.0.1"] and listening["asked"] is None


def test_listening_addresses_reads_the_kernels_table() -> None:
    from compare.peer.client._http import listening_addresses

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
        assert listening_addresses(port) == []  # bound, not yet listening
        sock.listen(1)
        assert listening_addresses(port) == ["127.0.0.1"]


@pytest.mark.parametrize("ctype", ["text/event-stream", "application/json"])
def test_a_probe_answer_whose_body_stays_silent_keeps_its_status(
    tmp_path: Path, ctype: str
) -> None:
    """Fault injection: a server that answers 200 and then sends no body, never closing the
    connection. The probe is bounded by its step and still reports the status."""
    import http.server
    import queue
    import threading

    from compare.peer._record import Transcript

    class Silent(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", "100")
            self.end_headers()
            self.wfile.flush()
            time.sleep(5)

        def log_message(self, *_args: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Silent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        tx = Transcript(str(tmp_path / "t.jsonl"), 100, 1 << 20)
        out = Out({"kind": "http", "url": f"http://127.0.0.1:{port}/mcp"}, tx, 1 << 20)
        out.inbox = queue.Queue()
        started = time.monotonic()
        got = out.exchange("POST", {"Accept": ctype}, b"{}", 1.0, read_body=True)
        assert got["status"] == 200 and "error" not in got
        if ctype == "application/json":
            assert "timed out" in got["body_cut"]
        assert time.monotonic() - started < 4
    finally:
        server.shutdown()


def test_a_server_already_running_is_played_where_it_listens_and_left_running(
    tmp_path: Path,
) -> None:
    """``check --server URL``: the scripted client starts nothing and ends nothing. Our own
    peer stands in for the user's server here (the mechanism); it is started by the test,
    talked to at its URL, and still running when the client is done."""
    port = _port()
    server = _peer_plan(tmp_path, "server", {"kind": "http", "port": port, "path": "/mcp"})
    running = subprocess.Popen(peer_argv(server), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        plan = {
            "revision": "2025-06-18",
            "wire_version": "2025-06-18",
            "first_modern": first_after_initialize(),
            "server_argv": [],
            "transport": {
                "kind": "http",
                "url": f"http://127.0.0.1:{port}/mcp",
                "port": port,
                "get_stream": False,
                "external": True,
            },
            "steps": STEPS,
            "hard_deadline_s": 40,
        }
        (tmp_path / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
        done = subprocess.run(client_argv(tmp_path / "plan.json"), capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        host = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
        assert _notes(host, "server-external") and not _notes(host, "server-started")
        listening = _notes(host, "proxy-listening")[0]
        assert listening["external"] is True and listening["bound"] == ["127.0.0.1"]
        assert any('"tools"' in line for line in _wire(host, "in"))  # the session was played
        assert not _notes(host, "server-exit")  # nothing ended it
        assert running.poll() is None
    finally:
        running.terminate()
        running.wait(10)
