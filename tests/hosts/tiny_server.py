"""A tiny stdlib MCP server the host tests launch: just enough to see how each SDK answers.

It speaks newline-delimited JSON-RPC on stdio, records every raw line both ways in
``--record`` (JSONL), answers ``initialize`` at ``--version``, rejects ``server/discover`` as a
pre-2026 server would (-32601), asks ``roots/list`` once the client says it is initialized,
serves one tool, and, with ``--control``, asks the host to add a root and waits for
``notifications/roots/list_changed`` before asking again; with ``--ask METHOD`` (repeatable:
``elicitation/create``, ``sampling/createMessage``) it also sends that request once the client
is initialized and waits for its answer. It then closes stdout and exits,
which is the host's cue to exit too. Kept independent of the engine's peer on purpose: these
tests pin the hosts' behaviour, not the harness's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

#: The requests ``--ask`` sends, each with the params of a plain form elicitation or a
#: one-message sampling request (valid at 2025-06-18 and later).
ASKS: dict[str, dict[str, Any]] = {
    "elicitation/create": {
        "message": "Proceed?",
        "requestedSchema": {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
        },
    },
    "sampling/createMessage": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
        "maxTokens": 16,
    },
    # a URL-mode elicitation (2025-11-25), sent as elicitation/create with its own id
    "elicitation/create#url": {
        "mode": "url",
        "message": "Sign in to continue",
        "elicitationId": "tiny-url-1",
        "url": "https://example.com/sign-in",
    },
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--version", default="2025-11-25")
    parser.add_argument("--control", type=Path)
    parser.add_argument("--bound", type=float, default=20.0)
    parser.add_argument("--ask", action="append", default=[], choices=sorted(ASKS))
    args = parser.parse_args()
    record = args.record.open("a", encoding="utf-8")
    lock = threading.Lock()

    def log(direction: str, raw: str) -> None:
        with lock:
            record.write(json.dumps({"dir": direction, "raw": raw}, ensure_ascii=False) + "\n")
            record.flush()

    def send(message: dict[str, Any]) -> None:
        raw = json.dumps(message, ensure_ascii=False)
        log("out", raw)
        sys.stdout.write(raw + "\n")
        sys.stdout.flush()

    # Exit on a bound so a host that never finishes cannot hang the test.
    bound = threading.Timer(args.bound, lambda: (log("note", "bound reached"), os._exit(3)))
    bound.daemon = True
    bound.start()
    roots_answers = 0
    tool_called = False
    want_answers = 2 if args.control else 1
    asks_answered: set[str] = set()
    for line in sys.stdin:
        raw = line.rstrip("\n")
        log("in", raw)
        try:
            msg = json.loads(raw)
        except ValueError:
            continue
        method = msg.get("method")
        if method == "server/discover":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )
        elif method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {
                        "protocolVersion": args.version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "tiny", "version": "0"},
                    },
                }
            )
        elif method == "notifications/initialized":
            send({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
            for asked in args.ask:
                method_of = asked.split("#", 1)[0]
                send({"jsonrpc": "2.0", "id": asked, "method": method_of, "params": ASKS[asked]})
        elif method == "notifications/roots/list_changed":
            send({"jsonrpc": "2.0", "id": "roots-2", "method": "roots/list"})
        elif method == "tools/list":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {"tools": [{"name": "probe", "inputSchema": {"type": "object"}}]},
                }
            )
        elif method == "tools/call":
            tool_called = True
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {"content": [{"type": "text", "text": "ok"}]},
                }
            )
        elif method is not None and "id" in msg:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "error": {"code": -32601, "message": "Method not found"},
                }
            )
        elif msg.get("id") in ("roots-1", "roots-2"):
            roots_answers += 1
            if roots_answers == 1 and args.control:
                (args.control / "add-root").write_text("", encoding="utf-8")
        elif msg.get("id") in args.ask:
            asks_answered.add(msg["id"])
        if roots_answers >= want_answers and tool_called and asks_answered == set(args.ask):
            break
    time.sleep(0.2)  # let a late line arrive so it is recorded, then hang up
    log("note", "closing")
    record.close()
    sys.stdout.close()
    os._exit(0)


if __name__ == "__main__":
    raise SystemExit(main())
