"""A deliberately broken MCP server over stdio, for ``mcp-compare check`` tests: it writes a
banner line that is not JSON to stdout before its first answer (the stdio transport forbids
anything but messages there), then answers like a minimal server: initialize with the
client's revision, empty lists, and method-not-found for the rest. Standard library only."""

from __future__ import annotations

import json
import sys


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    sys.stdout.write("broken-server 0.1 starting up\n")  # the bug under test
    sys.stdout.flush()
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message or "method" not in message:
            continue  # notifications and responses need no answer
        method, ident = message["method"], message["id"]
        if method == "initialize":
            revision = (message.get("params") or {}).get("protocolVersion", "2025-06-18")
            result: dict[str, object] = {
                "protocolVersion": revision,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "broken-server", "version": "0.1"},
            }
            send({"jsonrpc": "2.0", "id": ident, "result": result})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": ident, "result": {"tools": []}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": ident, "result": {}})
        else:
            error = {"code": -32601, "message": f"no such method: {method}"}
            send({"jsonrpc": "2.0", "id": ident, "error": error})


if __name__ == "__main__":
    main()
