"""An application embedding the official Python SDK's client (PyPI ``mcp``).

It is evidence: everything the SDK put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):

    python py_sdk_host.py --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...

Run it with the interpreter of ``tools/venvs/py-sdk`` (``mcp-compare tools install``).

We use ``mcp.Client``, the front door the SDK's README shows; it drives ``ClientSession`` over
``stdio_client`` for a ``StdioServerParameters`` server. Its default ``mode="auto"`` first
probes ``server/discover`` (2026-07-28) and falls back to ``initialize`` on an older server,
and its ``call_tool`` answers an ``InputRequiredResult`` from the same roots callback, so the
2026-07-28 roots path is exercised with no extra code here.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types.jsonrpc import CONNECTION_CLOSED


def parse_args(argv: list[str]) -> argparse.Namespace:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.exit('py-sdk host: missing "-- SERVER_COMMAND..."')
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="py_sdk_host.py")
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--control", type=Path)
    parser.add_argument("--no-roots", action="store_true")
    args = parser.parse_args(argv[:cut])
    args.server = argv[cut + 1 :]
    return args


def connection_closed(client: Client) -> bool:
    # The SDK has no public "the server hung up" signal; fastmcp's own stdio transport reads
    # this same dispatcher flag to notice a dead session, so we do as it does.
    return bool(getattr(client.session._dispatcher, "_closed", False))


async def run(args: argparse.Namespace) -> None:
    workspace = args.workspace.resolve()
    # The application's roots: its workspace folder as a file URI from the standard library
    # (Path.as_uri percent-encodes spaces, '#' and non-ASCII letters); Root validates it.
    roots = [types.Root(uri=workspace.as_uri(), name=workspace.name)]

    async def list_roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=list(roots))

    # The SDK's stdio transport. An application passes its server's configured environment;
    # the harness configures the peer through ours, so all of it is passed on.
    server = StdioServerParameters(
        command=args.server[0], args=args.server[1:], env=dict(os.environ)
    )
    # --no-roots passes no callback at all: the SDK then declares no roots capability and
    # answers roots/list with its own default, which is what gets measured.
    client_info = types.Implementation(name="mcp-compare-py-host", version="1.0.0")
    callback = None if args.no_roots else list_roots
    async with Client(server, list_roots_callback=callback, client_info=client_info) as client:
        listing = await client.list_tools()
        for tool in listing.tools:
            try:
                await client.call_tool(tool.name, {})
            except Exception as err:  # the server's answer is evidence, not our failure
                print(f"py-sdk host: tools/call {tool.name} failed: {err}", file=sys.stderr)
        signal = args.control / "add-root" if args.control and not args.no_roots else None
        while not connection_closed(client):
            if signal is not None and signal.exists():
                signal = None
                added = workspace / "added root ü"
                added.mkdir(parents=True, exist_ok=True)
                roots.append(types.Root(uri=added.as_uri(), name=added.name))
                with warnings.catch_warnings():
                    # Deprecated in 2026-07-28 (SEP-2577); still the SDK's API for older ones.
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await client.send_roots_list_changed()
            await anyio.sleep(0.05)


def leaves(err: BaseException) -> list[BaseException]:
    if isinstance(err, BaseExceptionGroup):
        return [leaf for sub in err.exceptions for leaf in leaves(sub)]
    return [err]


def main() -> int:
    args = parse_args(sys.argv[1:])
    try:
        anyio.run(run, args)
    except Exception as err:
        # anyio wraps failures in task-group exception groups; name the real causes.
        causes = leaves(err)
        for leaf in causes:
            print(f"py-sdk host: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        # The server hanging up, even mid-request, is the normal end of a session.
        closed = all(getattr(leaf, "code", None) == CONNECTION_CLOSED for leaf in causes)
        return 0 if closed else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
