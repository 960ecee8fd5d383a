"""The fixed smoke set of real-program cells (``tests/smoke.yaml``), for the tests that play.

Real programs are played in the tests once per *mechanism* (answering a server request, an
embedded request, notifying, ...), named in ``tests/smoke.yaml``; everything else they do is
kept by the golden cells and by ``mcp-compare compare --replay``. So the suite's cost stays
flat as areas are added.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from compare._yaml import load_yaml

SMOKE = Path(__file__).resolve().parent / "smoke.yaml"


@cache
def mechanisms(side: str) -> dict[str, dict[str, Any]]:
    """The mechanisms of ``side`` (client, server, proxy): name -> {scenario, revisions}."""
    data = load_yaml(SMOKE)
    assert isinstance(data, dict)
    return dict(data.get(side) or {})


def pairs(side: str) -> set[tuple[str, str]]:
    """(scenario, revision) of every smoke cell of ``side``."""
    return {(str(m["scenario"]), str(r)) for m in mechanisms(side).values() for r in m["revisions"]}


def scenarios(side: str) -> list[str]:
    return sorted({s for s, _ in pairs(side)})


def revisions(side: str) -> list[str]:
    return sorted({r for _, r in pairs(side)})


def spread(side: str, targets: list[str], *only: str) -> list[tuple[str, str, str]]:
    """(target, scenario, revision) cells in which each of ``targets`` plays each mechanism of
    ``side`` (or of ``only``) once: mechanism ``j``'s revisions are handed to the targets in
    turn, starting ``j`` places on, so every revision of a mechanism is played by some target
    (when there are as many targets) and a target meets a mechanism's revisions in turn."""
    cells = []
    chosen = [(n, m) for n, m in mechanisms(side).items() if not only or n in only]
    assert chosen and all(n in dict(chosen) for n in only), (side, only)
    for j, (_name, m) in enumerate(chosen):
        revs = [str(r) for r in m["revisions"]]
        for i, target in enumerate(sorted(targets)):
            cells.append((target, str(m["scenario"]), revs[(i + j) % len(revs)]))
    return cells
