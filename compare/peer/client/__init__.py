"""The scripted MCP client: the peer's mirror image, for measuring servers.

It starts the server command a plan names, performs the handshake declaring the client
features of the plan's ``features`` (roots, elicitation, sampling: the host plan's shape, see
``_features``), answers the server's requests for them (plain, or embedded in an
``InputRequiredResult`` from 2026-07-28 on) and plays the plan's steps (await a server
request, call a method, call a tool, change the roots, notify, observe). Like
the peer it judges nothing and imports only the standard library: every line both ways goes
to ``transcript.jsonl`` through the peer's own recorder (``in`` is server → us, ``out`` is us
→ server, so the judge reads the target's lines as ``in`` on either side), and ``done.json``
says why it stopped.

It lives inside the peer's folder so that both ways of starting it (``python -I -S
.../peer/client --plan …`` and ``python -m compare.peer.client``) reach the recorder
by the same relative import.
"""

from __future__ import annotations

from ._main import main, run

__all__ = ["main", "run"]
