"""The golden cells judged again: real recordings, no program played (issue 37).

``tests/golden/cells.tar.xz`` holds a small set of real cells (``tests/golden_cells.py`` says
how they are chosen and recorded). Each is judged again here through the harness's own
re-judge path, with the current rules and grades, and what it reads — the cell's verdict and
each check's outcome and grade — is compared with ``tests/golden/cells.json``. A rule or a
grade that changes shows as a diff of that file (``pytest --update-golden
tests/test_golden_cells.py`` rewrites it without playing anything; ``make golden`` also plays
the cells again). The set itself is held to its promise: every target that plays is in it,
and every rule the shipped scenarios use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from golden_cells import ARCHIVE, rule_of_check, unpack

from compare.exchange._targets import load_targets
from compare.play._cells import DEFAULT_VARIANT
from compare.play._harness import RunSettings, run_cells
from compare.play._run import COMMAND_TARGETS, select


@pytest.fixture(scope="module")
def rejudged(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every golden cell judged again from its own files; key -> verdict."""
    results = tmp_path_factory.mktemp("golden-cells") / "results"
    folders = unpack(results)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        cells, commit, known = select()
        wanted = {f.relative_to(results) for f in folders}
        chosen = [c for c in cells if c.folder(results).relative_to(results) in wanted]
        settings = RunSettings(results, commit, known, rejudge=True)
        verdicts = run_cells(chosen, settings)
    found = {c.folder(results).relative_to(results) for c in chosen}
    return {"missing": sorted(str(w) for w in wanted - found), "verdicts": verdicts}


def _key(verdict: dict[str, Any]) -> str:
    variant = verdict.get("variant")
    variant = f"~{variant}" if variant and variant != DEFAULT_VARIANT else ""
    return f"{verdict['target']}/{verdict['scenario']}/{verdict['revision']}{variant}"


def test_every_golden_cell_is_a_cell_of_the_pinned_targets(rejudged: dict[str, Any]) -> None:
    """A golden cell of a version no target file pins any more is stale: record them again."""
    assert rejudged["missing"] == [], "stale golden cells: run `make golden`"
    assert len(rejudged["verdicts"]) >= 50


def test_golden_cells_judge_as_recorded(rejudged: dict[str, Any], golden: Any) -> None:
    """What each cell reads now, check by check, against ``tests/golden/cells.json``."""
    book = golden("cells")
    for verdict in rejudged["verdicts"]:
        assert verdict.get("rejudged_at"), (_key(verdict), verdict.get("reason"))
        checks = {
            str(c["id"]): f"{c.get('outcome')} {c['verdict']}" for c in verdict.get("checks") or []
        }
        book.expect(_key(verdict), {"verdict": verdict["verdict"], "checks": checks})


def test_the_set_holds_every_target_and_every_rule(rejudged: dict[str, Any]) -> None:
    """Every target that plays has a golden cell, and every rule a shipped scenario (or a
    common wire check) uses is judged in one: a new target or rule means picking again."""
    verdicts = rejudged["verdicts"]
    # the command targets stand for a user's own program: nothing of theirs is recorded
    targets = {t.id for t in load_targets() if not t.raw.get("not_run")} - set(COMMAND_TARGETS)
    assert targets - {v["target"] for v in verdicts} == set(), (
        "targets without a golden cell: `tests/golden_cells.py pick --from results`"
    )
    rules = rule_of_check()
    judged = {rules[(v["scenario"], c["id"])] for v in verdicts for c in v.get("checks") or []}
    assert set(rules.values()) - judged == set(), (
        "rules no golden cell judges: `tests/golden_cells.py pick --from results`"
    )
    assert ARCHIVE.stat().st_size < 2_000_000  # the set stays small
