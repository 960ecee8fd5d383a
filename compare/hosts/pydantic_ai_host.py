"""An application embedding Pydantic AI's MCP client (PyPI ``pydantic-ai-slim[mcp]``).

It is evidence: everything Pydantic AI put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python pydantic_ai_host.py --plan PLAN.json -- SERVER_COMMAND...
    python pydantic_ai_host.py --plan PLAN.json --url URL

Run it with the interpreter of ``tools/venvs/pydantic-ai`` (``mcp-compare tools install``).

Pydantic AI 2 removed ``MCPServerStdio`` in favour of ``MCPToolset`` (``pydantic_ai/mcp.py``
lines 2434-2435 in pydantic-ai-slim 2.68.0), a toolset built on the fastmcp ``Client``. We
build it the way its own ``load_mcp_toolsets`` builds one for a configured stdio server
(mcp.py:2411-2419): ``MCPToolset(StdioTransport(command, args, env), ...)``, with each client
feature of the plan one of its keyword arguments (``roots=``, ``elicitation_handler=``,
``sampling_handler=``; mcp.py:961-972), which it hands to ``fastmcp.Client`` unchanged
(mcp.py:1297-1308). fastmcp and the SDK under it then declare each capability and its
sub-capabilities themselves, so the plan's ``list_changed``, ``form`` and ``url`` are theirs to
choose, not ours.

With ``--url`` the toolset is handed the URL string itself, as ``MCPToolset``'s docstring shows
for "connect to a streamable-HTTP MCP server" (``MCPToolset('http://localhost:8000/mcp')``,
mcp.py:789-797; ``MCPServerStreamableHTTP`` is gone in 2, mcp.py:2433-2437). With no
``headers``, ``auth``, ``verify`` or ``http_client`` the string is passed on unchanged
(``_build_transport``, mcp.py:2005-2028) to the ``fastmcp.Client`` it builds
(mcp.py:1278-1308), which infers fastmcp's ``StreamableHttpTransport`` from it at its defaults
(fastmcp 4.2.3, ``client/transports/inference.py`` lines 175-184); that transport enters the
official SDK's ``streamable_http_client`` (``client/transports/http.py`` lines 166-243; mcp
2.3.0, ``mcp/client/streamable_http.py`` lines 712-793). Every header, the GET stream and the
closing DELETE are theirs; the HTTP read timeout is Pydantic AI's default ``read_timeout``
(300 s, mcp.py:1136-1137), which fastmcp applies to its HTTP client (http.py lines 189-217).

The toolset is driven the way an application drives one: an ``Agent`` whose model is Pydantic
AI's ``FunctionModel`` (no model service). Its first turn calls every tool the agent was given
with ``{}``; its next turn ends the run with text. The agent lists the server's tools to build
the request, so the run lists and calls them as a real model's run would.

Roots are given as a roots handler (``RootsHandler``, which ``roots=`` accepts): a function
returning the application's current list, each root a ``Root`` with a URI from
``Path.as_uri()`` and the folder's name, so a root
added later is what the next ``roots/list`` answers. Pydantic AI has no call of its own to
announce a change; the toolset's public ``client`` (the fastmcp ``Client``, mcp.py:820-822)
sends ``notifications/roots/list_changed`` with ``send_roots_list_changed()``.

The plan's scripted requests (``session.requests``) are made through the toolset's own
methods, the ones its API reference documents (mcp.py, class ``MCPToolset``, lines 776-1970):
``list_tools``, ``list_prompts``, ``list_resources``, ``list_resource_templates``,
``direct_call_tool``, ``read_resource`` and ``get_prompt``. ``MCPToolset`` has no call for
``completion/complete``, ``resources/subscribe`` or ``resources/unsubscribe``: the target says
so under ``lacks:`` and the host refuses a plan with one (exit 3). The fastmcp ``Client``
under it has calls for some of them, but what is measured here is Pydantic AI's API, not
fastmcp's (fastmcp is a target of its own).

CLOSE: a script's ``close`` request is the end of the ``async with agent:`` block, which
Pydantic AI's MCP client docs give for opening and closing the connections to every registered
server ("and in the case of stdio servers, start and stop the subprocesses"); MCPToolset has
no close call of its own. Leaving it exits the toolset (``Agent.__aexit__``,
``agent/__init__.py`` lines 4738-4748; ``MCPToolset.__aexit__``, mcp.py lines 1465-1479) and so
the fastmcp ``Client`` (``async with`` only). The stdio server is not stopped there: fastmcp's
``StdioTransport`` keeps its subprocess alive between client contexts by default
(``keep_alive=True``, ``fastmcp/client/transports/stdio.py`` lines 50-53, 64-66 and 97-101 in
fastmcp 4.2.3), which Pydantic AI's own builder (``load_mcp_toolsets``, mcp.py:2414-2419),
copied here, leaves on. It ends when the host's event loop does: once ``run`` has returned,
the loop cancels the transport's connection task (measured), whose ``stdio_client`` (mcp
2.3.0) then shuts the server down the SDK's way (stdin closed, up to 2 s, then SIGTERM,
SIGKILL 2 s later). Over a URL there is no process to keep: leaving the toolset leaves the
fastmcp ``Client``, which stops its session then (client.py lines 1007-1016 and 1152-1203), and
the SDK's ``streamable_http_client`` sends its DELETE of the session on the way out
(``terminate_on_close=True``, streamable_http.py lines 787-792).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from host_plan import screen

HOST = "pydantic-ai host"
#: The kinds of scripted request MCPToolset has no call for (the target's ``lacks:``).
LACKED = {
    "complete": "MCPToolset has no call that sends completion/complete",
    "subscribe": "MCPToolset has no call that sends resources/subscribe",
    "unsubscribe": "MCPToolset has no call that sends resources/unsubscribe",
}

# Refused plans exit before the SDK import (README.md, "Exit codes").
if __name__ == "__main__":
    screen(sys.argv[1:], HOST, {}, LACKED)

import anyio
import mcp_types
import pydantic
import pydantic_core
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport
from host_plan import (
    LIST_MEMBERS,
    Changes,
    add_folders,
    leaving,
    make_requests,
)
from mcp_types.jsonrpc import CONNECTION_CLOSED
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset, Prompt, PromptResult, Resource, ResourceTemplate
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


def connection_closed(toolset: MCPToolset[Any]) -> bool:
    # No public "the server hung up" signal; fastmcp's own StdioTransport reads this same
    # dispatcher flag (_is_session_dead) to notice a dead session, so we do as it does.
    return bool(getattr(toolset.client.session._dispatcher, "_closed", False))


def as_root(path: Path) -> mcp_types.Root:
    """One root: the platform's file URI for the folder, named for it (the SDK's Root type,
    which ``RootsList`` accepts beside plain strings, validates the URI)."""
    return mcp_types.Root(uri=path.resolve().as_uri(), name=path.name)


def handlers(features: dict[str, Any], roots: list[mcp_types.Root]) -> dict[str, Any]:
    """One MCPToolset argument per feature the plan names; an absent feature gets none, so
    no callback is registered and the SDK's default is what gets measured."""
    given: dict[str, Any] = {}
    if "roots" in features:

        def current_roots(context: Any) -> list[mcp_types.Root]:
            return list(roots)

        given["roots"] = current_roots
    if "elicitation" in features:
        # fastmcp's ElicitResult carries the action explicitly, as its handlers return it.
        answer = ElicitResult.model_validate(features["elicitation"]["answer"])

        async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
            return answer

        given["elicitation_handler"] = elicit
    if "sampling" in features:
        # A CreateMessageResult is passed through unchanged by fastmcp's sampling wrapper.
        sampled = mcp_types.CreateMessageResult.model_validate(features["sampling"]["answer"])

        def sample(messages: Any, params: Any, context: Any) -> Any:
            return sampled

        given["sampling_handler"] = sample
    return given


def call_every_tool(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The FunctionModel's turn: first call every tool with ``{}``, then end with text."""
    first_turn = all(isinstance(m, ModelRequest) for m in messages) and len(messages) == 1
    if first_turn and info.function_tools:
        return ModelResponse(parts=[ToolCallPart(t.name, {}) for t in info.function_tools])
    return ModelResponse(parts=[TextPart("done")])


def as_json(value: Any, shape: Any) -> Any:
    """A value MCPToolset returned, as JSON the way Pydantic AI serializes its own types: the
    pydantic schema of the type the method declares, with bytes as base64 (messages.py:1308-1313
    builds each dataclass's serializer so; ``tool_return_ta``, messages.py:1723-1725, is the
    same for a tool's return value, typed ``Any``). Pydantic AI's own types are dataclasses
    with Python field names (``mime_type``, ``kind``), not wire names: that is how Pydantic AI
    writes them, so that is what is recorded. A ``BinaryContent`` holds the decoded bytes, which
    the serializer writes as base64 again."""
    serializer = pydantic_core.SchemaSerializer(
        pydantic.TypeAdapter(shape).core_schema,
        pydantic_core.core_schema.CoreConfig(ser_json_bytes="base64"),
    )
    return serializer.to_python(value, mode="json", by_alias=True, exclude_none=True)


#: What ``MCPToolset.read_resource`` declares it returns (mcp.py:1854-1863).
READ = str | BinaryContent | list[str | BinaryContent]


def scripted(toolset: MCPToolset[Any]) -> Any:
    """One MCPToolset call per kind of scripted request (hosts/README.md), each the method its
    API reference documents; each returns Pydantic AI's own value, recorded by ``as_json``.

    - ``list``: ``list_tools`` (the SDK's ``Tool`` models, through the fastmcp client's
      ``list_tools``, which reads every page; cached by the toolset, mcp.py:1499-1512),
      ``list_prompts``, ``list_resources``, ``list_resource_templates`` (Pydantic AI's own
      ``Prompt``, ``Resource``, ``ResourceTemplate``; an empty list when the server declares no
      prompts or resources, mcp.py:1755-1852).
    - ``call``: ``direct_call_tool`` (mcp.py:1593-1627), which returns the result mapped as
      the model would see it: the structured content when there is one, else each content
      block (text, JSON parsed from text, ``BinaryContent``). With the default
      ``tool_error_behavior='retry'`` an ``isError`` result and a JSON-RPC error both raise
      ``ModelRetry`` (mcp.py:1629-1698, 2133-2147).
    - ``read``: ``read_resource`` (mcp.py:1861-1888): a text, a ``BinaryContent``, or a list of
      them when there are several.
    - ``get_prompt``: ``get_prompt`` (mcp.py:1781-1808): a ``PromptResult`` of Pydantic AI's
      content types.
    """

    async def make(kind: str, request: dict[str, Any]) -> Any:
        if kind == "list":
            name = request["list"]
            call, item = {
                "tools": (toolset.list_tools, mcp_types.Tool),
                "prompts": (toolset.list_prompts, Prompt),
                "resources": (toolset.list_resources, Resource),
                "resource_templates": (toolset.list_resource_templates, ResourceTemplate),
            }[name]
            return {LIST_MEMBERS[name]: as_json(await call(), list[item])}
        if kind == "call":
            arguments = request.get("arguments") or {}
            return as_json(await toolset.direct_call_tool(request["call"], arguments), Any)
        if kind == "read":
            return as_json(await toolset.read_resource(request["read"]), READ)
        if kind == "get_prompt":
            got = await toolset.get_prompt(request["get_prompt"], request.get("arguments"))
            return as_json(got, PromptResult)
        raise AssertionError(f"{kind}: its target says Pydantic AI lacks it")  # refused in main

    return make


def error_code(err: BaseException) -> int | None:
    """The JSON-RPC code an error exposes: Pydantic AI's own ``MCPError`` carries it as ``code``
    (mcp.py:150-187); the SDK's ``MCPError`` (which the fastmcp client raises) as
    ``error.code``. A ``ModelRetry`` exposes none (its cause is not what the caller is handed)."""
    for code in (getattr(err, "code", None), getattr(getattr(err, "error", None), "code", None)):
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None


async def run(plan: dict[str, Any], command: list[str], url: str | None) -> None:
    features = plan["features"]
    roots = [as_root(Path(f)) for f in (features.get("roots") or {}).get("folders", [])]
    changes = Changes.of(plan)
    # fastmcp's stdio transport. An application passes its server's configured environment;
    # the harness configures the peer through ours, so all of it is passed on. Or the URL
    # string, from which the toolset's fastmcp Client infers its StreamableHttpTransport.
    transport: StdioTransport | str = (
        url
        if url is not None
        else StdioTransport(command=command[0], args=command[1:], env=dict(os.environ))
    )
    toolset: MCPToolset[Any] = MCPToolset(transport, **handlers(features, roots))
    agent = Agent(FunctionModel(call_every_tool), toolsets=[toolset])
    # Enters the toolset: fastmcp's default mode="auto", then initialize. A script's close is
    # leaving this `async with` (CLOSE above): `leaving` records it once the agent has been left.
    async with leaving(plan, error_code) as closing, agent:
        if plan["session"]["call_tools"]:
            try:
                await agent.run("Call every tool you have.")
            except Exception as err:  # the server's answer is evidence, not our failure
                print(f"{HOST}: agent run failed: {type(err).__name__}: {err}", file=sys.stderr)
        closing.step = await make_requests(plan, scripted(toolset), error_code)
        while closing.step is None and not connection_closed(toolset):
            for change in changes.due():
                roots.extend(add_folders(change, as_root))
                if change["notify"]:
                    await toolset.client.send_roots_list_changed()
            await anyio.sleep(0.05)


def leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in leaves(sub)]
    return [err]


def main() -> int:
    took = screen(sys.argv[1:], HOST, {}, LACKED)  # no options; exit 2 or 3 before any server
    plan, command, url = took.plan, took.command, took.url
    try:
        anyio.run(run, plan, command, url)
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
