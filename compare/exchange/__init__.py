"""Pipeline stage `exchange`: drive real MCP clients against a scripted peer and judge the wire.

Public names: ``load_targets``, ``load_scenarios``, ``load_cells``, ``run_cells`` and the types
they return, the verdict vocabulary (``VERDICTS``, ``SEVERITY``, ``VERDICT_SYMBOLS``), how
many plays a stored verdict holds (``play_count``) and the transcript reader
(``read_records``, ``read_transcript``). The peer (``compare/exchange/peer/``) is launched by
folder and never imports this package, so nothing here needs to be lazy.
"""

from __future__ import annotations

from compare.exchange._cells import (
    Cell,
    CellResult,
    CellScan,
    Unreadable,
    load_cells,
    pinned_versions,
    plan_cells,
    scan_cells,
    version_key,
)
from compare.exchange._harness import RunSettings, run_cell, run_cells
from compare.exchange._plays import count as play_count
from compare.exchange._refs import scenario_files, scenario_refs
from compare.exchange._run import run, select, summary
from compare.exchange._scenarios import Scenario, common_checks, load_scenarios
from compare.exchange._targets import Target, command_target, load_targets
from compare.exchange._transcript import Record, Records, Transcript, read_records, read_transcript
from compare.exchange._verdicts import SEVERITY, VERDICT_SYMBOLS, VERDICTS, severity, worst

__all__ = [
    "SEVERITY",
    "VERDICTS",
    "VERDICT_SYMBOLS",
    "Cell",
    "CellResult",
    "CellScan",
    "Record",
    "Records",
    "RunSettings",
    "Scenario",
    "Target",
    "Transcript",
    "Unreadable",
    "command_target",
    "common_checks",
    "load_cells",
    "load_scenarios",
    "load_targets",
    "pinned_versions",
    "plan_cells",
    "play_count",
    "read_records",
    "read_transcript",
    "run",
    "run_cell",
    "run_cells",
    "scan_cells",
    "scenario_files",
    "scenario_refs",
    "select",
    "severity",
    "summary",
    "version_key",
    "worst",
]
