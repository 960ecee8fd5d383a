"""A fake MCP client whose every free-text field is hostile, to prove the site shows it as text.

    hostile_client.py -- SERVER_ARGV...

It speaks plain 2025-11-25 over stdio to the server it starts (our peer, through the engine's
``command`` target): ``initialize`` with a ``clientInfo`` full of HTML, Markdown and
template syntax, then answers ``roots/list`` with roots whose URIs and names are just as bad.
Everything else it is asked gets -32601. It exits when the server closes its stdout.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

#: Each string tries a different way out of the page: raw HTML, an event handler, a table
#: cell break, code spans, a javascript: link, Jinja syntax, an attr_list and an admonition.
HOSTILE_NAME = (
    "<script>window.__pwned=1</script>|`tick`|[x](javascript:window.__pwned=3)"
    "{{ 7*7 }}{% if %}{: #evil }"
)
HOSTILE_URI = "file:///ws/<img src=x onerror=window.__pwned=2>|**bold**|<b>b</b>"
HOSTILE_ROOT_NAME = '!!! danger "x"\n<iframe src=javascript:window.__pwned=4>'


def main(argv: list[str]) -> int:
    server = argv[argv.index("--") + 1 :] if "--" in argv else argv
    if len(server) == 1:  # the command target's {server} is one shell-quoted string
        server = shlex.split(server[0])
    proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"roots": {"listChanged": False}},
                "clientInfo": {"name": HOSTILE_NAME, "version": "<b>9</b>|`1`"},
            },
        }
    )
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if not isinstance(msg, dict):
            continue
        if msg.get("id") == 1 and "result" in msg:
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        elif msg.get("method") == "roots/list" and "id" in msg:
            roots = [{"uri": HOSTILE_URI, "name": HOSTILE_ROOT_NAME}]
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"roots": roots}})
        elif "method" in msg and "id" in msg:
            error = {"code": -32601, "message": "<script>not found</script>"}
            send({"jsonrpc": "2.0", "id": msg["id"], "error": error})
    proc.stdin.close()
    return proc.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
