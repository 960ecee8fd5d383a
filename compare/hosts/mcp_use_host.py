"""An application embedding mcp-use's Python client (PyPI ``mcp-use``, ``MCPClient``).

It is evidence: everything mcp-use put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python mcp_use_host.py --plan PLAN.json -- SERVER_COMMAND...
    python mcp_use_host.py --plan PLAN.json --url URL

Run it with the interpreter of ``tools/venvs/mcp-use-py`` (``mcp-compare tools install``).

The calls are the ones mcp-use's client documentation shows (docs/python/client, "roots"):
a config dict with one stdio server under ``mcpServers``; ``MCPClient(config=..., roots=...,
sampling_callback=..., elicitation_callback=...)`` (client/client.py:35-49 in mcp-use 1.7.1);
``await client.create_session(name)``, which connects and initializes (client.py:281-333);
``session.list_tools()`` and ``session.call_tool(name, args)`` (client/session.py:97-123);
``await session.connector.set_roots(roots)`` to change the roots, which "will automatically
notify the server" (client/connectors/base.py:146-165). No agent and no model: the session is
driven directly.

With ``--url`` the config's one server is ``{"url": URL}``, the shape mcp-use's README shows
for its "HTTP Connection Example" (METADATA lines 432-451), and nothing else: mcp-use builds
its ``HttpConnector`` from it with its own defaults (client/config.py:106-128: ``auth`` ``{}``,
``timeout`` 5, ``sse_read_timeout`` 300). What that connector then does is all mcp-use's
(connectors/http.py:132-327): an ``auth`` dict, even the empty default, makes it probe for
OAuth metadata first (http.py:101-126 and 138-159; client/auth/oauth.py:247-273 and 470-526:
a GET of the URL with ``Accept: application/json``, then GETs of
``/.well-known/oauth-protected-resource...``), then it opens the official SDK's
``streamable_http_client`` (mcp 1.30.0, ``mcp/client/streamable_http.py`` lines 618-706,
through task_managers/streamable_http.py:56-89) and initializes over it, and falls back to
the SDK's SSE client by itself if that fails (http.py:161-322). The host adds nothing.

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

The plan's scripted requests (``session.requests``) are made through the session's own
methods, the ones its API reference documents (``MCPSession``, client/session.py:18-164):
``list_tools``, ``list_prompts``, ``list_resources``, ``call_tool``, ``read_resource`` and
``get_prompt``. ``MCPSession`` (and its connector, connectors/base.py:444-555) has no call for
``completion/complete``, ``resources/subscribe`` or ``resources/unsubscribe``: the target says
so under ``lacks:`` and the host refuses a plan with one (exit 3); nor has it one for
``resources/templates/list`` (``list_resource_templates`` under ``lacks:``).
The SDK's ``ClientSession``
under the connector has all of them, but what is measured here is mcp-use's API.

A script's ``close`` request is ``await client.close_all_sessions()``, the call the API
reference documents and mcp-use's examples end with (client/client.py:439-461), which closes
each session (``close_session``, client.py:407-437, logs an error and goes on rather than
raise): ``MCPSession.disconnect`` (session.py:65-67), the connector's ``disconnect``
(connectors/base.py:194-225), which stops its stdio connection manager
(task_managers/base.py:90-159; stdio.py:60-69) and so leaves the official SDK's
``stdio_client``, whose shutdown (mcp 1.30.0, ``mcp/client/stdio/__init__.py`` lines 190-216)
closes the server's stdin, gives it 2 s, then SIGTERMs its process group and SIGKILLs it 2 s
later (``mcp/os/posix/utilities.py``). Over a URL the connection manager leaves the SDK's
``streamable_http_client`` instead (task_managers/streamable_http.py:91-110), whose exit sends
a DELETE of the session (``terminate_on_close``, its default; streamable_http.py lines
700-702).

mcp-use sends anonymous telemetry unless ``MCP_USE_ANONYMIZED_TELEMETRY=false``
(telemetry/telemetry.py:126-139); the host sets it before importing mcp-use.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

# mcp-use reads this when its modules load (telemetry/telemetry.py:139): a cell has no network,
# and an application may switch telemetry off, as mcp-use's own log line says, before importing.
os.environ.setdefault("MCP_USE_ANONYMIZED_TELEMETRY", "false")

from host_plan import screen

HOST = "mcp-use host"
SERVER = "peer"
#: The kinds of scripted request MCPSession has no call for (the target's ``lacks:``).
LACKED = {
    "complete": "MCPSession has no call that sends completion/complete",
    "subscribe": "MCPSession has no call that sends resources/subscribe",
    "unsubscribe": "MCPSession has no call that sends resources/unsubscribe",
    "list_resource_templates": "MCPSession has no call that sends resources/templates/list",
}


def cannot_take(plan: dict[str, Any]) -> str | None:
    """A roots change the plan makes without a notification: mcp-use cannot make one."""
    for change in (plan["features"].get("roots") or {}).get("changes", []):
        if not change["notify"]:
            return (
                "roots: a change without notification: "
                "connector.set_roots() always sends notifications/roots/list_changed"
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
from mcp import types
from mcp.types import CONNECTION_CLOSED
from mcp_use import MCPClient
from mcp_use.client.session import MCPSession
from pydantic import AnyUrl


class SessionClosed(BaseException):
    """The server has closed the session: no further scripted request is made, since mcp-use
    would spawn the server again for it (base.py:421-440). A BaseException, so that
    ``make_requests`` (which records every Exception and goes on) lets it end the script."""


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


def scripted(session: MCPSession) -> Any:
    """One MCPSession call per kind of scripted request (hosts/README.md), each the method its
    API reference documents (client/session.py:95-164), each made only while the session is
    connected (see ``run``).

    - ``list``: ``list_tools``, ``list_prompts``, ``list_resources``: each sends one request
      and returns that page's items (no cursor is passed on), and returns an empty list when
      the server declares no such capability or answers with an error (base.py:481-546).
    - ``call``: ``call_tool`` returns the SDK's CallToolResult, ``isError`` included.
    - ``read``: ``read_resource`` takes the URI as pydantic's ``AnyUrl`` (its signature).
    - ``get_prompt``: ``get_prompt`` with the request's arguments, if any.
    """

    async def make(kind: str, request: dict[str, Any]) -> Any:
        if not session.is_connected:
            raise SessionClosed
        if kind == "list":
            name = request["list"]
            listed = await {
                "tools": session.list_tools,
                "prompts": session.list_prompts,
                "resources": session.list_resources,
            }[name]()
            return {LIST_MEMBERS[name]: [dump(item) for item in listed]}
        if kind == "call":
            return dump(await session.call_tool(request["call"], request.get("arguments") or {}))
        if kind == "read":
            return dump(await session.read_resource(AnyUrl(request["read"])))
        if kind == "get_prompt":
            return dump(await session.get_prompt(request["get_prompt"], request.get("arguments")))
        raise AssertionError(f"{kind}: its target says mcp-use lacks it")  # refused in main

    return make


async def run(plan: dict[str, Any], command: list[str], url: str | None) -> None:
    features = plan["features"]
    roots = [as_root(Path(f)) for f in (features.get("roots") or {}).get("folders", [])]
    changes = Changes.of(plan)
    # One stdio server, as the documentation's config dicts give one. An application passes
    # its server's configured environment; the harness configures the peer through ours. Or
    # one server by its URL alone, as the README's HTTP example gives one.
    server: dict[str, Any] = (
        {"url": url}
        if url is not None
        else {"command": command[0], "args": command[1:], "env": dict(os.environ)}
    )
    config = {"mcpServers": {SERVER: server}}
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
        closing: int | None = None  # the step of the script's close request, once reached
        with contextlib.suppress(SessionClosed):  # the server closed: the loop below ends
            closing = await make_requests(plan, scripted(session), error_code)
        while closing is None and session.is_connected:
            for change in changes.due():
                roots.extend(add_folders(change, as_root))
                await session.connector.set_roots(list(roots))  # notifies (base.py:162-165)
            await anyio.sleep(0.05)
        if closing is not None:  # recorded once it returned; the finally then has none left
            await close_session(plan, closing, client.close_all_sessions, error_code)
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
    took = screen(sys.argv[1:], HOST, {}, LACKED, also=cannot_take)  # exit 2 or 3, first
    plan, command, url = took.plan, took.command, took.url
    try:
        anyio.run(run, plan, command, url)
    except Exception as err:
        causes = leaves(err)
        for leaf in causes:
            print(f"{HOST}: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        # The server hanging up, even mid-request, is the normal end of a session.
        return 0 if all(closed_under(leaf) for leaf in causes) else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
