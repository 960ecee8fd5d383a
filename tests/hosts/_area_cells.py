"""Play one area's client scenarios against a few real SDK hosts, for the tests that read each
verdict's evidence line (test_elicitation_cells, test_sampling_cells)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare import _paths
from compare._cores import default_jobs
from compare.exchange._scenarios import load_scenarios
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells
from compare.play._run import select

#: Four SDK hosts of three languages, two of them speaking 2026-07-28 and one not.
TARGETS = ["ts-sdk", "py-sdk", "go-sdk", "rust-sdk"]
REVISIONS = ["2025-11-25", "2026-07-28"]

Played = list[tuple[Cell, dict[str, Any], Path]]


def area_scenarios(prefix: str) -> list[str]:
    """The shipped client scenarios of an area (their ids start with its name)."""
    return sorted(s.id for s in load_scenarios() if s.id.startswith(prefix))


def play(pinned_spec: Path, results: Path, scenarios: list[str]) -> Played:
    """Every cell of ``scenarios`` for TARGETS at REVISIONS, played through the harness into
    ``results``: each cell with its verdict and its folder, in the order selected."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        cells, commit, known = select(targets=TARGETS, scenarios=scenarios, revisions=REVISIONS)
        settings = RunSettings(results, commit, known, tools=_paths.tools_dir())
        found = run_cells(cells, settings, jobs=default_jobs())
    by_key = {(v["target"], v["variant"], v["scenario"], v["revision"]): v for v in found}
    return [
        (c, by_key[(c.target.id, c.variant, c.scenario.id, c.revision)], c.folder(results))
        for c in cells
    ]


def outcomes(played: Played, scenario: str, check: str) -> dict[str, str]:
    """Each target's outcome of ``check`` in its played cells of ``scenario`` (the last
    revision's, when it played several)."""
    return {
        c.target.id: next(x["outcome"] for x in v["checks"] if x["id"] == check)
        for c, v, _ in played
        if c.scenario.id == scenario and v["verdict"] != "not-run"
    }
