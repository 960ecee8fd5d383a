"""The plan of a server cell: what the scripted client starts, declares, lists and plays.

Kept beside the harness rather than in it: a server cell differs from a client cell only in
who is launched (our scripted client, which launches the target's server command) and in
what the plan says, so the harness asks this module for both and runs the cell as usual.
The root folders are created here, inside the cell's workspace, so a server is only ever
pointed at the cell's own temporary folder.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from compare.exchange._targets import Expansion
from compare.peer.client._features import declared
from compare.play._cells import Cell
from compare.play._fixture import (
    build_fixture,
    build_sources,
    folder_files,
    located,
    not_created,
    probe_places,
)

HERE = Path(__file__).resolve().parent
#: The scripted client: a folder with a ``__main__.py`` inside the peer's folder.
CLIENT_DIR = HERE.parent / "peer" / "client"
CLIENT_VERSION = "0.1.0"


def client_argv(plan_path: Path) -> list[str]:
    """How the harness starts the scripted client: isolated, without site, by folder."""
    return [sys.executable, "-I", "-S", str(CLIENT_DIR), "--plan", str(plan_path)]


def _folders(cell: Cell, workspace: Path) -> dict[str, dict[str, str]]:
    """Create every folder the scenario names; name -> the root the client lists for it.

    A root given as an object (``{uri: ...}``: a bad root a scenario sends on purpose) is
    listed as written and needs no folder; a fixture file or ``absent`` name (a file as a
    root, a root naming a missing folder) is listed but not made a folder.
    """
    spec = cell.scenario.raw.get("client_roots") or {}
    keep = not_created(cell.scenario.raw.get("fixture"))
    names = [*spec.get("roots", []), *spec.get("folders", [])]
    for step in cell.scenario.steps:
        names += step.get("set_roots", [])
    out: dict[str, dict[str, str]] = {}
    for name in dict.fromkeys(n for n in names if isinstance(n, str)):
        folder = Path(located(workspace, name))
        if name not in keep:
            folder.mkdir(parents=True, exist_ok=True)
        # pathlib percent-encodes the space, '#' and 'é' of the workspace's name; a nested
        # folder (deep/other) is named by its base name, as the scripted client lists it
        out[name] = {"uri": folder.as_uri(), "name": folder.name}
    return out


def features(cell: Cell, workspace: Path) -> dict[str, Any]:
    """The client features the scripted client declares and answers, in the host plan's shape
    (``peer/client/_features``): roots from ``client_roots`` (folders by path, a bad root as
    its object), the rest from ``client_features`` as written."""
    spec = cell.scenario.raw.get("client_roots") or {}
    out: dict[str, Any] = dict(cell.scenario.raw.get("client_features") or {})
    capability = spec.get("capability")
    if capability is not None:
        roots: dict[str, Any] = {}
        if "listChanged" in capability:
            roots["list_changed"] = bool(capability["listChanged"])

        def entry(name: Any) -> Any:
            return located(workspace, name) if isinstance(name, str) else name

        roots["folders"] = [entry(n) for n in spec.get("roots", [])]
        roots["named"] = {n: entry(n) for n in _folders(cell, workspace)}
        out = {"roots": roots, **out}
    return out


def server_plan(
    cell: Cell, exp: Expansion, wire_version: str, first_modern: str | None
) -> dict[str, Any]:
    """The scripted client's plan for ``cell``; the server's argv is the target's launch line.
    ``first_modern`` is the pins' era boundary: from it on the client opens with
    ``server/discover`` and carries ``_meta`` on every request instead of ``initialize``."""
    spec = cell.scenario.raw.get("client_roots") or {}
    probe = cell.scenario.raw.get("probe")
    # the fixture first: a root may name one of its links, which must not become a folder
    build_fixture(cell.scenario.raw.get("fixture"), exp.workspace)
    build_sources(probe, exp.workspace)
    wanted = features(cell, exp.workspace)
    step_max = sum(_step_bound(s, probe) for s in cell.scenario.steps)
    # A server that starts something slow on its first tool call (a browser) names a longer
    # bound for that one call; absent, the plan carries no such key and is what it was.
    first_call = cell.target.raw.get("first_call_s")
    extra: dict[str, Any] = {} if first_call is None else {"first_call_s": float(first_call)}
    # A pause before notifications/initialized, only where the scenario names one.
    delay = cell.scenario.raw.get("initialized_delay_s")
    if delay is not None:
        extra["initialized_delay_s"] = float(delay)
        step_max += float(delay)
    step_max += float(first_call or 0)
    return {
        "format": 1,
        "side": "client",
        "scenario": cell.scenario.id,
        "revision": cell.revision,
        "wire_version": wire_version,
        # a version the scenario proposes instead of the cell's (a server's answer to a
        # version it cannot know); absent, initialize proposes wire_version
        "propose_version": cell.scenario.raw.get("propose_version"),
        "first_modern": first_modern,
        "target": cell.target.id,
        "variant": cell.variant,
        "workspace": str(exp.workspace),
        "server_argv": exp.argv(cell.target.argv),
        "server_cwd": str(exp.workspace),
        # what the client declares and answers; the three keys after it are the same facts
        # as the judge reads them (declared capabilities, folder name -> root, root names)
        "features": wanted,
        "capabilities": declared(wanted),
        "client_info": {"name": "mcp-compare-client", "version": CLIENT_VERSION},
        "folders": _folders(cell, exp.workspace),
        "roots": list(spec.get("roots", [])),
        "probe": None
        if probe is None
        else {
            "operations": probe.get("operations", {}),
            "places": probe_places(probe, exp.workspace),
            "baseline": probe.get("baseline"),
            # plan.json is written with sorted keys: the scenario's order travels apart
            "operation_order": list(probe.get("operations", {})),
            "place_order": list(probe.get("places", {})),
        },
        "fixture": str(exp.workspace) if cell.scenario.raw.get("fixture") else None,
        # what each fs mkdir step puts in its new folder: the fixture folders' files
        "fixture_files": {
            str(s["fs"]["mkdir"]): folder_files(str(s["fs"]["mkdir"]))
            for s in cell.scenario.steps
            if "mkdir" in (s.get("fs") or {})
        },
        "steps": cell.scenario.steps,
        "init_timeout_s": 10,
        "shutdown_s": 2,
        "transcript": "transcript.jsonl",
        "done": "done.json",
        "server_stderr": "server.stderr",
        "max_line_bytes": 1 << 20,
        "max_lines": 20000,
        "hard_deadline_s": min(cell.target.timeout_s - 2, step_max + 20),
        **extra,
    }


def _step_bound(step: dict[str, Any], probe: dict[str, Any] | None) -> float:
    """The longest a step may take: a probe step is one bounded call per operation × place,
    plus each operation's setup calls (made at most once per cell, counted in every step)."""
    if "observe_s" in step:
        return float(step["observe_s"])
    timeout = float(step.get("timeout_s", 10))
    if "race" in step:
        race = step["race"]
        return (timeout + float(race.get("spread_ms", 0)) / 1000) * int(race["attempts"])
    if "probe" in step and probe is not None:
        places = step["probe"].get("places") or list(probe.get("places", {}))
        operations = step["probe"].get("operations") or list(probe.get("operations", {}))
        specs = probe.get("operations", {})
        setups = sum(len((specs.get(op) or {}).get("setup") or []) for op in operations)
        return timeout * (len(places) * len(operations) + setups)
    return timeout
