"""The lifecycle and versioning area (issue 24) is data on the existing harness: its rows read
checks that the handshake, version-window and mrtr cells already judge, and the common wire
checks every client cell carries. Its diff section and the common checks are tested here;
the ten-row, 70 % rule with the other measured areas (test_measured_areas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare._yaml import load_yaml
from compare.rows import area_files, compute, gather
from compare.rows._context import load_scenario_checks

from .test_measured_areas import assert_computed_and_not_run
from .test_real_area import _real_diff


def _area() -> dict[str, Any]:
    (path,) = [p for p in area_files() if p.name == "lifecycle.yaml"]
    data = load_yaml(path)
    assert isinstance(data, dict)
    return data


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
    assert_computed_and_not_run(life)
