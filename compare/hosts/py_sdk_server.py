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

Beside it, the server features the other SDK server hosts register, each through the
decorator the SDK's README shows: a tool with a required argument, a tool whose typed result
the SDK turns into structuredContent with an output schema, a static text resource, a
resource template, a prompt with an argument and a completion handler for both, and
``count_steps``, which counts up in steps and reports each through the ``Context``'s progress
call (the progress and cancel scenarios call it). Only here, since only this SDK's server
takes ``subscriptions/listen`` so far: ``add_tool_later``, which registers one more tool at
run time and announces it to listen streams (the listen scenario calls it). What the wire
shows of them (the capabilities declared, how lists, unknown names, missing arguments and
cursors are answered) is the SDK's doing.

Run with the interpreter of ``tools/venvs/py-sdk`` (``mcp-compare tools install``):

    python py_sdk_server.py              # stdio, until stdin closes
    python py_sdk_server.py --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import asyncio
import sys
from typing import Annotated, Any, TypedDict

from mcp.server import MCPServer
from mcp.server.mcpserver import Context, ListRoots, Resolve
from mcp_types import Completion, ListRootsResult, PromptReference, ResourceTemplateReference

server = MCPServer("mcp-compare-py-sdk-server")
NOTES = ["alpha", "beta", "gamma"]


def client_roots() -> ListRoots:
    """The resolver: ask the client for its roots (the SDK chooses how, per revision)."""
    return ListRoots()


@server.tool()
async def show_roots(roots: Annotated[ListRootsResult, Resolve(client_roots)]) -> str:
    """List the client's roots, one URI per line."""
    if not roots.roots:
        return "no roots"
    return "\n".join(str(root.uri) for root in roots.roots)


@server.tool()
def echo(message: str) -> str:
    """Answer with the message it was given."""
    return message


class Sum(TypedDict):
    sum: float


@server.tool()
def add(a: float, b: float) -> Sum:
    """Add two numbers."""
    return Sum(sum=a + b)


@server.tool()
async def count_steps(steps: int, delay_ms: int, ctx: Context) -> str:
    """Counts up in steps, reporting its progress."""
    # Progress through the Context, as the SDK's docstrings show (mcp 2.3.0 in
    # tools/venvs/py-sdk-server/lib/python3.11/site-packages/:
    # mcp/server/mcpserver/server.py:712-715, mcp/server/mcpserver/context.py:120); the SDK
    # sends notifications/progress only when the request carried a progressToken
    # (mcp/server/session.py:426, mcp/shared/jsonrpc_dispatcher.py:177-185). A cancel needs
    # nothing here: on notifications/cancelled the SDK cancels the handler's scope by default
    # ("interrupt", mcp/shared/jsonrpc_dispatcher.py:85-89, applied at :640-645), so the
    # handler stops at its next await and the SDK writes no answer for it.
    for i in range(1, steps + 1):
        await asyncio.sleep(delay_ms / 1000)
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
    return f"counted {steps}"


def added_later(message: str) -> str:
    """Echoes a message back (registered by add_tool_later)."""
    return message


@server.tool()
async def add_tool_later(ctx: Context) -> str:
    """Registers one more tool, then tells subscribers the tool list changed."""
    # A tool added at run time with MCPServer.add_tool (mcp 2.3.0,
    # mcp/server/mcpserver/server.py:618-655), announced with the Context's
    # notify_tools_changed(), which publishes to subscriptions/listen streams
    # (mcp/server/mcpserver/context.py:136-138); at 2026-07-28 change notifications reach a
    # client only through a listen stream that asked for them (mcp/server/connection.py:166-180).
    server.add_tool(added_later)
    await ctx.notify_tools_changed()
    return "added added_later"


@server.resource("mcp-compare://readme", mime_type="text/plain")
def readme() -> str:
    """A short text."""
    return "served by the Python SDK"


@server.resource("mcp-compare://notes/{name}", mime_type="text/plain")
def note(name: str) -> str:
    """A note by name."""
    return f"note {name}"


@server.prompt()
def greet(name: str) -> str:
    """Greet someone by name."""
    return f"Say hello to {name}."


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
    """Names for the prompt's argument and the template's variable."""
    prompt = isinstance(ref, PromptReference) and ref.name == "greet"
    template = isinstance(ref, ResourceTemplateReference)
    if (prompt or template) and argument.name == "name":
        return Completion(values=[n for n in NOTES if n.startswith(argument.value)])
    return None


if __name__ == "__main__":
    if "--http" in sys.argv:
        # The same server over the SDK's Streamable HTTP, as its README serves it
        # (``run(transport="streamable-http")``, mcp 2.3.0 in
        # tools/venvs/py-sdk-server/lib/python3.11/site-packages/:
        # mcp/server/mcpserver/server.py:404, then run_streamable_http_async at :1113): a
        # stateful session manager at /mcp by default, uvicorn listening where it is told; the
        # loopback address is named, never every interface. Every request goes to the SDK's
        # app, so each status is the SDK's.
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run()
