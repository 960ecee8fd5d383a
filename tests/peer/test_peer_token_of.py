"""The peer's ``notify`` step with ``token_of``: progress under the token the other end chose.

A proxy's upstream cannot know in advance which progressToken the proxy will put on the call
it forwards (the host's, or one of its own), so the step reads it from the request received.
The peer runs as a real subprocess, fed on stdin, as in ``test_peer.py``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from _revisions import first_after_initialize

from compare.play._harness import peer_argv

INIT = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)
STEPS = [
    {"await": "tools/call", "timeout_s": 5},
    {"notify": "notifications/progress", "token_of": "tools/call", "label": "progress",
     "params": {"progress": 1, "total": 2, "progressToken": "not-this-one"}},
    {"release": "tools/call", "label": "answer-call"},
]  # fmt: skip


def _call(meta: dict[str, Any] | None) -> str:
    params: dict[str, Any] = {"name": "probe", "arguments": {}}
    if meta is not None:
        params["_meta"] = meta
    return json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params})


def _play(tmp_path: Path, call: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Feed initialize and ``call``; the peer's stdout messages and its done record."""
    plan = {
        "revision": "2025-06-18",
        "answer_revision": "2025-06-18",
        "first_modern": first_after_initialize(),
        "control": str(tmp_path / "control"),
        "hold_replies": ["tools/call"],
        "steps": STEPS,
        "linger_s": 0.1,
        "hard_deadline_s": 20,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    data = f"{INIT}\n{call}\n".encode()
    done = subprocess.run(peer_argv(path), input=data, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    return out, json.loads((tmp_path / "done.json").read_text())


def test_progress_goes_out_under_the_token_the_call_carried(tmp_path: Path) -> None:
    """The token read from the held call's _meta wins over one the step's params name, and
    the notification precedes the call's answer."""
    out, done = _play(tmp_path, _call({"progressToken": 42}))
    assert [m.get("method") or m.get("id") for m in out] == [0, "notifications/progress", 9]
    assert out[1]["params"] == {"progress": 1, "total": 2, "progressToken": 42}
    assert [s["outcome"] for s in done["steps"]] == ["ok", "ok", "ok"]


def test_a_call_without_a_token_gets_no_progress(tmp_path: Path) -> None:
    """No token, no progress: the step sends nothing and says so."""
    out, done = _play(tmp_path, _call(None))
    assert [m.get("method") or m.get("id") for m in out] == [0, 9]
    assert [s["outcome"] for s in done["steps"]] == ["ok", "no-token", "ok"]
