"""The peer on its own: fed lines on stdin, its transcript must hold them byte for byte.

The peer runs as a real subprocess (as a client would start it); these tests write to its
stdin and read back ``transcript.jsonl`` and ``done.json``.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _revisions import first_after_initialize

from compare.peer import CELL_ENV
from compare.play._harness import peer_argv

INIT = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}'
)
INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'


def _plan(tmp_path: Path, **extra: Any) -> Path:
    plan = {
        "revision": "2025-06-18",
        "answer_revision": "2025-06-18",
        "first_modern": first_after_initialize(),
        "control": str(tmp_path / "control"),
        "steps": [],
        "linger_s": 0.1,
        "hard_deadline_s": 20,
        **extra,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


def _run(tmp_path: Path, data: bytes, **extra: Any) -> tuple[list[dict[str, Any]], list[str]]:
    plan = _plan(tmp_path, **extra)
    done = subprocess.run(peer_argv(plan), input=data, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    records = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    return records, done.stdout.decode().splitlines()


def _wire(records: list[dict[str, Any]], direction: str) -> list[dict[str, Any]]:
    return [r for r in records if r["dir"] == direction]


def test_lines_are_recorded_exactly_as_read(tmp_path: Path) -> None:
    odd = '{ "jsonrpc" : "2.0",  "method":"notifications/x", "params":{"s":"\\u00e9 é"} }'
    records, _ = _run(tmp_path, f"{INIT}\n{odd}\n".encode())
    assert [r["raw"] for r in _wire(records, "in")] == [INIT, odd]
    assert [r["n"] for r in records] == list(range(1, len(records) + 1))
    times = [r["t"] for r in records]
    assert times == sorted(times)


def test_initialize_is_answered_with_the_plan_revision(tmp_path: Path) -> None:
    _, out = _run(tmp_path, f"{INIT}\n".encode(), answer_revision="2024-11-05")
    reply = json.loads(out[0])
    assert reply["id"] == 0
    assert reply["result"]["protocolVersion"] == "2024-11-05"


def test_parse_errors_are_kept_and_answered(tmp_path: Path) -> None:
    records, out = _run(tmp_path, b"garbage{\n\xff\xfe not utf-8\n")
    inbound = _wire(records, "in")
    assert inbound[0]["raw"] == "garbage{" and "parse_error" in inbound[0]
    assert base64.b64decode(inbound[1]["raw_b64"]) == b"\xff\xfe not utf-8"
    assert "parse_error" in inbound[1]
    assert all(json.loads(x)["error"]["code"] == -32700 for x in out)


def test_a_10_mb_line_is_capped_not_held(tmp_path: Path) -> None:
    big = (
        b'{"jsonrpc":"2.0","method":"notifications/x","params":{"d":"' + b"x" * 10_000_000 + b'"}}'
    )
    records, _ = _run(tmp_path, big + b"\n" + INITIALIZED.encode() + b"\n")
    first, second = _wire(records, "in")
    assert first["truncated"] is True and first["bytes"] == len(big)
    assert len(first["raw"].encode()) == 1 << 20
    assert second["raw"] == INITIALIZED  # reading went on after the huge line


def test_step_waits_are_bounded_and_explained(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        steps=[{"await": "notifications/initialized", "timeout_s": 0.5, "required": True}],
    )
    start = time.monotonic()
    # stdin stays open: the peer must give up on its own bound, not on end of input
    proc = subprocess.Popen(peer_argv(plan), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        proc.wait(timeout=10)
    finally:
        proc.kill()
    assert time.monotonic() - start < 8
    done = json.loads((tmp_path / "done.json").read_text())
    assert "timed out after 0.5 s waiting for notifications/initialized" in done["reason"]


def test_request_step_and_reply_are_paired(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        steps=[
            {"await": "notifications/initialized", "timeout_s": 5},
            {"request": "roots/list", "label": "roots", "timeout_s": 5},
        ],
    )
    proc = subprocess.Popen(peer_argv(plan), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write(f"{INIT}\n{INITIALIZED}\n".encode())
    proc.stdin.flush()
    proc.stdout.readline()  # initialize result
    request = json.loads(proc.stdout.readline())
    assert request["method"] == "roots/list"
    reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"roots": []}}
    proc.stdin.write(json.dumps(reply).encode() + b"\n")
    proc.stdin.flush()
    assert proc.wait(timeout=10) == 0
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["reason"] == "steps complete"
    assert [s["outcome"] for s in done["steps"]] == ["ok", "ok"]


CALL = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"probe","arguments":{}}}'


def test_a_held_reply_waits_for_its_release_step(tmp_path: Path) -> None:
    """hold_replies keeps the tools/call reply back while a request step runs inside it, so
    the server's question precedes the call's answer on the wire; release sends it."""
    plan = _plan(
        tmp_path,
        hold_replies=["tools/call"],
        steps=[
            {"await": "tools/call", "timeout_s": 5},
            {"request": "roots/list", "label": "ask", "timeout_s": 5},
            {"release": "tools/call", "label": "answer-call"},
            {"release": "tools/call", "label": "again"},
        ],
    )
    proc = subprocess.Popen(peer_argv(plan), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write(f"{INIT}\n{INITIALIZED}\n{CALL}\n".encode())
    proc.stdin.flush()
    proc.stdout.readline()  # initialize result
    request = json.loads(proc.stdout.readline())
    assert request["method"] == "roots/list"  # asked before the call was answered
    reply = {"jsonrpc": "2.0", "id": request["id"], "result": {"roots": []}}
    proc.stdin.write(json.dumps(reply).encode() + b"\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == 9 and answer["result"]["content"][0]["text"] == "ok"
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    done = json.loads((tmp_path / "done.json").read_text())
    assert [s["outcome"] for s in done["steps"]] == ["ok", "ok", "ok", "nothing-held"]
    records = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    notes = [json.loads(r["raw"]) for r in records if r["dir"] == "note"]
    assert {"event": "reply-held", "method": "tools/call", "id": 9} in notes


def test_a_reply_still_held_when_the_steps_stop_is_sent(tmp_path: Path) -> None:
    """A required step that times out ends the steps; the held reply is not left unsent."""
    records, out = _run(
        tmp_path,
        f"{INIT}\n{CALL}\n".encode(),
        hold_replies=["tools/call"],
        steps=[{"await": "tools/call", "timeout_s": 2}, {"await": "never", "timeout_s": 0.3,
                                                        "required": True}],
    )  # fmt: skip
    assert [json.loads(x).get("id") for x in out] == [0, 9]
    notes = [json.loads(r["raw"]) for r in records if r["dir"] == "note"]
    assert any(n.get("event") == "reply-released" and n.get("id") == 9 for n in notes)


def test_stdin_closing_ends_the_peer_with_a_reason(tmp_path: Path) -> None:
    _run(tmp_path, f"{INIT}\n".encode(), steps=[{"await": "notifications/initialized"}])
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["reason"].startswith("stdin closed")


def test_discover_is_method_not_found_in_the_initialize_era(tmp_path: Path) -> None:
    line = '{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{}}'
    _, out = _run(tmp_path, f"{line}\n".encode())
    assert json.loads(out[0])["error"]["code"] == -32601


def test_modern_discover_and_input_required(tmp_path: Path) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "probe", "_meta": meta},
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "probe", "_meta": meta, "requestState": "s", "inputResponses": {}},
        },
    ]
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    mrtr = {"key": "k", "request_state": "s", "input_requests": {"k": {"method": "roots/list"}}}
    _, out = _run(tmp_path, data, revision="2026-07-28", mrtr=mrtr)
    discover, first, retry = (json.loads(x)["result"] for x in out)
    assert discover["supportedVersions"] == ["2026-07-28"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {"k": {"method": "roots/list"}}
    assert first["requestState"] == "s"
    assert retry["resultType"] == "complete"


def test_peer_imports_only_the_standard_library(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    argv = [sys.executable, "-X", "importtime", *peer_argv(plan)[1:]]
    done = subprocess.run(argv, input=b"", capture_output=True, text=False, timeout=30)
    assert done.returncode == 0
    imported = {
        line.split("|")[-1].strip().split(".")[0]
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    heavy = {"compare", "pydantic", "typer", "rich", "jsonschema", "ruamel", "typing"}
    assert "json" in imported  # the probe works
    assert imported & heavy == set()


def test_a_malformed_plan_is_a_clean_error(tmp_path: Path) -> None:
    for text in ("[1, 2]", '{"steps": []}', "{not json"):
        plan = tmp_path / "plan.json"
        plan.write_text(text, encoding="utf-8")
        done = subprocess.run(peer_argv(plan), input=b"", capture_output=True, timeout=30)
        assert done.returncode == 2
        assert b"Traceback" not in done.stderr and b"peer: " in done.stderr


def test_a_flood_is_counted_and_the_awaited_line_still_seen(tmp_path: Path) -> None:
    flood = b"".join(b'{"jsonrpc":"2.0","method":"notifications/x"}\n' for _ in range(50_000))
    records, _ = _run(
        tmp_path,
        flood + INITIALIZED.encode() + b"\n",
        steps=[{"await": "notifications/initialized", "timeout_s": 60}],
        max_lines=1000,
    )
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["steps"][0]["outcome"] == "ok"
    # the await still matched a line past the cap: counted, not stored, but seen
    assert len(_wire(records, "in")) + done["dropped_lines"] == 50_001


def _wait_for(path: Path, bound_s: float) -> bool:
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        if path.exists():
            return True
        time.sleep(0.05)
    return path.exists()


def test_sigterm_mid_step_writes_done_and_exits(tmp_path: Path) -> None:
    """A client that stops its server with SIGTERM (Gemini refusing a version) ends the peer
    with done.json saying why, long before the step's own bound."""
    import signal

    plan = _plan(
        tmp_path,
        steps=[{"await": "notifications/initialized", "timeout_s": 60, "required": True}],
        hard_deadline_s=120,
    )
    proc = subprocess.Popen(
        peer_argv(plan), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdin is not None
        proc.stdin.write(f"{INIT}\n".encode())
        proc.stdin.flush()
        # wait until the peer is inside the step (its initialize answer is recorded)
        transcript = tmp_path / "transcript.jsonl"
        end = time.monotonic() + 20
        while time.monotonic() < end and '"out"' not in (
            transcript.read_text() if transcript.exists() else ""
        ):
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)  # generous for a loaded machine; the step bound is 60 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0
    done = json.loads((tmp_path / "done.json").read_text())
    assert "SIGTERM" in done["reason"], done
    notes = [json.loads(r["raw"]) for r in _wire(_records(tmp_path), "note")]
    assert {"event": "signal", "signal": "SIGTERM"} in notes
    assert notes[-1] == {"event": "exit"}


def test_sighup_while_idle_after_steps_still_leaves_done(tmp_path: Path) -> None:
    """A signal in the linger after the steps: done.json (steps complete) is kept as written."""
    import signal

    plan = _plan(tmp_path, steps=[], linger_s=60)
    proc = subprocess.Popen(
        peer_argv(plan), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert _wait_for(tmp_path / "done.json", 20)
        proc.send_signal(signal.SIGHUP)
        code = proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0
    assert json.loads((tmp_path / "done.json").read_text())["reason"] == "steps complete"
    notes = [json.loads(r["raw"]) for r in _wire(_records(tmp_path), "note")]
    assert {"event": "signal", "signal": "SIGHUP"} in notes


def _records(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "transcript.jsonl").read_text()
    return [json.loads(x) for x in text.splitlines()]


def test_the_peer_takes_the_era_boundary_from_the_plan(tmp_path: Path) -> None:
    """A plan whose pins put the boundary later makes a 2026-07-28 request a legacy one: the
    peer refuses server/discover as it would for any revision of the handshake era."""
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    line = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}
    data = (json.dumps(line) + "\n").encode()
    _, later = _run(tmp_path, data, revision="2026-07-28", first_modern="2099-01-01")
    assert json.loads(later[0])["error"]["code"] == -32601
    _, pinned = _run(tmp_path, data, revision="2026-07-28")  # the pins' boundary
    assert json.loads(pinned[0])["result"]["supportedVersions"] == ["2026-07-28"]


def test_a_plan_without_the_era_boundary_is_refused_not_defaulted(tmp_path: Path) -> None:
    """The peer once fell back to a typed boundary for a plan without ``first_modern``, so a
    pin that moved the boundary left a stale copy in the peer. Now it is a clean error."""
    for value in ("absent", 20260728):
        plan = json.loads(_plan(tmp_path).read_text(encoding="utf-8"))
        if value == "absent":
            del plan["first_modern"]
        else:
            plan["first_modern"] = value
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(plan), encoding="utf-8")
        done = subprocess.run(peer_argv(path), input=b"", capture_output=True, timeout=30)
        assert done.returncode == 2 and b"Traceback" not in done.stderr
        assert b"first_modern" in done.stderr


def test_the_peer_also_runs_as_a_module(tmp_path: Path) -> None:
    plan = _plan(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "compare.peer", "--plan", str(plan)],
        input=f"{INIT}\n".encode(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.decode().splitlines()[0])["result"]["protocolVersion"]


def test_the_stray_line_steps_write_what_a_field_server_writes(tmp_path: Path) -> None:
    """A string id, a banner on stdout, log lines on stderr and a long line: what each step
    of client-stdio-lines puts on the wire, and what the peer notes of its start."""
    plan = _plan(
        tmp_path,
        steps=[
            {"await": "notifications/initialized", "timeout_s": 5},
            {"request": "ping", "id": "p-é", "label": "string-id", "timeout_s": 5},
            {"stderr_bytes": 4096, "label": "chatter", "timeout_s": 5},
            {"raw": "banner, not JSON", "label": "banner"},
            {"request": "ping", "pad_bytes": 70000, "label": "long", "timeout_s": 5},
        ],
    )
    proc = subprocess.Popen(
        peer_argv(plan),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, CELL_ENV: "cell-token"},
    )
    assert proc.stdin and proc.stdout and proc.stderr
    proc.stdin.write(f"{INIT}\n{INITIALIZED}\n".encode())
    proc.stdin.flush()
    proc.stdout.readline()  # initialize result
    first = json.loads(proc.stdout.readline())
    assert first["id"] == "p-é"
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": "p-é", "result": {}}).encode() + b"\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"banner, not JSON\n"
    long = proc.stdout.readline()
    assert len(long) > 70000 and json.loads(long)["params"]["_meta"]
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}).encode() + b"\n")
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert len(proc.stderr.read()) >= 4096
    records = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    notes = [json.loads(r["raw"]) for r in records if r["dir"] == "note"]
    start = next(n for n in notes if n["event"] == "start")
    assert start["client_env"] is True and start["cwd"]
    assert next(n for n in notes if n["event"] == "stderr-written")["complete"] is True
    assert any(n["event"] == "raw-written" for n in notes)
    assert not any("banner" in (r["raw"] or "") for r in records if r["dir"] == "out")
    done = json.loads((tmp_path / "done.json").read_text())
    assert [s["outcome"] for s in done["steps"]] == ["ok"] * 5


def test_stderr_nobody_reads_is_reported_blocked(tmp_path: Path) -> None:
    """A client that never reads its server's stderr: the writes wait once the pipe is full,
    and the step says so at its bound instead of hanging the peer."""
    plan = _plan(
        tmp_path,
        steps=[{"stderr_bytes": 1 << 20, "label": "chatter", "timeout_s": 1}],
        linger_s=0.1,
    )
    proc = subprocess.Popen(
        peer_argv(plan), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin
    proc.stdin.close()
    assert proc.wait(timeout=15) == 0
    done = json.loads((tmp_path / "done.json").read_text())
    assert [s["outcome"] for s in done["steps"]] == ["blocked"]
