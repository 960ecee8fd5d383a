"""An MCP server written with the official Python SDK's own server API (PyPI ``mcp``).

It is evidence, like the client hosts beside it: what reaches the wire was put there by the
SDK, because this file only declares what the SDK's documentation ("Sampling and roots")
shows — an ``MCPServer`` with one tool whose parameter is resolved from the client's roots
by a resolver returning ``ListRoots()``. The SDK picks the delivery from the protocol version
of the call: at 2026-07-28 it answers ``tools/call`` with an ``InputRequiredResult`` embedding
``roots/list`` and resumes on the client's retry; at older revisions it sends ``roots/list``
as a request of its own in the middle of the call. A client without the roots capability
gets the SDK's own refusal (``-32021``), which is measured too.

The tool answers with the URIs it was given, one per line, exactly as the SDK handed them
over, so the scenario can tell whether the client's answer reached the tool byte for byte.

Run with the interpreter of ``tools/venvs/py-sdk`` (``mcp-compare tools install``):

    python py_sdk_server.py        # stdio, until stdin closes
"""

from __future__ import annotations

from typing import Annotated

from mcp.server import MCPServer
from mcp.server.mcpserver import ListRoots, Resolve
from mcp_types import ListRootsResult

server = MCPServer("mcp-compare-roots-server")


def client_roots() -> ListRoots:
    """The resolver: ask the client for its roots (the SDK chooses how, per revision)."""
    return ListRoots()


@server.tool()
async def show_roots(roots: Annotated[ListRootsResult, Resolve(client_roots)]) -> str:
    """List the client's roots, one URI per line."""
    if not roots.roots:
        return "no roots"
    return "\n".join(str(root.uri) for root in roots.roots)


if __name__ == "__main__":
    server.run()
