"""The scripted MCP server a client launches: plays a plan, records every byte, judges nothing.

The harness runs it by folder: ``python -I -S .../compare/peer --plan PLAN.json``
(``__main__.py``), so it never imports ``compare`` or anything outside the standard library
and starts about as fast as a bare interpreter; ``python -m compare.peer --plan …``
and ``mcp-compare peer --plan …`` run the same code. All validation and judging happen later,
in the harness, from the transcript this writes.

Wire: newline-delimited JSON-RPC on stdin/stdout. Every line read or written goes to
``transcript.jsonl`` as soon as it is seen (``_record``); the peer answers requests and plays
the plan's steps (``_serve``); every wait is bounded by the plan and a watchdog ends the
process at the plan's hard deadline whatever the client does (``_main``). ``_era`` holds the
one era test, which the judge imports from here.
"""

from __future__ import annotations

from ._era import CELL_ENV, META_VERSION, is_modern
from ._main import main, run

__all__ = ["CELL_ENV", "META_VERSION", "is_modern", "main", "run"]
