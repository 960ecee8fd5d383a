"""A trivial stdio MCP server (stdlib only) for the overhead baseline.

It answers initialize (echoing the client's version), tools/list (no tools) and ping, and
closes the connection once the client has sent notifications/initialized and listed tools —
the shortest exchange a host program completes. No transcript, no steps, no judging.
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    initialized = listed = False
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        method, rid = msg.get("method"), msg.get("id")
        result: dict[str, object] | None = None
        if method == "initialize":
            version = msg.get("params", {}).get("protocolVersion", "2025-11-25")
            result = {
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "trivial", "version": "0"},
            }
        elif method == "tools/list":
            result, listed = {"tools": []}, True
        elif method == "ping":
            result = {}
        elif method == "notifications/initialized":
            initialized = True
        if rid is not None and method is not None:
            reply: dict[str, object] = {"jsonrpc": "2.0", "id": rid}
            if result is None:
                reply["error"] = {"code": -32601, "message": "Method not found"}
            else:
                reply["result"] = result
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
        if initialized and listed:
            return


if __name__ == "__main__":
    main()
