"""A tiny stdio MCP server with file tools, for the odd-roots, symlink-swap and derived-row
tests; ``--mode`` picks how it uses the roots it asks for.

enforce: asks roots/list once initialized; every call resolves its path once (links
followed), checks it against the resolved roots (a file root admits only itself) and opens
the *resolved* path, so a link swapped after the check cannot move the open.
toctou: the same check, then a pause, then it opens the path again *by name* (the window a
swapped link gets through). reads-only: checks read and list, never write. default-folder:
asks, then lets every path through. ignore: never asks, lets every path through.
Standard library only.
"""

from __future__ import annotations

import json
import os
import sys
import time
from urllib.parse import unquote, urlparse

TOOLS = [
    {"name": "read_file", "inputSchema": {"type": "object"}},
    {"name": "list_directory", "inputSchema": {"type": "object"}},
    {"name": "write_file", "inputSchema": {"type": "object"}},
]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _call(mode: str, roots: list[str], name: str, args: dict[str, str]) -> tuple[bool, str]:
    path = str(args.get("path", ""))
    real = os.path.realpath(path)
    checked = mode in ("enforce", "toctou") or (mode == "reads-only" and name != "write_file")
    if checked and not _inside(real, roots):
        return False, f"denied: {path} is outside the roots"
    target = real if mode == "enforce" else path
    if mode == "toctou":
        time.sleep(0.01)  # the window between the check and the open
    try:
        if name == "read_file":
            with open(target, encoding="utf-8") as fh:
                return True, fh.read()
        if name == "list_directory":
            return True, "\n".join(sorted(os.listdir(target)))
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(str(args.get("content", "")))
        return True, "written"
    except OSError as err:
        return False, f"error: {err.strerror}"


def main() -> int:
    mode = sys.argv[sys.argv.index("--mode") + 1]
    roots: list[str] = []
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            info = {"name": "fake-file-server", "version": "0"}
            version = msg["params"]["protocolVersion"]
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "notifications/initialized" and mode != "ignore":
            send({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
        elif method is None and rid == "roots-1":
            listed = (msg.get("result") or {}).get("roots") or []
            roots = [os.path.realpath(unquote(urlparse(r["uri"]).path)) for r in listed]
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            params = msg.get("params") or {}
            ok, text = _call(mode, roots, str(params.get("name")), params.get("arguments") or {})
            content = [{"type": "text", "text": text}]
            result = {"content": content, **({} if ok else {"isError": True})}
            send({"jsonrpc": "2.0", "id": rid, "result": result})
        elif rid is not None and method is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
