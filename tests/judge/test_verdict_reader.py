"""One typed verdict, one reader, one rule for a verdict that cannot be used.

The rows listed as broken a cell whose check had no id or an unknown verdict, while the site
drew the same cell without that check. Now both go through ``compare.judge._verdict``: a
damaged verdict is refused by every reader with the same reason, and every verdict the harness
writes (real ones from a results folder, and a crafted unstable cell) matches the published
schema ``compare/judge/verdict.schema.json``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from compare._paths import PROJECT_ROOT
from compare.judge._verdict import SCHEMA_PATH, VerdictError, parse_verdict, read_verdict
from compare.play._cells import scan_cells
from compare.play._merge import merge
from compare.play._plays import combine
from compare.rows._cells import read_cells
from compare.site._cells import load_cells as site_cells

CHECK = {"id": "answered", "verdict": "pass", "outcome": "answered", "title": "t", "refs": []}
GOOD: dict[str, Any] = {
    "format": 1,
    "target": "t",
    "target_name": "T",
    "target_version": "1.0.0",
    "variant": "default",
    "scenario": "roots-list",
    "revision": "2025-06-18",
    "verdict": "pass",
    "reason": "answered: answered",
    "key": "k" * 64,
    "checks": [CHECK],
}

DAMAGED: dict[str, tuple[Any, str]] = {
    "check-without-id": ({**GOOD, "checks": [{"verdict": "pass"}]}, "a check without an id"),
    "unknown-check-verdict": (
        {**GOOD, "checks": [{**CHECK, "verdict": "great"}]},
        "check answered: unknown verdict 'great'",
    ),
    "check-not-an-object": ({**GOOD, "checks": ["answered"]}, "a check without an id"),
    "checks-not-a-list": ({**GOOD, "checks": {"answered": CHECK}}, "checks is not a list"),
    "unknown-verdict": ({**GOOD, "verdict": "great"}, "unknown verdict 'great'"),
    "no-scenario": ({k: v for k, v in GOOD.items() if k != "scenario"}, "'scenario'"),
    "plays-not-records": ({**GOOD, "plays": [1, 2]}, "plays entry 1 is not a play record"),
    "format-2": ({**GOOD, "format": 2}, "not a format-1 verdict object"),
    "not-an-object": ([GOOD], "not a JSON object"),
}


def _schema() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _write(results: Path, value: Any, name: str = "s") -> Path:
    folder = results / "t" / "1.0.0" / name / "2025-06-18"
    folder.mkdir(parents=True)
    (folder / "verdict.json").write_text(json.dumps(value), encoding="utf-8")
    return folder / "verdict.json"


@pytest.mark.parametrize("case", sorted(DAMAGED))
def test_a_damaged_verdict_is_refused_by_rows_and_site_with_one_reason(
    case: str, tmp_path: Path
) -> None:
    value, why = DAMAGED[case]
    results = tmp_path / "results"
    bad = _write(results, value)
    _write(results, GOOD, name="good")
    with pytest.raises(VerdictError, match=why.replace("(", r"\(").replace(")", r"\)")):
        read_verdict(bad)
    scan = scan_cells(results)
    assert [u.path for u in scan.unreadable] == [bad] and why in scan.unreadable[0].why
    rows = read_cells(results)
    assert [c.path.parent.name for c in rows.cells] == ["good"]
    assert rows.broken == [f"{bad}: {scan.unreadable[0].why}"]
    cells, problems = site_cells(results)
    assert [c.folder.parent.name for c in cells] == ["good"]  # the site shows what rows show
    assert [p.what for p in problems] == [f"unreadable verdict: {scan.unreadable[0].why}"]


def test_a_verdict_that_is_not_json_or_too_large_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    bad = _write(results, GOOD)
    bad.write_bytes(b"\xff{")
    with pytest.raises(VerdictError, match="not readable JSON"):
        read_verdict(bad)
    bad.write_bytes(b" " * (4 * 1024 * 1024 + 1))
    with pytest.raises(VerdictError, match="larger than"):
        read_verdict(bad)


def test_a_merge_refuses_a_verdict_the_reader_refuses(tmp_path: Path) -> None:
    from compare._errors import CompareError

    _write(tmp_path / "shard", DAMAGED["unknown-check-verdict"][0])
    with pytest.raises(CompareError, match="unknown verdict 'great'"):
        merge([tmp_path / "shard"], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


def test_an_unstable_cell_of_three_plays_reads_and_matches_the_schema() -> None:
    other = {**CHECK, "outcome": "error-response", "verdict": "fail"}
    plays = [
        {**GOOD, "started_at": "x", "duration_s": 1.0, "process": None},
        {**GOOD, "checks": [other], "verdict": "fail", "duration_s": 1.0, "process": None},
        {**GOOD, "started_at": "x", "duration_s": 1.0, "process": None},
    ]
    value = combine(plays)
    assert not list(_schema().iter_errors(value))
    record = parse_verdict(value)
    assert record.verdict == "unstable" and record.play_count == 3
    assert [p.number for p in record.plays] == [1, 2, 3]
    assert [p.transcript for p in record.plays][1] == "plays/2/transcript.jsonl"
    assert record.differed == ("answered",)
    (check,) = record.checks
    assert check.verdict == "unstable" and check.outcome is None
    assert check.raw["outcomes"] == ["answered", "error-response", "answered"]


def test_a_cell_played_once_has_no_plays_and_counts_one() -> None:
    record = parse_verdict(GOOD)
    assert record.plays == () and record.play_count == 1
    assert parse_verdict({**GOOD, "verdict": "not-run", "checks": []}).play_count == 0


def _real_results() -> Path:
    return Path(os.environ.get("MCP_COMPARE_RESULTS") or PROJECT_ROOT / "results")


def test_every_real_verdict_matches_the_schema_and_reads() -> None:
    """Over the results folder named by MCP_COMPARE_RESULTS (or the checkout's), every
    verdict the harness wrote — client, server and proxy cells, hygiene checks, repeated and
    unstable cells — matches the published schema and reads through the one reader."""
    paths = sorted(_real_results().glob("*/*/*/*/verdict.json"))
    if not paths:
        pytest.skip(f"no verdicts under {_real_results()}")
    validator = _schema()
    problems = []
    for path in paths:
        value = json.loads(path.read_text(encoding="utf-8"))
        problems += [f"{path}: {e.json_path}: {e.message}" for e in validator.iter_errors(value)]
        read_verdict(path)
    assert problems == []


def test_a_refused_verdict_does_not_decide_which_version_is_current(tmp_path: Path) -> None:
    """The exchange's scan counted any verdict with a target and version towards "newest",
    so a newer version's verdict that rows and site then refused made every good cell of the
    older version history. A refused verdict now counts for nothing."""
    results = tmp_path / "results"
    _write(results, GOOD)
    newer = results / "t" / "2.0.0" / "s" / "2025-06-18"
    newer.mkdir(parents=True)
    broken = {k: v for k, v in GOOD.items() if k != "scenario"} | {"target_version": "2.0.0"}
    (newer / "verdict.json").write_text(json.dumps(broken), encoding="utf-8")
    scan = scan_cells(results)
    assert [(c.version, c.current) for c in scan.cells] == [("1.0.0", True)]
    assert [u.path.parent for u in scan.unreadable] == [newer]
