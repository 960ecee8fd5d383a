"""The enforcement matrix: a server's probe tables folded into one grid per scenario."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare.site._cells import Cell
from compare.site._enforcement import enforcement_matrices
from compare.site._grid_html import enforcement_table
from compare.site._links import Links
from compare.site._symbols import SymbolUse


def _probe(op: str, place: str, result: str, expect: str, step: str = "probes") -> dict[str, Any]:
    return {
        "step": step, "operation": op, "place": place, "tool": f"{op}_file", "expect": expect,
        "result": result, "reply": "ok", "detail": "<b>x</b>", "effect": [], "evidence": [7, 8],
    }  # fmt: skip


def _cell(
    revision: str, probes: list[dict[str, Any]], scenario: str = "server-enforcement"
) -> Cell:
    return Cell(
        rel=f"srv/1/{scenario}/{revision}", folder=Path("/nowhere"), target="srv", version="1",
        variant="", scenario=scenario, revision=revision, verdict="pass", reason="", checks=[],
        data={"probes": probes}, current=True,
    )  # fmt: skip


GOOD = [
    _probe("read", "in-root", "allowed", "allowed"),
    _probe("read", "outside", "refused", "refused"),
]
LEAK = [
    _probe("read", "in-root", "allowed", "allowed"),
    _probe("read", "outside", "allowed", "refused"),
]


def test_revisions_with_equal_tables_share_one_matrix() -> None:
    cells = [_cell("2024-11-05", GOOD), _cell("2025-03-26", GOOD), _cell("2025-11-25", LEAK)]
    matrices = enforcement_matrices(cells)
    assert [m.revisions for m in matrices] == [["2024-11-05", "2025-03-26"], ["2025-11-25"]]
    good, leak = matrices
    assert good.columns == [("probes", "in-root"), ("probes", "outside")]
    assert good.rows == [("read", "read_file")]
    assert not any(h.unexpected for h in good.hits.values())
    hit = leak.hit("read", "probes", "outside")
    assert hit is not None and hit.unexpected and hit.evidence == (7, 8)


def test_cells_without_probes_or_not_current_make_no_matrix() -> None:
    old = _cell("2025-11-25", GOOD)
    old.current = False
    assert enforcement_matrices([old, _cell("2025-06-18", [])]) == []


def test_stale_tables_keep_one_column_per_step_and_place() -> None:
    probes = [
        _probe("read", "old", "allowed", "allowed", "before"),
        _probe("read", "old", "refused", "allowed", "removed"),
    ]
    (m,) = enforcement_matrices([_cell("2025-11-25", probes, "server-stale")])
    assert m.multi_step and m.columns == [("before", "old"), ("removed", "old")]


def test_a_refusal_outside_the_roots_reads_good_and_a_read_outside_reads_contrary() -> None:
    """Issue 25: a correct refusal outside the roots was red, the one real deviation (a read
    outside them) an ordinary green entry, and its bold was invisible in bold text."""
    links = Links(data=None, symbols=SymbolUse(), root="../")  # type: ignore[arg-type]
    probes = [*LEAK, _probe("list", "outside", "refused", "refused")]
    (m,) = enforcement_matrices([_cell("2025-11-25", probes)])
    table = enforcement_table(links, m)
    rows = {r.split("</th>")[0]: r for r in table.split("<tr>")[2:]}
    read = next(r for k, r in rows.items() if "read" in k)
    listing = next(r for k, r in rows.items() if "list" in k)
    assert 'class="mc-b mc-contrary mc-probe-allowed"' in read  # outlined, red, with a "!"
    assert '<span aria-hidden="true">!</span>' in read
    assert "contrary to expectation" in read  # said, not only shown
    assert 'class="mc-b mc-expected mc-probe-refused"' in listing  # a good refusal is green
    assert "../cells/" in read and "#probes" in read
    assert "expects refused" in table  # each place's header says what it expects
