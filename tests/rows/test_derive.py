"""The derived "how a server uses roots" row on constructed cells: every category its data
names is reachable, a server without usable cells is not run, and facts no category fits say
so. The categories are ROOT-20's own (read from the shipped area file), so a change to their
conditions is tested here as shipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare._yaml import load_yaml
from compare.rows._cells import Cell, Cells
from compare.rows._context import Known
from compare.rows._derive import FACTS, derived_column, pick, server_facts
from compare.rows._lint import lint_derive

AREA = Path(__file__).resolve().parents[2] / "compare" / "rows" / "areas" / "roots.yaml"
WRITES = {"server-enforcement": {"write", "create", "move"}}


@pytest.fixture(scope="module")
def derive() -> dict[str, Any]:
    rows = load_yaml(AREA)["rows"]
    return next(r for r in rows if r["id"] == "ROOT-20")["status"]["derive"]


def _probe(op: str, result: str, expect: str = "refused", step: str = "probes") -> dict[str, Any]:
    return {"step": step, "operation": op, "place": "outside", "expect": expect, "result": result}


def _cell(
    scenario: str = "server-enforcement",
    probes: tuple[dict[str, Any], ...] = (),
    checks: dict[str, dict[str, Any]] | None = None,
    verdict: str = "informational",
    target: str = "srv",
) -> Cell:
    return Cell(
        path=Path(f"/r/{target}/1/{scenario}/2025-11-25"), target=target, version="1",
        variant=None, scenario=scenario, revision="2025-11-25", verdict=verdict, reason="",
        checks=checks or {}, current=True, probes=probes,
    )  # fmt: skip


def _enforcement(reads: str, writes: str, asked: bool = True, adopted: bool = True) -> Cell:
    outcome = "allowed" if "allowed" in (reads, writes) else "refused"
    checks = {"outside": {"verdict": "pass", "outcome": outcome if asked else "never-asked"}}
    if not adopted:
        checks["adopted"] = {"verdict": "non-strict", "outcome": "not-adopted"}
    probes = (
        _probe("read", reads), _probe("list", reads), _probe("write", writes),
        _probe("read", "allowed", expect="allowed"),  # inside the roots: never counted
        _probe("read", "allowed", step="other"),  # another step: not the one the row reads
    )  # fmt: skip
    return _cell(probes=probes, checks=checks)


def _several(first: str, second: str) -> Cell:
    checks = {"first-root": {"outcome": first}, "second-root": {"outcome": second}}
    return _cell(scenario="server-several-roots", checks=checks)


def _column(derive: dict[str, Any], *cells: Cell) -> dict[str, Any]:
    return derived_column(derive, "srv", "1", Cells(list(cells)), WRITES, str)


@pytest.mark.parametrize(
    ("cells", "value"),
    [
        ((_enforcement("refused", "refused"),), "enforces"),
        ((_enforcement("refused", "allowed"),), "reads-not-writes"),
        ((_enforcement("allowed", "allowed"),), "default-folder"),
        ((_enforcement("allowed", "refused"),), "default-folder"),
        ((_enforcement("allowed", "allowed", asked=False),), "ignores"),
        ((_enforcement("allowed", "allowed", adopted=False),), "adopts-none"),
        ((_enforcement("refused", "refused"), _several("allowed", "refused")), "first-root-only"),
        ((_enforcement("refused", "refused"), _several("allowed", "allowed")), "enforces"),
    ],
)
def test_every_category_is_reachable(
    derive: dict[str, Any], cells: tuple[Cell, ...], value: str
) -> None:
    column = _column(derive, *cells)
    assert (column["state"], column["value"]) == ("observed", value), column["reason"]
    assert column["evidence"] == [str(c.path) for c in cells]


def test_categories_cover_every_category_named(derive: dict[str, Any]) -> None:
    reached = {
        "adopts-none",
        "enforces",
        "reads-not-writes",
        "default-folder",
        "ignores",
        "first-root-only",
    }
    assert {c["id"] for c in derive["categories"]} == reached


def test_the_reason_counts_what_the_word_rests_on(derive: dict[str, Any]) -> None:
    column = _column(derive, _enforcement("refused", "allowed"))
    assert "read-like probes 2 refused" in column["reason"]
    assert "write probes 1 allowed" in column["reason"]
    assert column["facts"]["outside_writes"] == "allowed"


def test_no_usable_cell_is_not_run(derive: dict[str, Any]) -> None:
    assert _column(derive)["state"] == "not-run"
    broken = _column(derive, _cell(verdict="error"))
    assert broken["state"] == "not-run" and "1 ended in error" in broken["reason"]
    assert broken["reason"].startswith("not run, because")
    nothing = derived_column(derive, "srv", None, Cells([]), WRITES, str)
    assert nothing["reason"] == "not run, because there are no results for srv at all"


def test_facts_no_category_fits_say_so(derive: dict[str, Any]) -> None:
    # asked, but no probe outside was answered at all (none/none): no category claims it
    column = _column(derive, _cell(checks={"outside": {"outcome": "no-file-tools"}}))
    assert column["label"] == "no category fits" and column["value"] is None
    assert "no category's condition holds" in column["reason"]


def test_facts_take_only_their_values() -> None:
    facts = server_facts([_enforcement("refused", "allowed")], [], {"step": "probes"}, {"write"})
    for name, values in FACTS.items():
        assert facts[name] in values, name
    assert pick([{"id": "x", "label": "x", "when": [{"asked": False}]}], facts) is None


def test_the_lint_refuses_unknown_facts_values_and_scenarios(derive: dict[str, Any]) -> None:
    known = Known(scenarios={"server-enforcement": {"outside"}})
    assert lint_derive(derive, "ROOT-20/status/derive", "roots.yaml", known) == []
    bad = {
        "from": {"enforcement": {"scenario": "nope"},
                 "several": {"scenario": "server-enforcement", "first": "a", "second": "outside"}},
        "categories": [
            {"id": "x", "label": "x", "when": [{"asks": True, "outside_reads": "some"}]}
        ],
    }  # fmt: skip
    said = [i.message for i in lint_derive(bad, "R/status/derive", "roots.yaml", known)]
    assert said == [
        "unknown scenario 'nope'",
        "no check 'a'",
        "no fact 'asks'",
        "outside_reads is never 'some'",
    ]
