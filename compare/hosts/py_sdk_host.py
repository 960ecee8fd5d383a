"""An application embedding the official Python SDK's client (PyPI ``mcp``).

It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, README.md here):

    python py_sdk_host.py --plan PLAN.json -- SERVER_COMMAND...
    python py_sdk_host.py --plan PLAN.json --url URL

Run it with the interpreter of ``tools/venvs/py-sdk`` (``mcp-compare tools install``).

We use ``mcp.Client``, the front door the SDK's README shows; it drives ``ClientSession`` over
``stdio_client`` for a ``StdioServerParameters`` server. With ``--url`` the ``Client`` is
handed the URL string itself, as the SDK's README shows for a remote server (METADATA line 143,
``async with Client("http://localhost:8000/mcp") as client:``): a string becomes the SDK's
``streamable_http_client(url)`` with all its defaults (``mcp/client/client.py`` lines 288-291
and 398-399 in mcp 2.3.0; ``mcp/client/streamable_http.py`` lines 712-793), so every header,
the GET stream and the closing DELETE are the SDK's. Its default ``mode="auto"`` first
probes ``server/discover`` (2026-07-28) and falls back to ``initialize`` on an older server,
and its ``call_tool`` answers an ``InputRequiredResult`` from the same callbacks, so the
2026-07-28 embedded path is exercised with no extra code here.

Each client feature of the plan is one callback handed to ``Client`` (``mcp/client/client.py``
fields ``list_roots_callback``, ``elicitation_callback``, ``sampling_callback``, lines 306-348
in mcp 2.3.0). The SDK declares a capability exactly when its callback is given and chooses
the sub-capabilities itself (``ClientSession._build_capabilities``, ``mcp/client/session.py``
lines 629-648: roots always ``listChanged: true``, elicitation always both ``form`` and
``url``), so the plan's ``list_changed``, ``form`` and ``url`` are not ours to apply here:
what the SDK declares is what the wire shows.

CLOSE: a script's ``close`` request is the end of the README's ``async with Client(...) as
client:`` block; the Client has no close method of its own (its ``__aexit__``,
``mcp/client/client.py`` lines 477-481, unwinds the transport it entered). For a stdio server
that is ``stdio_client``'s shutdown (``mcp/client/stdio.py`` lines 185-216 and 249-268): the
writer gets up to 0.5 s to flush, then the server's stdin is closed, then up to 2 s for it to
exit, then SIGTERM to its process group and SIGKILL 2 s later
(``mcp/os/posix/utilities.py`` lines 17-52). For a URL it is ``streamable_http_client``'s exit
(``mcp/client/streamable_http.py`` lines 787-792): a DELETE of the session when the server gave
one (``terminate_on_close=True``, its default; ``terminate_session``, lines 695-710), then its
tasks are cancelled.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Any

from host_plan import screen

HOST = "py-sdk host"

# Refused plans exit before the SDK import (README.md, "Exit codes").
if __name__ == "__main__":
    screen(sys.argv[1:], HOST, {}, {})  # no options, and the SDK has a call for every request

import anyio
import mcp_types as types
from host_plan import (
    LIST_MEMBERS,
    MAX_PAGES,
    Changes,
    add_folders,
    dump,
    error_code,
    leaving,
    make_requests,
    record_notification,
    subscribes,
)
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.jsonrpc import CONNECTION_CLOSED
from sdk_values import reference


def connection_closed(client: Client) -> bool:
    # The SDK has no public "the server hung up" signal; fastmcp's own stdio transport reads
    # this same dispatcher flag to notice a dead session, so we do as it does.
    return bool(getattr(client.session._dispatcher, "_closed", False))


def as_root(path: Path) -> types.Root:
    # A file URI from the standard library (Path.as_uri percent-encodes spaces, '#' and
    # non-ASCII letters); the SDK's Root type validates it.
    return types.Root(uri=path.resolve().as_uri(), name=path.name)


def callbacks(features: dict[str, Any], roots: list[types.Root]) -> dict[str, Any]:
    """One SDK callback per feature the plan names; an absent feature gets none, so the SDK
    declares nothing for it and answers its requests with its own default."""
    given: dict[str, Any] = {}
    if "roots" in features:

        async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
            return types.ListRootsResult(roots=list(roots))

        given["list_roots_callback"] = list_roots
    if "elicitation" in features:
        # The plan's answer as the SDK's own ElicitResult (ElicitationFnT, session.py:214-219).
        elicited = types.ElicitResult.model_validate(features["elicitation"]["answer"])

        async def elicit(
            context: ClientRequestContext, params: types.ElicitRequestParams
        ) -> types.ElicitResult:
            return elicited

        given["elicitation_callback"] = elicit
    if "sampling" in features:
        # The plan's answer as the SDK's CreateMessageResult (SamplingFnT, session.py:206-211).
        sampled = types.CreateMessageResult.model_validate(features["sampling"]["answer"])

        async def sample(
            context: ClientRequestContext, params: types.CreateMessageRequestParams
        ) -> types.CreateMessageResult:
            return sampled

        given["sampling_callback"] = sample
    return given


async def whole(client: Client, name: str) -> dict[str, Any]:
    """Every item of one list. The SDK has no helper that reads every page: an application
    passes each next_cursor back to its list call until a page comes without one."""
    call = {
        "tools": client.list_tools,
        "prompts": client.list_prompts,
        "resources": client.list_resources,
        "resource_templates": client.list_resource_templates,
    }[name]
    member = LIST_MEMBERS[name]
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await call(cursor=cursor)
        items.extend(dump(item) for item in getattr(page, name))  # the result's field
        cursor = page.next_cursor
        if cursor is None:
            break
    return {member: items}


def scripted(client: Client) -> Any:
    """One SDK call per kind of scripted request (hosts/README.md), each the Client method
    its README shows; subscribe and unsubscribe are deprecated at 2026-07-28 but are the
    SDK's API before it."""

    async def make(kind: str, request: dict[str, Any]) -> Any:
        arguments = request.get("arguments")
        if kind == "list":
            return await whole(client, request["list"])
        if kind == "call":
            return dump(await client.call_tool(request["call"], arguments or {}))
        if kind == "read":
            return dump(await client.read_resource(request["read"]))
        if kind == "get_prompt":
            return dump(await client.get_prompt(request["get_prompt"], arguments or {}))
        if kind == "complete":
            target = reference(request["complete"]["ref"])
            return dump(await client.complete(target, dict(request["complete"]["argument"])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            if kind == "subscribe":
                return dump(await client.subscribe_resource(request["subscribe"]))
            return dump(await client.unsubscribe_resource(request["unsubscribe"]))

    return make


def on_updates(plan: dict[str, Any]) -> dict[str, Any]:
    """For a plan that subscribes: the Client's ``message_handler`` (the SDK's hook for what a
    server notifies), recording each resource update it is handed; none otherwise."""
    if not subscribes(plan):
        return {}

    async def handle(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            record_notification(plan, dump(message.params))

    return {"message_handler": handle}


async def run(plan: dict[str, Any], command: list[str], url: str | None) -> None:
    features = plan["features"]
    roots = [as_root(Path(f)) for f in (features.get("roots") or {}).get("folders", [])]
    given = {**callbacks(features, roots), **on_updates(plan)}
    changes = Changes.of(plan)
    # The SDK's stdio transport. An application passes its server's configured environment;
    # the harness configures the peer through ours, so all of it is passed on. Or the URL
    # string, which the Client connects to with the SDK's Streamable HTTP client at its
    # defaults (client.py:398-399).
    server: StdioServerParameters | str = (
        url
        if url is not None
        else StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    )
    client_info = types.Implementation(name="mcp-compare-py-host", version="1.0.0")
    # A script's close is leaving this `async with` (CLOSE above): `leaving` records it once
    # the Client's context has been left.
    async with (
        leaving(plan, error_code) as closing,
        Client(server, client_info=client_info, **given) as client,
    ):
        if plan["session"]["call_tools"]:
            # The SDK has no helper that reads every page: an application passes each
            # next_cursor back to list_tools until a page comes without one.
            tools: list[types.Tool] = []
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                listing = await client.list_tools(cursor=cursor)
                tools.extend(listing.tools)
                cursor = listing.next_cursor
                if cursor is None:
                    break
            for tool in tools:
                try:
                    await client.call_tool(tool.name, {})
                except Exception as err:  # the server's answer is evidence, not our failure
                    print(f"{HOST}: tools/call {tool.name} failed: {err}", file=sys.stderr)
        closing.step = await make_requests(plan, scripted(client), error_code)
        while closing.step is None and not connection_closed(client):
            for change in changes.due():
                roots.extend(add_folders(change, as_root))
                if change["notify"]:
                    with warnings.catch_warnings():
                        # Deprecated in 2026-07-28 (SEP-2577); still the SDK's API before it.
                        warnings.simplefilter("ignore", MCPDeprecationWarning)
                        await client.send_roots_list_changed()
            await anyio.sleep(0.05)


def leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in leaves(sub)]
    return [err]


def main() -> int:
    took = screen(sys.argv[1:], HOST, {}, {})  # exit 2 before any server
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
