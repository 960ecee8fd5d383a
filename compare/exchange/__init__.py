"""Pipeline stage `exchange`: drive real MCP clients against a scripted peer and judge the wire.

Public names (``load_targets``, ``load_scenarios``, ``load_cells``, ``run_cells`` and the
types they return) are imported lazily: ``python -m compare.exchange.peer`` imports this
package first, and the peer must start as fast as a bare interpreter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compare.exchange._cells import (
        VERDICTS,
        Cell,
        CellResult,
        CellScan,
        Unreadable,
        load_cells,
        pinned_versions,
        plan_cells,
        scan_cells,
    )
    from compare.exchange._harness import RunSettings, run_cell, run_cells
    from compare.exchange._run import run, select, summary
    from compare.exchange._scenarios import Scenario, load_scenarios
    from compare.exchange._targets import Target, command_target, load_targets

_WHERE = {
    "Cell": "_cells",
    "CellResult": "_cells",
    "CellScan": "_cells",
    "Unreadable": "_cells",
    "VERDICTS": "_cells",
    "load_cells": "_cells",
    "pinned_versions": "_cells",
    "plan_cells": "_cells",
    "scan_cells": "_cells",
    "RunSettings": "_harness",
    "run_cell": "_harness",
    "run_cells": "_harness",
    "run": "_run",
    "select": "_run",
    "summary": "_run",
    "Scenario": "_scenarios",
    "load_scenarios": "_scenarios",
    "Target": "_targets",
    "command_target": "_targets",
    "load_targets": "_targets",
}

__all__ = [
    "VERDICTS",
    "Cell",
    "CellResult",
    "CellScan",
    "RunSettings",
    "Scenario",
    "Target",
    "Unreadable",
    "command_target",
    "load_cells",
    "load_scenarios",
    "load_targets",
    "pinned_versions",
    "plan_cells",
    "run",
    "run_cell",
    "run_cells",
    "scan_cells",
    "select",
    "summary",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"compare.exchange.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
