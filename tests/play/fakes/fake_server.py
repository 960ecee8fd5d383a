"""A tiny stdio MCP server for the scripted client's tests; ``--mode`` picks its one fault.

good: answers initialize, asks roots/list once initialized, lists one tool, answers calls.
silent: reads and never answers. crash: exits with 3 on initialize. flood: answers
initialize, then writes 25000 notifications. reply: like good, but answers
notifications/roots/list_changed with a response (id null). undeclared: asks roots/list
whatever the client declared. The wire hygiene faults: double-answer answers initialize
twice; reuse-id asks roots/list twice with one id in one write (the second while the first is
pending); stray-progress sends progress for a token no request carried. browser: a server like
chrome-devtools-mcp, whose first tool call is slow (it starts a browser: 6.5 s here, past a
probe's 5 s bound); it lists a screenshot tool that saves under the format's extension (.png
for the .txt asked for) and an upload tool that works only once new_page and take_snapshot
were called, with uid 1_1. Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import time

#: The tools the browser mode lists (each with an open input schema).
BROWSER_TOOLS = ["take_screenshot", "upload_file", "new_page", "take_snapshot"]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def browser_call(rid: object, params: dict[str, object], seen: list[str]) -> None:
    """One tools/call of the browser mode: slow the first time, then as described above."""
    if not seen:
        time.sleep(6.5)
    name = str(params.get("name"))
    args = params.get("arguments") or {}
    assert isinstance(args, dict)
    seen.append(name)
    ok = True
    if name == "take_screenshot":
        stem, _ext = os.path.splitext(str(args["filePath"]))
        with open(stem + ".png", "wb") as fh:
            fh.write(b"\x89PNG fake")
    elif name == "upload_file":
        ok = args.get("uid") == "1_1" and {"new_page", "take_snapshot"} <= set(seen)
    result: dict[str, object] = {"content": [{"type": "text", "text": name}]}
    if not ok:
        result["isError"] = True
    send({"jsonrpc": "2.0", "id": rid, "result": result})


def main() -> int:
    mode = sys.argv[sys.argv.index("--mode") + 1]
    seen: list[str] = []
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if mode == "silent":
            continue
        if method == "initialize":
            if mode == "crash":
                return 3
            version = msg["params"]["protocolVersion"]
            info = {"name": "fake-server", "version": "0"}
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            send({"jsonrpc": "2.0", "id": rid, "result": result})
            if mode == "double-answer":
                send({"jsonrpc": "2.0", "id": rid, "result": result})
            if mode == "flood":
                # valid log messages (wire-valid holds every line to the schema): the fault
                # measured here is their number, not their shape
                for i in range(25000):
                    params = {"level": "info", "data": {"i": i}}
                    send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})
        elif method == "notifications/initialized" and mode in (
            "good",
            "reply",
            "undeclared",
            "browser",
        ):
            send({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
        elif method == "notifications/initialized" and mode == "reuse-id":
            ask = json.dumps({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"}) + "\n"
            sys.stdout.write(ask + ask)  # one write: the second is sent before any answer
            sys.stdout.flush()
        elif method == "notifications/initialized" and mode == "stray-progress":
            params = {"progressToken": "nobody-asked", "progress": 1}
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
        elif method == "notifications/roots/list_changed" and mode == "reply":
            send({"jsonrpc": "2.0", "id": None, "result": {}})
        elif method == "tools/list":
            names = BROWSER_TOOLS if mode == "browser" else ["echo"]
            tools = [{"name": n, "inputSchema": {"type": "object"}} for n in names]
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": tools}})
        elif method == "tools/call" and mode == "browser":
            browser_call(rid, msg["params"], seen)
        elif method == "tools/call":
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": []}})
        elif rid is not None and method is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "nope"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
