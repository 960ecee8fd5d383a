"""The elicitation, lifecycle, logging and sampling areas (issue 24) are data: client and
server scenarios, host variants and the generic rules. Each is held to what the issue asks of
an area: at least ten rows, at least 70 % of them computed from cells that at least five run
implementations play
(the rest cited from the spec), a diff section of its own whose items appear where the spec
says, and a column per run implementation that says "not run, because …" when there are no
results."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare.exchange._scenarios import load_scenarios
from compare.play._run import select
from compare.rows import area_files, compute, gather, load_yaml
from compare.rows._context import load_scenario_checks

from .test_real_area import _real_diff


def _rows(area: str) -> list[dict[str, object]]:
    (path,) = [p for p in area_files() if p.name == f"{area}.yaml"]
    data = load_yaml(path)
    assert isinstance(data, dict)
    return list(data["rows"])


@pytest.mark.parametrize("area", ["elicitation", "lifecycle", "logging", "sampling"])
def test_rows_are_computed_from_cells_of_at_least_five_implementations(area: str) -> None:
    rows = _rows(area)
    assert len(rows) >= 10
    cells, _, _ = select()
    players: dict[str, set[str]] = {}
    for cell in cells:
        if cell.not_run_reason() is None:
            players.setdefault(cell.scenario.id, set()).add(cell.target.id)
    checks = load_scenario_checks()
    computed, cited = [], []
    for row in rows:
        status = row.get("status") or {}
        assert isinstance(status, dict)
        query = status.get("query")
        if not query:
            assert row.get("sources"), row["id"]
            cited.append(row["id"])
            continue
        wanted = query["check"] if isinstance(query["check"], list) else [query["check"]]
        assert set(wanted) <= checks[query["scenario"]], row["id"]
        if len(players.get(query["scenario"], set())) >= 5:
            computed.append(row["id"])
    assert len(computed) >= 0.7 * len(rows), computed
    assert len(computed) + len(cited) == len(rows)


def test_a_scenario_that_sets_the_answer_is_not_played_by_a_client_run_as_it_is() -> None:
    cells, _, _ = select(scenarios=["elicitation-decline"])
    reasons = {c.target.id: c.not_run_reason() for c in cells if c.revision == "2025-11-25"}
    assert reasons["ts-sdk"] is None
    assert reasons["claude-code"] is not None
    assert reasons["claude-code"].startswith("not run, because Claude Code is run as it is")
    (decline,) = [s for s in load_scenarios() if s.id == "elicitation-decline"]
    assert decline.requires == ["host_plan"]


def test_its_diff_section_and_columns(isolated: Path) -> None:
    _real_diff()
    known = gather()
    assert known.diff is not None
    items = known.diff["areas"]["elicitation"]["items"]
    _first_at(items, "ElicitRequest", "2025-06-18", "2025-03-26")
    _first_at(items, "ElicitRequestURLParams", "2025-11-25", "2025-06-18")
    doc = compute(area_files(), known, isolated / "results")
    (eli,) = [a for a in doc["areas"] if a["area"] == "elicitation"]
    assert_computed_and_not_run(eli)


def assert_computed_and_not_run(area: dict[str, Any]) -> None:
    """Every row's where is computed, and without results every run column says why it was
    not run, never a pass; a cited column (mcpx, lootbox) reads cited, from its citations or
    saying it has none for the row, whatever was run."""
    assert all(r["where"]["computed"] for r in area["rows"])
    for row in area["rows"]:
        for column in row["status"].values():
            assert column["reason"].startswith("not run, because")
            if column["state"] == "cited":
                assert column["cited_state"] == "unknown" or column["sources"], column
                continue
            assert column["state"] == "not-run", column


def test_the_logging_diff_section(isolated: Path) -> None:
    _real_diff()
    known = gather()
    assert known.diff is not None
    items = known.diff["areas"]["logging"]["items"]
    _first_at(items, "SetLevelRequest", "2024-11-05")
    _first_at(items, "RequestMetaObject", "2026-07-28", "2025-11-25")


def _first_at(items: dict[str, Any], item: str, at: str, before: str | None = None) -> None:
    """``item`` of an area's diff section is present at revision ``at`` and not at ``before``."""
    revisions = items[item]["revisions"]
    assert revisions[at]["present"] is True, (item, at)
    if before is not None:
        assert not (revisions.get(before) or {}).get("present"), (item, before)
