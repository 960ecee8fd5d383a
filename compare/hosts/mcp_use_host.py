"""An application embedding mcp-use's Python client (PyPI ``mcp-use``, ``MCPClient``).

It is evidence: everything mcp-use put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python mcp_use_host.py --plan PLAN.json -- SERVER_COMMAND...

Run it with the interpreter of ``tools/venvs/mcp-use-py`` (``mcp-compare tools install``).

The calls are the ones mcp-use's client documentation shows (docs/python/client, "roots"):
a config dict with one stdio server under ``mcpServers``; ``MCPClient(config=..., roots=...,
sampling_callback=..., elicitation_callback=...)`` (client/client.py:35-49 in mcp-use 1.7.1);
``await client.create_session(name)``, which connects and initializes (client.py:281-333);
``session.list_tools()`` and ``session.call_tool(name, args)`` (client/session.py:97-123);
``await session.connector.set_roots(roots)`` to change the roots, which "will automatically
notify the server" (client/connectors/base.py:146-165). No agent and no model: the session is
driven directly.

What mcp-use 1.7.1 decides itself, whatever the application passes:
- roots: every connector hands the SDK's ClientSession a roots callback of its own
  (base.py:95-136, "always advertise roots capability"), so the roots capability (with the
  SDK's ``listChanged: true``, mcp/client/session.py:178) is declared even with no roots;
  the plan's ``list_changed`` is therefore not ours to choose.
- ``set_roots()`` always notifies when connected (base.py:162-165): there is no documented way
  to change the roots silently, so a plan change with ``notify: false`` exits 3.
- elicitation: the SDK under it (mcp 1.30.0) declares form and url whenever a callback is
  given (mcp/client/session.py:166-172): the plan's ``form`` and ``url`` are its choice.
- after ``initialize`` it lists tools, resources and prompts, each the server declares
  (base.py:252-305): that is mcp-use's own start-up traffic, not ours.
- a request on a session whose server has closed makes the connector reconnect: it spawns
  the server again and sends the request without a new initialize (base.py:87, 421-440).
  The host asks ``session.is_connected`` before each request so that a closed server ends
  the session; the race that is left (a close between the check and the request) is
  mcp-use's to show.

mcp-use sends anonymous telemetry unless ``MCP_USE_ANONYMIZED_TELEMETRY=false``
(telemetry/telemetry.py:126-139); the host sets it before importing mcp-use.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

# mcp-use reads this when its modules load (telemetry/telemetry.py:139): a cell has no network,
# and an application may switch telemetry off, as mcp-use's own log line says, before importing.
os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")

import anyio
from host_plan import BAD_PLAN, Changes, add_folders, options, read_plan
from mcp import types
from mcp.types import CONNECTION_CLOSED
from mcp_use import MCPClient

HOST = "mcp-use host"
SERVER = "peer"
#: The contract's exit code for a feature the library cannot register.
UNSUPPORTED = BAD_PLAN + 1


def as_root(path: Path) -> types.Root:
    """One root: the platform's file URI for the folder, named for it (the SDK's Root type,
    which the documentation's examples pass; pydantic validates the URI)."""
    return types.Root(uri=path.resolve().as_uri(), name=path.name)


def callbacks(features: dict[str, Any], roots: list[types.Root]) -> dict[str, Any]:
    """One MCPClient argument per feature the plan names; an absent feature gets none, so
    mcp-use's own default is what gets measured."""
    given: dict[str, Any] = {}
    if "roots" in features:
        given["roots"] = list(roots)
    if "elicitation" in features:
        answer = types.ElicitResult.model_validate(features["elicitation"]["answer"])

        async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            return answer

        given["elicitation_callback"] = elicit
    if "sampling" in features:
        sampled = types.CreateMessageResult.model_validate(features["sampling"]["answer"])

        async def sample(
            context: Any, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult:
            return sampled

        given["sampling_callback"] = sample
    return given


async def run(plan: dict[str, Any], command: list[str]) -> None:
    features = plan["features"]
    roots = [as_root(Path(f)) for f in (features.get("roots") or {}).get("folders", [])]
    changes = Changes.of(plan)
    # One stdio server, as the documentation's config dicts give one. An application passes
    # its server's configured environment; the harness configures the peer through ours.
    config = {
        "mcpServers": {
            SERVER: {"command": command[0], "args": command[1:], "env": dict(os.environ)}
        }
    }
    client = MCPClient(config=config, **callbacks(features, roots))
    try:
        session = await client.create_session(SERVER)  # connects, then initialize
        if session is None:
            raise RuntimeError("MCPClient created no session for the configured server")
        # Each request only while the session is connected: after the server has closed,
        # mcp-use's connector reconnects on the next request (auto_reconnect, fixed True at
        # base.py:87; base.py:421-440), which spawns the server again and sends the request
        # with no initialize. The application checks the session's documented is_connected
        # (session.py:84-91) first, so a closed server ends the session, as the contract says.
        if plan["session"]["call_tools"] and session.is_connected:
            for tool in await session.list_tools():
                if not session.is_connected:
                    break
                try:
                    await session.call_tool(tool.name, {})
                except Exception as err:  # the server's answer is evidence, not our failure
                    print(f"{HOST}: tools/call {tool.name} failed: {err}", file=sys.stderr)
        while session.is_connected:
            for change in changes.due():
                roots.extend(add_folders(change, as_root))
                await session.connector.set_roots(list(roots))  # notifies (base.py:162-165)
            await anyio.sleep(0.05)
    finally:
        await client.close_all_sessions()


def leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in leaves(sub)]
    return [err]


def closed_under(err: BaseException) -> bool:
    """The server hanging up: the SDK's CONNECTION_CLOSED, also under mcp-use's wrapping."""
    at: BaseException | None = err
    while at is not None:
        if getattr(getattr(at, "error", None), "code", None) == CONNECTION_CLOSED:
            return True
        at = at.__cause__
    return False


def main() -> int:
    plan, command = read_plan(sys.argv[1:], HOST)
    options(plan, HOST, {})  # this host has no options
    for change in (plan["features"].get("roots") or {}).get("changes", []):
        if not change["notify"]:
            print(
                f"{HOST}: unsupported: roots: a change without notification: "
                "connector.set_roots() always sends notifications/roots/list_changed",
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
        return 0 if all(closed_under(leaf) for leaf in causes) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
