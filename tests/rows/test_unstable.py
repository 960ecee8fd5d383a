"""A row over a cell whose plays differed (``unstable``, issue 21) says so: it never reads
supported or not-supported from such a cell, whether the row's own check differed or
another check of the cell did."""

from __future__ import annotations

import json
from pathlib import Path

from _revisions import revisions

from compare.rows import STATE_LABELS, STATE_PROMISES
from compare.site._symbols import SYMBOLS

from .test_compute import cell, run, status_of

FOUR = revisions()[:4]


def _plays(folder: Path, verdicts: list[str]) -> None:
    """Give a crafted cell a ``plays`` list (what ``--repeat`` writes)."""
    path = folder / "verdict.json"
    data = json.loads(path.read_text())
    data["plays"] = [
        {"play": n, "verdict": v, "transcript": "transcript.jsonl" if n == 1 else f"plays/{n}/t"}
        for n, v in enumerate(verdicts, start=1)
    ]
    path.write_text(json.dumps(data))


def test_a_row_over_a_cell_whose_check_differed_reads_unstable(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    flaky = cell(results, "codex", "0.171.0", FOUR[0], [("answered", "unstable")], "unstable")
    _plays(flaky, ["pass", "fail"])
    cell(results, "codex", "0.171.0", FOUR[1], [("answered", "pass")])
    doc = run(tmp_path, results)
    column = status_of(doc, "codex")
    assert column["state"] == "unstable"
    assert column["label"] == "unstable in 1 of 2 cells (the rest: supported)"
    warned = [i for i in doc["issues"] if i["where"] == "ROOT-01/status/codex"]
    assert warned and "computed status is unstable" in warned[0]["message"]
    assert (column["unstable"], column["judged_state"]) == (1, "supported")
    entry = column["revisions"][FOUR[0]]
    assert entry["verdict"] == "unstable" and entry["plays"] == 2


def test_a_stable_check_in_an_unstable_cell_does_not_read_supported(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    checks = [("answered", "fail"), ("wire-ids", "unstable")]
    flaky = cell(results, "codex", "0.171.0", FOUR[0], checks, "unstable", reason="differed")
    _plays(flaky, ["fail", "fail", "unstable"])
    column = status_of(run(tmp_path, results), "codex")
    assert column["state"] == "unstable"  # never not-supported from an unstable cell
    assert column["revisions"][FOUR[0]]["cell_verdict"] == "unstable"
    assert column["reason"] == "differed"


def test_an_error_outranks_unstable(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", FOUR[0], [("answered", "unstable")], "unstable")
    cell(results, "codex", "0.171.0", FOUR[1], [("answered", "error")], "error")
    column = status_of(run(tmp_path, results), "codex")
    assert column["state"] == "error" and (column["errors"], column["unstable"]) == (1, 1)


def test_unstable_has_a_label_a_promise_and_a_symbol() -> None:
    assert STATE_LABELS["unstable"] == "unstable"
    assert "differed between plays" in STATE_PROMISES["unstable"]
    assert SYMBOLS["status"]["unstable"][0] == SYMBOLS["verdict"]["unstable"][0] == "↯"
