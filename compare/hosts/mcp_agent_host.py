"""An application embedding mcp-agent's MCP client (PyPI ``mcp-agent``, lastmile-ai).

It is evidence: everything mcp-agent put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python mcp_agent_host.py --plan PLAN.json -- SERVER_COMMAND...

Run it with the interpreter of ``tools/venvs/mcp-agent`` (``mcp-compare tools install``).

It is built the way mcp-agent's README (the package's METADATA in mcp-agent 0.2.6) shows:
the application's configuration is ``mcp_agent.config.yaml`` with the server under
``mcp.servers`` (lines 686-700), here written into the cell's home and handed to
``MCPApp(settings=<path>)`` (app.py:91, 107-108); inside ``app.run()`` the server is reached
through an ``MCPAggregator`` ("MCP server management", lines 914-923) with a persistent
connection, the kind an ``Agent(server_names=[...])`` keeps (agents/agent.py:93). No LLM is
attached: the host lists the aggregator's tools and calls each, which is what a model would
make an agent do.

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
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from host_plan import Changes, add_folders, options, read_plan
from mcp import ClientSession
from mcp.shared.exceptions import McpError
from mcp.types import CONNECTION_CLOSED, ElicitResult
from mcp_agent.app import MCPApp
from mcp_agent.config import MCPRootSettings
from mcp_agent.mcp.mcp_aggregator import MCPAggregator

HOST = "mcp-agent host"
SERVER = "peer"
UNSUPPORTED = 3


def as_root(path: Path) -> dict[str, str]:
    """One root as mcp-agent's configuration holds it (``MCPRootSettings``: uri, name): the
    platform's file URI for the folder (Path.as_uri percent-encodes spaces, '#' and non-ASCII
    letters), named for it."""
    return {"uri": path.resolve().as_uri(), "name": path.name}


def write_config(command: list[str], roots: list[Path] | None) -> Path:
    """The application's configuration file, ``mcp_agent.config.yaml``, in the cell's home.

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
    server: dict[str, Any] = {
        "transport": "stdio",
        "command": command[0],
        "args": command[1:],
        # An application passes its server's configured environment; the harness
        # configures the peer through ours, so all of it is passed on.
        "env": dict(os.environ),
    }
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


async def run(plan: dict[str, Any], command: list[str]) -> None:
    features = plan["features"]
    planned = features.get("roots")
    folders = [Path(f) for f in planned["folders"]] if planned is not None else None
    config = write_config(command, folders)
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
            while not connection_closed(session):
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
        finally:
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
    plan, command = read_plan(sys.argv[1:], HOST)
    options(plan, HOST, {})  # this host has no options
    if "sampling" in plan["features"]:
        print(
            f"{HOST}: unsupported: sampling: mcp-agent answers sampling/createMessage with its "
            "own LLM-backed SamplingHandler; an application cannot register a handler",
            file=sys.stderr,
        )
        return UNSUPPORTED
    try:
        anyio.run(run, plan, command)
    except Exception as err:
        causes = leaves(err)
        for leaf in causes:
            print(f"{HOST}: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        # The server hanging up, even mid-request, is the normal end of a session.
        return 0 if all(closed_error(leaf) for leaf in causes) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
