"""The relay table: a proxy's check outcomes per scenario, revisions with equal outcomes merged."""

from __future__ import annotations

from pathlib import Path

from compare.site._cells import Cell, Check
from compare.site._links import Links
from compare.site._relay import relay_tables
from compare.site._symbols import SymbolUse


def _check(cid: str, outcome: str, verdict: str = "informational") -> Check:
    return Check(cid, verdict, "", "", "", (), (), title=cid.title(), outcome=outcome)


def _cell(scenario: str, revision: str, *checks: Check, current: bool = True) -> Cell:
    return Cell(
        rel=f"p/1/{scenario}/{revision}", folder=Path("/nowhere"), target="p", version="1",
        variant="", scenario=scenario, revision=revision, verdict="pass", reason="",
        checks=list(checks), data={}, current=current,
    )  # fmt: skip


def test_equal_revisions_share_a_column_and_a_change_opens_one() -> None:
    relayed, lost = _check("asks", "relayed", "pass"), _check("asks", "not-relayed", "fail")
    cells = [
        _cell("relay-roots", "2025-03-26", relayed, _check("declares", "same-as-host")),
        _cell("relay-roots", "2024-11-05", relayed, _check("declares", "same-as-host")),
        _cell("relay-roots", "2025-11-25", lost, _check("declares", "same-as-host")),
        _cell("relay-roots", "2025-06-18", lost, _check("declares", "same-as-host"), current=False),
        _cell("server-asks", "2025-11-25", relayed),  # not a proxy scenario
    ]
    (table,) = relay_tables(cells, {"relay-roots"})
    assert table.rows == [("asks", "Asks"), ("declares", "Declares")]
    assert [col.revisions for col in table.columns] == [
        ["2024-11-05", "2025-03-26"],
        ["2025-11-25"],
    ]
    assert table.columns[1].checks["asks"].outcome == "not-relayed"


def test_an_entry_links_to_its_check_with_the_outcome_as_text() -> None:
    links = Links(data=None, symbols=SymbolUse(), root="../")  # type: ignore[arg-type]
    cell = _cell("relay-roots", "2025-11-25")
    shown = links.check(cell, "list-changed", "not-passed-declared", "fail")
    assert shown.endswith("#check-list-changed)") and "not&#45;passed&#45;declared" in shown
    assert shown.startswith('[<span class="mc-b mc-verdict-fail">✘')
