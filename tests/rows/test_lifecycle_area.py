"""The lifecycle and versioning area (issue 24) is data on the existing harness: its rows read
checks that the handshake, version-window and mrtr cells already judge, and the common wire
checks every client cell carries. These tests hold it to what the issue asks of an area: at
least ten rows, at least 70 % of them computed from cells that at least five run
implementations play, and a diff section of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare._yaml import load_yaml
from compare.play._run import select
from compare.rows import area_files, compute, gather
from compare.rows._context import load_scenario_checks

from .test_real_area import _real_diff


def _area() -> dict[str, Any]:
    (path,) = [p for p in area_files() if p.name == "lifecycle.yaml"]
    data = load_yaml(path)
    assert isinstance(data, dict)
    return data


def test_rows_are_computed_from_cells_of_at_least_five_implementations() -> None:
    rows = _area()["rows"]
    assert len(rows) >= 10
    cells, _, _ = select()
    players: dict[str, set[str]] = {}
    for cell in cells:
        players.setdefault(cell.scenario.id, set()).add(cell.target.id)
    checks = load_scenario_checks()
    computed = []
    for row in rows:
        query = (row.get("status") or {}).get("query")
        if not query:
            continue
        wanted = query["check"] if isinstance(query["check"], list) else [query["check"]]
        assert set(wanted) <= checks[query["scenario"]], row["id"]
        if len(players.get(query["scenario"], set())) >= 5:
            computed.append(row["id"])
    assert len(computed) >= 0.7 * len(rows), computed


def test_common_wire_checks_are_queryable_per_scenario() -> None:
    """A row may ask how clients keep the base protocol in one scenario: the lint knows the
    common checks of the scenario's side, as a cell's verdict holds them."""
    checks = load_scenario_checks()
    assert {"wire-request-ids", "wire-notification-reply", "client-exit"} <= checks["handshake"]
    assert "wire-client-responses" in checks["mrtr"]


def test_its_diff_section_and_columns(isolated: Path) -> None:
    _real_diff()
    known = gather()
    assert known.diff is not None
    section = known.diff["areas"]["lifecycle"]
    revisions = section["items"]["InitializedNotification"]["revisions"]
    assert revisions["2025-11-25"]["present"] is True
    assert not (revisions.get("2026-07-28") or {}).get("present")
    discover = section["items"]["DiscoverRequest"]["revisions"]
    assert discover["2026-07-28"]["present"] is True
    assert not (discover.get("2025-11-25") or {}).get("present")
    doc = compute(area_files(), known, isolated / "results")
    (life,) = [a for a in doc["areas"] if a["area"] == "lifecycle"]
    assert all(r["where"]["computed"] for r in life["rows"])
    # Without results every run column says why it was not run, never a pass.
    for row in life["rows"]:
        for column in row["status"].values():
            assert column["state"] == "not-run", column
            assert column["reason"].startswith("not run, because")
