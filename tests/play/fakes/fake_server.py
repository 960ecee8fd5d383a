"""A tiny stdio MCP server for the scripted client's tests; ``--mode`` picks its one fault.

good: answers initialize, asks roots/list once initialized, lists one tool, answers calls.
silent: reads and never answers. crash: exits with 3 on initialize. flood: answers
initialize, then writes 25000 notifications. reply: like good, but answers
notifications/roots/list_changed with a response (id null). undeclared: asks roots/list
whatever the client declared. The wire hygiene faults: double-answer answers initialize
twice; reuse-id asks roots/list twice with one id in one write (the second while the first is
pending); stray-progress sends progress for a token no request carried. Standard library only.
"""

from __future__ import annotations

import json
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> int:
    mode = sys.argv[sys.argv.index("--mode") + 1]
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
                for i in range(25000):
                    send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"i": i}})
        elif method == "notifications/initialized" and mode in ("good", "reply", "undeclared"):
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
            tool = {"name": "echo", "inputSchema": {"type": "object"}}
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}})
        elif method == "tools/call":
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": []}})
        elif rid is not None and method is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "nope"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
