"""An application embedding the fastmcp client (PyPI ``fastmcp``).

It is evidence: everything fastmcp put on the wire was caused by the few calls below, so a
reader can tell the library's behaviour from ours. Usage (the host contract, CONTRACTS.md):

    python fastmcp_host.py --workspace DIR [--no-roots] [--control DIR] -- SERVER_COMMAND...

Run it with the interpreter of ``tools/venvs/fastmcp`` (``mcp-compare tools install``).

Roots are passed the way fastmcp's client documentation shows, ``Client(..., roots=[...])``
with a list of strings, in one of two forms (``--roots-form``):

- ``documented`` (variant ``roots-documented``): exactly what the docs page shows, a plain
  path string (``"/path/to/root1"``). The pinned fastmcp turns each string into a
  ``pydantic.FileUrl``, which rejects a plain path when the Client is built; that refusal is
  the finding this variant records.
- ``uri`` (the default, variant ``roots``): the same list with each path turned into a URI by
  the platform's helper, ``Path.as_uri()``. From there on the URI on the wire is fastmcp's
  (and pydantic's) doing: the host's part ends at ``as_uri()``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import anyio
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp_types.jsonrpc import CONNECTION_CLOSED


def parse_args(argv: list[str]) -> argparse.Namespace:
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.exit('fastmcp host: missing "-- SERVER_COMMAND..."')
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="fastmcp_host.py")
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--control", type=Path)
    parser.add_argument("--no-roots", action="store_true")
    parser.add_argument("--roots-form", choices=("uri", "documented"), default="uri")
    args = parser.parse_args(argv[:cut])
    args.server = argv[cut + 1 :]
    return args


def connection_closed(client: Client) -> bool:
    # No public "the server hung up" signal; fastmcp's own StdioTransport reads this same
    # dispatcher flag (_is_session_dead) to notice a dead session, so we do as it does.
    return bool(getattr(client.session._dispatcher, "_closed", False))


def as_root(path: Path, form: str) -> str:
    """One root string: the path as the docs page shows it, or the platform's file URI."""
    return str(path) if form == "documented" else path.as_uri()


async def run(args: argparse.Namespace) -> None:
    workspace = args.workspace.resolve()
    roots = [as_root(workspace, args.roots_form)]
    # fastmcp's stdio transport. An application passes its server's configured environment;
    # the harness configures the peer through ours, so all of it is passed on.
    transport = StdioTransport(command=args.server[0], args=args.server[1:], env=dict(os.environ))
    # --no-roots passes no roots at all: fastmcp then registers no roots callback and the
    # underlying SDK's default answer to roots/list is what gets measured.
    client = Client(transport, roots=None if args.no_roots else roots)
    async with client:  # fastmcp's default mode="auto": server/discover, then initialize
        for tool in await client.list_tools():
            try:
                await client.call_tool(tool.name, {})
            except Exception as err:  # the server's answer is evidence, not our failure
                print(f"fastmcp host: tools/call {tool.name} failed: {err}", file=sys.stderr)
        signal = args.control / "add-root" if args.control and not args.no_roots else None
        while not connection_closed(client):
            if signal is not None and signal.exists():
                signal = None
                added = workspace / "added root ü"
                added.mkdir(parents=True, exist_ok=True)
                roots.append(as_root(added, args.roots_form))
                # fastmcp's API for changing roots, then its notification (set_roots says
                # it does not notify by itself).
                client.set_roots(list(roots))
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
            print(f"fastmcp host: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        # The server hanging up, even mid-request, is the normal end of a session.
        closed = all(getattr(leaf, "code", None) == CONNECTION_CLOSED for leaf in causes)
        return 0 if closed else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
