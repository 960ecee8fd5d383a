"""The two entry points the CLI calls: lint only, or lint + compute + write ``rows.json``.

Both verify every citation once (area files and, for the shipped areas, the scenarios' refs)
and can write ``build/citations.json`` from that one pass, so ``cite --check`` after them
reads the record back instead of verifying again (see ``_citecheck``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare._atomic import write_json
from compare._paths import build_dir
from compare.rows._citecheck import check_citations
from compare.rows._compute import compute
from compare.rows._context import Known, gather
from compare.rows._evidence import Report
from compare.rows._lint import lint_areas
from compare.rows._load import Issue


def lint_all(
    files: list[Path] | None = None, known: Known | None = None, write_citations: bool = False
) -> list[Issue]:
    """Every lint issue in every area file (empty list: clean).

    With ``write_citations`` the scenarios' refs are verified too and ``build/citations.json``
    is written (what ``rows --lint`` does); otherwise only the area files' citations are read.
    """
    report = _citations(files, write_citations)
    linted = lint_areas(files, known or gather(), report)
    return [issue for one in linted for issue in one.issues]


def write_rows(files: list[Path] | None = None, known: Known | None = None) -> dict[str, Any]:
    """Compute the rows and write ``build/rows.json`` and ``build/citations.json`` atomically;
    returns the rows document."""
    document = compute(files, known, citations=_citations(files, True))
    write_json(build_dir() / "rows.json", document)
    return document


def _citations(files: list[Path] | None, write: bool) -> Report:
    scenarios = None if write else False
    return check_citations(files, scenarios=scenarios, write=write, skip_unreadable=True)


def earned(results: Path | None = None) -> tuple[int, list[str]]:
    """``rows --earned``: how many current cells read pass, and every one of them that rests
    on no check that could have failed (issue 36: must be none)."""
    from compare._paths import results_dir
    from compare.rows._cells import read_cells
    from compare.rows._findings import hollow_passes, wire_checks

    known = gather()
    cells = read_cells(results or results_dir(), known.pinned)
    return hollow_passes(cells, known.grades, wire_checks())


def findings(results: Path | None = None) -> list[dict[str, Any]]:
    """``rows --findings``: every fail and non-strict group of the current cells, with the
    sentence it cites and the transcript line behind it."""
    from compare._paths import results_dir
    from compare.rows._cells import read_cells
    from compare.rows._findings import findings_table

    known = gather()
    return findings_table(read_cells(results or results_dir(), known.pinned))
