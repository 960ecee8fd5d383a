"""A tiny stdio MCP server with file tools, for the refresh and several-roots probes' tests.

Started as ``fake_refresh_server.py --mode MODE START``: START is its start-up folder (what it
may reach before any roots arrive). It asks roots/list once initialized and again on every
notifications/roots/list_changed, and its tools (read_file, list_directory, write_file,
move_file) reach only paths inside its current roots. What ``--mode`` changes is what a
failed refresh (an error, a result with no list of roots, no answer) does:

kept: keeps the roots it had. widened: falls back to START. refused-all: keeps no roots at
all. not-refreshed: never asks again after list_changed. ignores: never narrows to the
roots (START always). first-only: honours only the first root of a list. Standard library
only; every path is resolved (links, ..) before it is checked.
"""

from __future__ import annotations

import json
import os
import sys
from urllib.parse import unquote, urlparse


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def inside(path: str, roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == r or real.startswith(r + os.sep) for r in roots)


def parse_roots(message: dict[str, object]) -> list[str] | None:
    """The folders a roots/list response lists, or None when it is no valid list."""
    result = message.get("result")
    roots = result.get("roots") if isinstance(result, dict) else None
    if not isinstance(roots, list) or not all(
        isinstance(r, dict) and isinstance(r.get("uri"), str) for r in roots
    ):
        return None
    return [os.path.realpath(unquote(urlparse(r["uri"]).path)) for r in roots]


TOOLS = [
    {"name": name, "inputSchema": {"type": "object"}}
    for name in ("read_file", "list_directory", "write_file", "move_file")
]


def call(name: str, args: dict[str, str], roots: list[str]) -> dict[str, object]:
    paths = [args.get(k, "") for k in ("path", "source", "destination") if k in args]
    if not paths or not all(inside(p, roots) for p in paths):
        return {"isError": True, "content": [{"type": "text", "text": "Access denied"}]}
    try:
        if name == "read_file":
            with open(args["path"], encoding="utf-8") as fh:
                text = fh.read()
        elif name == "list_directory":
            text = "\n".join(sorted(os.listdir(args["path"])))
        elif name == "write_file":
            with open(args["path"], "w", encoding="utf-8") as fh:
                fh.write(args.get("content", ""))
            text = "written"
        else:
            os.rename(args["source"], args["destination"])
            text = "moved"
    except OSError as err:
        return {"isError": True, "content": [{"type": "text", "text": str(err)}]}
    return {"content": [{"type": "text", "text": text}]}


def main() -> int:
    mode = sys.argv[sys.argv.index("--mode") + 1]
    start = [os.path.realpath(sys.argv[-1])]
    roots, asked = list(start), 0
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            info = {"name": "fake-file-server", "version": "0"}
            result = {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": info,
            }
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "notifications/initialized" or (
            method == "notifications/roots/list_changed" and mode != "not-refreshed"
        ):
            asked += 1
            send({"jsonrpc": "2.0", "id": f"r{asked}", "method": "roots/list"})
        elif method is None and isinstance(rid, str) and rid.startswith("r"):
            got = parse_roots(msg)
            if mode == "ignores":
                roots = list(start)
            elif got is not None:
                roots = got[:1] if mode == "first-only" else got
            elif mode == "widened":
                roots = list(start)
            elif mode == "refused-all":
                roots = []
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            params = msg.get("params") or {}
            result = call(str(params.get("name")), params.get("arguments") or {}, roots)
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif rid is not None and method is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "nope"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
