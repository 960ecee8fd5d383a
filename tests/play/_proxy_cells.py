"""Playing proxy cells for the real-proxy tests, and reading what a check rests on.

``test_real_proxies`` and ``clients/test_proxies_alone`` play different cells of the shipped
proxies through the real harness and then read the same things from them: the cell folder,
a check of its verdict, and the transcript lines the check names as its evidence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare import _paths
from compare._cores import default_jobs
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import load_targets
from compare.judge._transcript import Line, Transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

from .test_faults import _marked_processes

Key = tuple[str, str, str]


def play_proxy_cells(pinned_spec: Path, results: Path, keys: list[Key]) -> dict[str, Any]:
    """Play each (proxy target, scenario, revision) in ``keys`` into ``results``, two at a
    time, with the tools installed first; what the tests read of the run."""
    from compare.install import install_tools

    install_tools()
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    targets = {t.id: t for t in load_targets() if t.kind == "proxy"}
    scenarios = {s.id: s for s in load_scenarios()}
    cells = [Cell(targets[t], "default", scenarios[s], r) for t, s, r in keys]
    settings = RunSettings(
        results, spec_commit="test", known_revisions=revisions(), tools=_paths.tools_dir()
    )
    try:
        verdicts = run_cells(cells, settings, jobs=default_jobs())
    finally:
        mp.undo()
    return {
        "results": results,
        "targets": targets,
        "leftovers": _marked_processes(results),
        "by": {(v["target"], v["scenario"], v["revision"]): v for v in verdicts},
    }


def cell_folder(run: dict[str, Any], key: Key) -> Path:
    v = run["by"][key]
    return Path(run["results"]) / key[0] / v["target_version"] / key[1] / key[2]


def check(v: dict[str, Any], check_id: str) -> dict[str, Any]:
    return next(c for c in v["checks"] if c["id"] == check_id)


def evidence(tx: Transcript, one: dict[str, Any]) -> list[Line]:
    return [x for n in one["evidence"] if (x := tx.by_n(n)) is not None]
