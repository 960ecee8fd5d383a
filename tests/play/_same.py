"""Comparing two result trees cell by cell, leaving out what differs between any two runs.

Two serial runs of the same cells already differ in: wall-clock fields (``started_at``,
``duration_s``, ``client_s``, times quoted in reasons), the cell's temporary folder (in the
workspace root's URI), the random ``requestState`` token, and the transcript line numbers of
``evidence`` (a peer's step note and the client's line can land in either order), and how
many lines (and requests or notifications) the wire checks counted: the peer closes as soon
as the cell's outcome is decided, so what a client writes after that may or may not be read
first (the checks' outcomes are
still compared). Likewise how a client the harness ends came to stop: it may see the
peer close and exit by itself just before the harness's SIGTERM reaches it, so the process's
exit code and ``ended_by`` are left out and the ``client-exit`` check is compared by its
verdict and outcome. What is compared is everything else a later stage reads: the set of
files per cell, the keys, the verdict and reason, each check's id, verdict, outcome and
reason, and what the client said it was.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_VOLATILE = [
    (re.compile(r"t=\d+(\.\d+)? s"), "t=<s> s"),
    (re.compile(r"/tmp/mcpc-[0-9a-f]+-[A-Za-z0-9_]+"), "<cell-tmp>"),
    (re.compile(r"mcpc1\.[A-Za-z0-9_-]+\+/="), "<request-state>"),
    (re.compile(r"\(\d+ line\(s\)( parsed)?\)"), "(<n> line(s)\\1)"),
    # the hygiene checks count what the client wrote, which the early close may cut
    (re.compile(r"\b\d+ (request|notification|progress notification)\(s\)"), "<n> \\1(s)"),
    # wire-valid counts the messages it validated, which the early close may cut too
    (re.compile(r"\b\d+ (of \d+ )?message\(s\)"), "<n> message(s)"),
]


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    for pattern, stand_in in _VOLATILE:
        value = pattern.sub(stand_in, value)
    return value


def cell_facts(folder: Path) -> dict[str, Any]:
    """What must be equal between two runs of one cell."""
    verdict = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    return {
        "files": sorted(p.name for p in folder.iterdir()),
        **{
            k: verdict.get(k)
            for k in (
                "target",
                "target_version",
                "variant",
                "scenario",
                "revision",
                "key",
                "play_key",
                "verdict",
                "client_info",
                "negotiated_revision",
            )
        },
        "reason": _text(verdict.get("reason")),
        "checks": [
            {
                k: _text(c.get(k))
                for k in ("id", "verdict", "outcome", "reason")
                if not (k == "reason" and c.get("id") == "client-exit")
            }
            for c in verdict.get("checks") or []
        ],
    }


def tree_facts(results: Path) -> dict[str, dict[str, Any]]:
    """Every cell under ``results`` (relative folder -> facts); staging folders excluded."""
    return {
        path.parent.relative_to(results).as_posix(): cell_facts(path.parent)
        for path in sorted(results.glob("*/*/*/*/verdict.json"))
        if not any(p.startswith(".") or ".old-" in p for p in path.parts[-5:-1])
    }
