"""A stdio MCP proxy built with fastmcp (PyPI ``fastmcp``), as its proxy documentation shows.

It is evidence: everything the proxy puts on either leg comes from the two calls below. The
pinned fastmcp (4.x) has no ``FastMCP.as_proxy`` any more; its proxy page and the docstring of
``fastmcp.server.create_proxy`` name ``create_proxy(target)`` as the way to build one, with an
MCP configuration (``{"mcpServers": {name: {"command": …, "args": […]}}}``) as the target for a
local stdio server, and ``run()`` to serve it over stdio. Usage (a proxy target's launch line):

    python fastmcp_proxy.py -- SERVER_COMMAND...

Run it with the interpreter of ``tools/venvs/fastmcp-proxy`` (``mcp-compare tools install``).
How it handles roots (forwarding the server's roots/list to its own client, the capabilities it
declares upstream, when it opens an upstream session) is fastmcp's default behaviour.
"""

from __future__ import annotations

import sys

from fastmcp.server import create_proxy


def main(argv: list[str]) -> int:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.stderr.write('fastmcp proxy: missing "-- SERVER_COMMAND..."\n')
        return 2
    command = argv[argv.index("--") + 1 :]
    config = {"mcpServers": {"upstream": {"command": command[0], "args": command[1:]}}}
    proxy = create_proxy(config, name="mcp-compare-fastmcp-proxy")
    proxy.run()  # stdio, until the host closes stdin
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
