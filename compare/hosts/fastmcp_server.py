"""An MCP server written with fastmcp's own server API (PyPI ``fastmcp``).

Evidence like the client hosts beside it: this file registers only what fastmcp's
documentation shows — ``@mcp.tool`` functions (one returning a typed object, so fastmcp
derives an output schema and sends ``structuredContent``), a static ``@mcp.resource``, a
resource template, a ``@mcp.prompt`` with an argument and an ``@mcp.completion`` handler
for it, and ``count_steps``, which counts up in steps and reports each through
``ctx.report_progress`` — and runs over stdio. What reaches the wire (the capabilities
declared, how lists, unknown names, missing arguments and cursors are answered) is fastmcp's
doing, so the column is fastmcp's server side. The scenarios name no tool of ours but
``count_steps``, which the progress and cancel scenarios call where a server lists it.

Run with the interpreter of ``tools/venvs/fastmcp-server`` (``mcp-compare tools install``):

    python fastmcp_server.py              # stdio, until stdin closes
    python fastmcp_server.py --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from typing import Any

from fastmcp import Context, FastMCP
from mcp_types import PromptReference, ResourceTemplateReference

mcp = FastMCP("mcp-compare-fastmcp-server")
NOTES = ["alpha", "beta", "gamma"]


@dataclass
class Sum:
    sum: float


@mcp.tool
def echo(message: str) -> str:
    """Answer with the message it was given."""
    return message


@mcp.tool
def add(a: float, b: float) -> Sum:
    """Add two numbers."""
    return Sum(a + b)


@mcp.tool
async def count_steps(steps: int, delay_ms: int, ctx: Context) -> str:
    """Counts up in steps, reporting its progress."""
    # Progress as fastmcp's documentation shows (https://gofastmcp.com/servers/progress:
    # ``await ctx.report_progress(progress=, total=)``; fastmcp 4.2.3 in
    # tools/venvs/fastmcp-server/lib/python3.11/site-packages/: fastmcp/server/context.py:466),
    # which sends notifications/progress only when the request carried a progressToken
    # (:480-496). fastmcp documents no way for a tool to learn of a cancel, so nothing here
    # looks for one: the mcp 2.3.0 dispatcher beneath it cancels the handler's scope on
    # notifications/cancelled by default (mcp/shared/jsonrpc_dispatcher.py:85-89, :640-645),
    # which stops this coroutine at its next await; the cell shows what that does.
    for i in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        await ctx.report_progress(progress=i, total=steps, message=f"step {i} of {steps}")
    return f"counted {steps}"


@mcp.resource("mcp-compare://readme", mime_type="text/plain")
def readme() -> str:
    """A short text."""
    return "served by fastmcp"


@mcp.resource("mcp-compare://notes/{name}", mime_type="text/plain")
def note(name: str) -> str:
    """A note by name."""
    return f"note {name}"


@mcp.prompt
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Say hello to {name}."


@mcp.completion
def complete(ref: Any, argument: Any, context: Any) -> list[str] | None:
    """Names for the prompt's argument and the template's variable."""
    prompt = isinstance(ref, PromptReference) and ref.name == "greet"
    template = isinstance(ref, ResourceTemplateReference)
    if (prompt or template) and argument.name == "name":
        return [n for n in NOTES if n.startswith(argument.value)]
    return None


if __name__ == "__main__":
    if "--http" in sys.argv:
        # The same server over fastmcp's Streamable HTTP, as its documentation runs it
        # (``mcp.run(transport="http", ...)``, fastmcp 4.2.3 in
        # tools/venvs/fastmcp-server/lib/python3.11/site-packages/:
        # fastmcp/server/mixins/transport.py:107, then
        # run_http_async at :253 and create_streamable_http_app, fastmcp/server/http.py:632):
        # its defaults (stateful sessions, path /mcp), uvicorn listening where it is told; the
        # loopback address is named, never every interface. Every request goes to fastmcp's
        # app, so each status is fastmcp's (or the SDK's beneath it).
        port = int(sys.argv[sys.argv.index("--http") + 1])
        mcp.run(transport="http", host="127.0.0.1", port=port)
    else:
        mcp.run()
