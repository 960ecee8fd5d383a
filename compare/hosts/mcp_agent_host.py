"""An application embedding mcp-agent's MCP client (PyPI ``mcp-agent``, lastmile-ai).

It is evidence: everything mcp-agent put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python mcp_agent_host.py --plan PLAN.json -- SERVER_COMMAND...
    python mcp_agent_host.py --plan PLAN.json --url URL

Run it with the interpreter of ``tools/venvs/mcp-agent`` (``mcp-compare tools install``).

It is built the way mcp-agent's README (the package's METADATA in mcp-agent 0.2.6) shows:
the application's configuration is ``mcp_agent.config.yaml`` with the server under
``mcp.servers`` (lines 686-700), here written into the cell's home and handed to
``MCPApp(settings=<path>)`` (app.py:91, 107-108); inside ``app.run()`` the server is reached
through an ``MCPAggregator`` ("MCP server management", lines 914-923) with a persistent
connection, the kind an ``Agent(server_names=[...])`` keeps (agents/agent.py:93). No LLM is
attached: the host lists the aggregator's tools and calls each, which is what a model would
make an agent do.

With ``--url`` the server's configuration names mcp-agent's Streamable HTTP transport instead,
``transport: streamable_http`` and its ``url`` (``MCPServerSettings``, mcp_agent/config.py:227
and 239), every other HTTP setting left at its default (no ``headers``, no timeouts, no
``auth``, ``terminate_on_close: true``, config.py:242-263). The persistent connection then
enters the official SDK's ``streamablehttp_client`` with those defaults
(mcp_connection_manager.py:459-517; mcp 1.30.0, ``mcp/client/streamable_http.py`` lines
709-747, which wraps ``streamable_http_client``, lines 618-706), so every header, the GET
stream and the closing DELETE are mcp-agent's and the SDK's.

Roots are configuration in mcp-agent, not a callback of ours: ``MCPServerSettings.roots`` is
a list of ``MCPRootSettings(uri, name)`` (mcp_agent/config.py:191-211, 268), and mcp-agent's
own client session answers ``roots/list`` from the server's settings each time it is asked
(mcp_agent/mcp/mcp_agent_client_session.py:436-452). The session always hands that callback
to the SDK (lines 107-108), so roots are declared whether or not any are configured: the
``no-roots`` variant measures that default. The URIs are ``Path.as_uri()``'s; mcp-agent only
checks that they start with ``file://`` (config.py:203-209) and passes them on.

A root added later is appended to the same settings object the session reads (the server
registry hands out its own, mcp_server_registry.py:450-466); mcp-agent has no call of its own
to announce it, so the notification goes through the SDK session of that persistent connection
(``MCPAggregator.get_server``, mcp_aggregator.py:512-520) with ``send_roots_list_changed()``.

Elicitation is answered by the application's ``MCPApp(elicitation_callback=...)``
(app.py:94; used by mcp_agent_client_session.py:391-421). Sampling has no application hook:
mcp-agent answers it with its own LLM-backed ``SamplingHandler`` (lines 340-364), so the
host refuses it (exit 3) and the target says so under ``lacks:``.

The plan's scripted requests (``session.requests``) are made through the same aggregator, by
its own methods (mcp_aggregator.py, class ``MCPAggregator``, lines 82-1372): ``list_tools``,
``list_prompts``, ``list_resources``, ``call_tool``, ``read_resource`` and ``get_prompt``, each
named as the script names it (the aggregator finds the server by the item's own name or URI,
``_parse_capability_name``, lines 1169-1224). ``MCPAggregator`` has no call for
``completion/complete``, ``resources/subscribe`` or ``resources/unsubscribe``: the target says
so under ``lacks:`` and the host refuses a plan with one (exit 3); nor has it one for
``resources/templates/list`` (``list_resource_templates`` under ``lacks:``).
The session ``get_server``
hands back is mcp-agent's ``MCPAgentClientSession``, a subclass of the SDK's
``ClientSession`` whose request methods are the SDK's own: what is measured here is the
aggregator, mcp-agent's API.

CLOSE: a script's ``close`` request is ``await aggregator.close()``, which the README's
``async with MCPAggregator.create(...)`` runs on leaving (``__aexit__``, mcp_aggregator.py:
101-102); its docstring says it closes all persistent connections (lines 198-273). As the last
user of the context's connection manager it awaits that manager's ``close()`` (bounded to 5 s,
mcp_connection_manager.py:286-313), which asks each server connection to shut down
(``disconnect_all``, lines 633-659) and so ends its lifecycle task, leaving the
official SDK's ``stdio_client`` (through mcp-agent's ``filtered_stdio_client``,
stdio_transport.py), whose shutdown (mcp 1.30.0, ``mcp/client/stdio/__init__.py`` lines
190-216) closes the server's stdin, gives it 2 s, then SIGTERMs its process group and SIGKILLs
it 2 s later. Over a URL the lifecycle task leaves the SDK's ``streamablehttp_client``
instead, whose exit sends a DELETE of the session (``terminate_on_close``, streamable_http.py
lines 700-702). ``close()`` logs what fails rather than raise it. The app's own ``async with``
is then left as always.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from host_plan import screen

HOST = "mcp-agent host"
SERVER = "peer"
#: The kinds of scripted request MCPAggregator has no call for (the target's ``lacks:``).
LACKED = {
    "complete": "MCPAggregator has no call that sends completion/complete",
    "subscribe": "MCPAggregator has no call that sends resources/subscribe",
    "unsubscribe": "MCPAggregator has no call that sends resources/unsubscribe",
    "list_resource_templates": "MCPAggregator has no call that sends resources/templates/list",
}


def cannot_take(plan: dict[str, Any]) -> str | None:
    """A sampling answer: mcp-agent answers sampling with its own model, never the plan's."""
    if "sampling" in plan["features"]:
        return (
            "sampling: mcp-agent answers sampling/createMessage with its own LLM-backed "
            "SamplingHandler; an application cannot register a handler"
        )
    return None


# Refused plans exit before the SDK import (README.md, "Exit codes").
if __name__ == "__main__":
    screen(sys.argv[1:], HOST, {}, LACKED, also=cannot_take)

import anyio
from host_plan import (
    LIST_MEMBERS,
    Changes,
    add_folders,
    close_session,
    dump,
    error_code,
    make_requests,
)
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED, ElicitResult
from mcp_agent.app import MCPApp
from mcp_agent.config import MCPRootSettings
from mcp_agent.mcp.mcp_aggregator import MCPAggregator


def as_root(path: Path) -> dict[str, str]:
    """One root as mcp-agent's configuration holds it (``MCPRootSettings``: uri, name): the
    platform's file URI for the folder (Path.as_uri percent-encodes spaces, '#' and non-ASCII
    letters), named for it."""
    return {"uri": path.resolve().as_uri(), "name": path.name}


def write_config(command: list[str], url: str | None, roots: list[Path] | None) -> Path:
    """The application's configuration file, ``mcp_agent.config.yaml``, in the cell's home:
    the server started on stdio, or reached at ``url`` over Streamable HTTP.

    A file, not ``Settings(...)`` in code: built in code the way the README's "App
    configuration" shows, a root without ``server_uri_alias`` fails validation, because the
    validator of config.py:203-209 also runs on that field's None and calls ``None.startswith``
    (measured with 0.2.6: AttributeError inside ``Settings(mcp=MCPSettings(...))``). Loaded
    from a file, the absent key keeps its default, as in mcp-agent's own examples. JSON is
    YAML, so the standard library writes it.

    Nothing may leave the machine and nothing outside the cell may be read: usage telemetry
    is on by default (config.py:694-700) and is turned off; subagent definitions are searched
    for in the user's folders by default (config.py:590-596) and are turned off; the logger
    writes nothing (our stderr carries our own lines only)."""
    server: dict[str, Any] = (
        # mcp-agent's Streamable HTTP transport, every other HTTP setting at its default.
        {"transport": "streamable_http", "url": url}
        if url is not None
        else {
            "transport": "stdio",
            "command": command[0],
            "args": command[1:],
            # An application passes its server's configured environment; the harness
            # configures the peer through ours, so all of it is passed on.
            "env": dict(os.environ),
        }
    )
    if roots is not None:
        server["roots"] = [as_root(path) for path in roots]
    config = {
        "execution_engine": "asyncio",
        "logger": {"type": "none", "transports": ["none"]},
        "usage_telemetry": {"enabled": False},
        "agents": {"enabled": False},
        "mcp": {"servers": {SERVER: server}},
    }
    path = Path.home() / "mcp_agent.config.yaml"
    path.write_text(json.dumps(config, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def elicitation_callback(features: dict[str, Any]) -> Any:
    """The application's elicitation callback when the plan names elicitation, else None (so
    mcp-agent's own default, a decline, is what gets measured)."""
    if "elicitation" not in features:
        return None
    answer = ElicitResult.model_validate(features["elicitation"]["answer"])

    async def elicit(request: Any) -> ElicitResult:
        return answer

    return elicit


def connection_closed(session: ClientSession) -> bool:
    # Neither mcp-agent nor the SDK has a public "the server hung up" signal: the SDK's receive
    # loop closes its read stream when the transport ends (mcp/shared/session.py:351-355), so
    # that stream's flag is read.
    return bool(getattr(session._read_stream, "_closed", False))


class SessionClosed(BaseException):
    """The server has closed the session: no further scripted request is made, since mcp-agent's
    connection manager would launch the server again for it (mcp_connection_manager.py:
    568-590). A BaseException, so that ``make_requests`` (which records every Exception and goes
    on) lets it end the script."""


def scripted(aggregator: MCPAggregator, session: ClientSession) -> Any:
    """One MCPAggregator call per kind of scripted request (hosts/README.md), each made only
    while the session is connected.

    - ``list``: ``list_tools``, ``list_prompts``, ``list_resources`` (mcp_aggregator.py:
      636-728, 958-1015) answer from what the aggregator read when it loaded the server, every
      page of it (lines 1257-1348), with each name prefixed ``peer_``; they send nothing then.
    - ``call``: ``call_tool`` (lines 829-956) returns the SDK's CallToolResult; an error it
      meets (a JSON-RPC error, an answer the SDK refuses) comes back as an ``isError`` result
      holding the error's text, never raised.
    - ``read``: ``read_resource`` (lines 730-827): a URI not among the listed resources is
      read from no server; an error comes back as empty contents.
    - ``get_prompt``: ``get_prompt`` (lines 1017-1167): an error comes back as a result with
      ``isError`` and the error's text as its description.
    """

    async def make(kind: str, request: dict[str, Any]) -> Any:
        if connection_closed(session):
            raise SessionClosed
        if kind == "list":
            name = request["list"]
            listed = await {
                "tools": aggregator.list_tools,
                "prompts": aggregator.list_prompts,
                "resources": aggregator.list_resources,
            }[name]()
            member = LIST_MEMBERS[name]
            return {member: [dump(item) for item in getattr(listed, member)]}
        if kind == "call":
            arguments = request.get("arguments") or {}
            return dump(await aggregator.call_tool(request["call"], arguments))
        if kind == "read":
            return dump(await aggregator.read_resource(request["read"]))
        if kind == "get_prompt":
            got = await aggregator.get_prompt(request["get_prompt"], request.get("arguments"))
            return dump(got)
        raise AssertionError(f"{kind}: its target says mcp-agent lacks it")  # refused in main

    return make


async def run(plan: dict[str, Any], command: list[str], url: str | None) -> None:
    features = plan["features"]
    planned = features.get("roots")
    folders = [Path(f) for f in planned["folders"]] if planned is not None else None
    config = write_config(command, url, folders)
    changes = Changes.of(plan)
    app = MCPApp(
        name="mcp-compare-mcp-agent-host",
        settings=str(config),
        elicitation_callback=elicitation_callback(features),
    )
    async with app.run() as running:
        registry = running.context.server_registry
        # A persistent connection: the one mcp-agent's Agent keeps (agents/agent.py:93), and
        # the one whose session is handed the server's settings (mcp_connection_manager.py:
        # 164-166). The README's `async with MCPAggregator.create(...)` cannot run as written
        # (create is a coroutine, mcp_aggregator.py:276), so its result is awaited and closed.
        aggregator = await MCPAggregator.create(server_names=[SERVER], connection_persistence=True)
        closing: int | None = None  # the step of the script's close request, once reached
        try:
            if plan["session"]["call_tools"]:
                listing = await aggregator.list_tools()
                for tool in listing.tools:
                    result = await aggregator.call_tool(tool.name, {})
                    if result.isError:  # the server's answer is evidence, not our failure
                        print(f"{HOST}: tools/call {tool.name} failed: {result}", file=sys.stderr)
            session = await aggregator.get_server(SERVER)
            if session is None:
                # mcp-agent logs the cause itself and hands back no session (mcp_aggregator.py:
                # 512-524): the server could not be started or initialized.
                raise NoServer(
                    "mcp-agent has no session with the server (it could not start or initialize it)"
                )
            with contextlib.suppress(SessionClosed):  # the server closed: the loop below ends
                closing = await make_requests(plan, scripted(aggregator, session), error_code)
            while closing is None and not connection_closed(session):
                for change in changes.due():
                    added = add_folders(change, lambda p: MCPRootSettings(**as_root(p)))
                    # The server's settings, which mcp-agent's session reads on each roots/list
                    # (mcp_server_registry.py:450-466 hands out the registry's own object).
                    configured = registry.get_server_config(SERVER)
                    if configured is not None:
                        configured.roots = [*(configured.roots or []), *added]
                    if change["notify"]:
                        await session.send_roots_list_changed()
                await anyio.sleep(0.05)
            if closing is not None:  # the script's close (CLOSE above), recorded once it returned
                await close_session(plan, closing, aggregator.close, error_code)
        finally:
            if closing is None:  # else closed just above: a second close() would count again
                await aggregator.close()


class NoServer(Exception):
    """mcp-agent could not connect the server (it says why on stderr itself)."""


def leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in leaves(sub)]
    return [err]


def closed_error(leaf: BaseException) -> bool:
    return isinstance(leaf, McpError) and leaf.error.code == CONNECTION_CLOSED


def main() -> int:
    took = screen(sys.argv[1:], HOST, {}, LACKED, also=cannot_take)  # exit 2 or 3, first
    plan, command, url = took.plan, took.command, took.url
    try:
        anyio.run(run, plan, command, url)
    except Exception as err:
        causes = leaves(err)
        for leaf in causes:
            print(f"{HOST}: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        # The server hanging up, even mid-request, is the normal end of a session.
        return 0 if all(closed_error(leaf) for leaf in causes) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
