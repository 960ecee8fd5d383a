"""An application embedding the fastmcp client (PyPI ``fastmcp``).

It is evidence: everything fastmcp put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python fastmcp_host.py --plan PLAN.json -- SERVER_COMMAND...
    python fastmcp_host.py --plan PLAN.json --url URL

Run it with the interpreter of ``tools/venvs/fastmcp`` (``mcp-compare tools install``).

Each client feature of the plan is one argument of ``fastmcp.Client`` (``roots=``,
``elicitation_handler=``, ``sampling_handler=``; ``fastmcp/client/client.py`` lines 437-440
and 554-593 in fastmcp 4.2.3, which hand them to the SDK's ``ClientSession`` as callbacks; the
SDK then declares each capability and its sub-capabilities itself, so the plan's
``list_changed``, ``form`` and ``url`` are fastmcp's and the SDK's to choose, not ours).

With ``--url`` the ``Client`` is handed the URL string itself, the way the ``Client``'s own
docstring shows connecting to a server (``Client("http://localhost:8080")``, client.py lines
355-365 in fastmcp 4.2.3; ``infer_transport``'s docstring, "Connect to a remote server via
HTTP", inference.py lines 127-128): fastmcp infers its ``StreamableHttpTransport`` from an
``http`` URL not ending in ``/sse`` (client.py line 474, inference.py lines 175-184,
``mcp_config.py`` lines 56-73) with every option at its default (no headers, no auth), and
that transport enters the official SDK's ``streamable_http_client`` on the SDK's
default HTTP client (``client/transports/http.py`` lines 32-94 and 166-243; mcp 2.3.0,
``mcp/client/streamable_http.py`` lines 712-793), so every header, the GET stream and the
closing DELETE are fastmcp's and the SDK's.

Roots are passed the way fastmcp's client documentation shows, a list of strings, in one of
two forms (plan option ``roots_form``):

- ``documented`` (variant ``roots-documented``): exactly what the docs page shows, a plain
  path string (``"/path/to/root1"``). The pinned fastmcp turns each string into a
  ``pydantic.FileUrl``, which rejects a plain path when the Client is built; that refusal is
  the finding this variant records.
- ``uri`` (the default, variant ``roots``): the same list with each path turned into a URI by
  the platform's helper, ``Path.as_uri()``. From there on the URI on the wire is fastmcp's
  (and pydantic's) doing: the host's part ends at ``as_uri()``.

CLOSE: a script's ``close`` request is ``await client.close()`` once the ``async with client:``
block has been left. Leaving the block alone does not end a stdio server: ``StdioTransport``
keeps its subprocess alive between client contexts by default (``keep_alive=True``,
``fastmcp/client/transports/stdio.py`` lines 50-53, 64-66 and 97-101 in fastmcp 4.2.3; the
docs' "Session Persistence"), and ``Client.close()`` (``client/client.py`` lines 1511-1513) is
the call that ends it: it stops the session, then the transport (``close`` → ``disconnect``,
stdio.py lines 233-296 and 325-326), whose connection task leaves the official SDK's
``stdio_client`` (stdio.py lines 377-393); that shuts the server down the SDK's way (mcp
2.3.0, ``mcp/client/stdio.py`` lines 249-268: stdin closed, up to 2 s, then SIGTERM to its
process group, SIGKILL 2 s later). Over a URL there is no process to keep: leaving the block
already stops the session (``__aexit__`` → ``_disconnect``, client.py lines 1007-1016 and
1152-1203), whose ``streamable_http_client`` sends its DELETE of the session on the way out
(``terminate_on_close=True``, streamable_http.py lines 787-792), and ``close()`` then has only
the transport's ``close`` left (http.py lines 248-250).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from host_plan import screen

HOST = "fastmcp host"
OPTIONS = {"roots_form": ("uri", "documented")}
#: The kinds of scripted request fastmcp's Client has no call for (the target's ``lacks:``).
LACKED = {
    "subscribe": "fastmcp's Client has no call that sends resources/subscribe",
    "unsubscribe": "fastmcp's Client has no call that sends resources/unsubscribe",
}

# Refused plans exit before the SDK import (README.md, "Exit codes").
if __name__ == "__main__":
    screen(sys.argv[1:], HOST, OPTIONS, LACKED)

import anyio
import mcp_types
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport
from host_plan import (
    LIST_MEMBERS,
    Changes,
    add_folders,
    close_session,
    dump,
    error_code,
    make_requests,
)
from mcp_types.jsonrpc import CONNECTION_CLOSED
from pydantic_core import to_jsonable_python
from sdk_values import reference


def connection_closed(client: Client) -> bool:
    # No public "the server hung up" signal; fastmcp's own StdioTransport reads this same
    # dispatcher flag (_is_session_dead) to notice a dead session, so we do as it does.
    return bool(getattr(client.session._dispatcher, "_closed", False))


def as_root(path: Path, form: str) -> str:
    """One root string: the path as the docs page shows it, or the platform's file URI."""
    path = path.resolve()
    return str(path) if form == "documented" else path.as_uri()


def handlers(features: dict[str, Any], roots: list[str] | None) -> dict[str, Any]:
    """One fastmcp argument per feature the plan names; an absent feature gets none, so
    fastmcp registers no callback and the underlying SDK's default is what gets measured."""
    given: dict[str, Any] = {}
    if roots is not None:
        given["roots"] = roots
    if "elicitation" in features:
        # fastmcp's ElicitResult carries the action explicitly (elicitation.py:22-23, 82-83).
        answer = ElicitResult.model_validate(features["elicitation"]["answer"])

        async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
            return answer

        given["elicitation_handler"] = elicit
    if "sampling" in features:
        # A CreateMessageResult is passed through unchanged (sampling/__init__.py:58-64).
        sampled = mcp_types.CreateMessageResult.model_validate(features["sampling"]["answer"])

        def sample(messages: Any, params: Any, context: Any) -> Any:
            return sampled

        given["sampling_handler"] = sample
    return given


def scripted(client: Client) -> Any:
    """One fastmcp call per kind of scripted request (hosts/README.md), each the Client method
    its documentation shows. Its list_* calls read every page themselves
    (fastmcp/client/mixins/tools.py:91-145 in 4.2.3, the same in prompts.py and resources.py);
    call_tool raises ToolError for an isError result by default (raise_on_error=True,
    tools.py:308-330); complete returns the Completion itself, read_resource the contents
    list. fastmcp's own CallToolResult is a dataclass with no serializer: its fields are
    recorded under their wire names (data, fastmcp's parsed value, as pydantic makes it JSON)."""

    async def make(kind: str, request: dict[str, Any]) -> Any:
        arguments = request.get("arguments") or {}
        if kind == "list":
            name = request["list"]
            listed = await {
                "tools": client.list_tools,
                "prompts": client.list_prompts,
                "resources": client.list_resources,
                "resource_templates": client.list_resource_templates,
            }[name]()
            return {LIST_MEMBERS[name]: [dump(item) for item in listed]}
        if kind == "call":
            result = await client.call_tool(request["call"], arguments)
            return {
                "content": [dump(block) for block in result.content],
                "structuredContent": result.structured_content,
                "isError": result.is_error,
                "data": to_jsonable_python(result.data, fallback=repr),
                **({"_meta": result.meta} if result.meta is not None else {}),
            }
        if kind == "read":
            return {"contents": [dump(c) for c in await client.read_resource(request["read"])]}
        if kind == "get_prompt":
            return dump(await client.get_prompt(request["get_prompt"], arguments))
        if kind == "complete":
            target = reference(request["complete"]["ref"])
            argument = dict(request["complete"]["argument"])
            return {"completion": dump(await client.complete(target, argument))}
        # subscribe / unsubscribe: fastmcp's Client has no call for them (its target lacks them)
        raise AssertionError(f"{kind}: its target says fastmcp lacks it")

    return make


async def run(plan: dict[str, Any], command: list[str], url: str | None, form: str) -> None:
    features = plan["features"]
    folders = (features.get("roots") or {}).get("folders")
    roots = None if "roots" not in features else [as_root(Path(f), form) for f in folders]
    changes = Changes.of(plan)
    # fastmcp's stdio transport. An application passes its server's configured environment;
    # the harness configures the peer through ours, so all of it is passed on. Or the URL
    # string, from which fastmcp infers its StreamableHttpTransport at its defaults.
    transport: StdioTransport | str = (
        url
        if url is not None
        else StdioTransport(command=command[0], args=command[1:], env=dict(os.environ))
    )
    client = Client(transport, **handlers(features, roots))
    async with client:  # fastmcp's default mode="auto": server/discover, then initialize
        if plan["session"]["call_tools"]:
            for tool in await client.list_tools():
                try:
                    await client.call_tool(tool.name, {})
                except Exception as err:  # the server's answer is evidence, not our failure
                    print(f"{HOST}: tools/call {tool.name} failed: {err}", file=sys.stderr)
        closing = await make_requests(plan, scripted(client), error_code)
        while closing is None and not connection_closed(client):
            for change in changes.due():
                assert roots is not None  # a change belongs to the roots feature
                roots.extend(add_folders(change, lambda p: as_root(p, form)))
                # fastmcp's API for changing roots, then its notification (set_roots says
                # it does not notify by itself).
                client.set_roots(list(roots))
                if change["notify"]:
                    await client.send_roots_list_changed()
            await anyio.sleep(0.05)
    if closing is not None:  # the script's close (CLOSE above), recorded once it returned
        await close_session(plan, closing, client.close, error_code)


def leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in leaves(sub)]
    return [err]


def main() -> int:
    took = screen(sys.argv[1:], HOST, OPTIONS, LACKED)  # exit 2 or 3, before any server
    plan, command, url = took.plan, took.command, took.url
    form = took.options.get("roots_form", "uri")
    try:
        anyio.run(run, plan, command, url, form)
    except Exception as err:
        # anyio wraps failures in task-group exception groups; name the real causes.
        causes = leaves(err)
        for leaf in causes:
            print(f"{HOST}: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        # The server hanging up, even mid-request, is the normal end of a session.
        closed = all(getattr(leaf, "code", None) == CONNECTION_CLOSED for leaf in causes)
        return 0 if closed else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
