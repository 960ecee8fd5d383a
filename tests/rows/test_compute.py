"""Computed columns: where from a diff.json, status from a results tree in the CONTRACTS format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from compare._paths import PROJECT_ROOT
from compare.judge._verdicts import worst as worst_of
from compare.rows import compute

from ._area import FIRST_AFTER, LAST_INIT, OLDEST, REVS, area, diff, known, row, write


def cell(
    results: Path,
    target: str,
    version: str,
    revision: str,
    checks: list[tuple[str, str]],
    verdict: str | None = None,
    scenario: str = "roots-list",
    variant: str | None = "roots",
    reason: str = "judged",
) -> Path:
    folder = results / target / version / scenario / (revision + (f"~{variant}" if variant else ""))
    folder.mkdir(parents=True)
    worst = verdict or worst_of([v for _, v in checks])
    data: dict[str, Any] = {
        "format": 1,
        "target": target,
        "target_version": version,
        "variant": variant,
        "scenario": scenario,
        "revision": revision,
        "key": "0" * 64,
        "verdict": worst,
        "reason": reason,
        "checks": [
            {
                "id": cid,
                "verdict": v,
                "expected": "e",
                "observed": f"saw {v}",
                "reason": "r",
                "evidence": [3],
                "refs": [],
            }
            for cid, v in checks
        ],
    }
    (folder / "verdict.json").write_text(json.dumps(data))
    return folder


def run(tmp_path: Path, results: Path, data: dict[str, Any] | None = None) -> dict[str, Any]:
    path = write(tmp_path / "roots.yaml", data or area())
    return compute([path], known(), results)


def status_of(doc: dict[str, Any], target: str) -> dict[str, Any]:
    column: dict[str, Any] = doc["areas"][0]["rows"][0]["status"][target]
    return column


def test_no_cell_is_not_run_with_a_reason_never_a_pass(isolated: Path, tmp_path: Path) -> None:
    doc = run(tmp_path, isolated / "results")
    column = status_of(doc, "ts-sdk")
    assert column["state"] == "not-run"
    assert column["reason"].startswith("not run, because")


def test_pass_at_every_revision_is_supported_with_cell_paths(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    for rev in REVS[:2]:
        cell(results, "ts-sdk", "1.32.2", rev, [("answered", "pass")])
    column = status_of(run(tmp_path, results), "ts-sdk")
    assert column["state"] == "supported" and column["version"] == "1.32.2"
    assert set(column["revisions"]) == set(REVS[:2])
    assert all(p.startswith("results/ts-sdk/1.32.2/roots-list/") for p in column["evidence"])


def test_only_the_newest_version_counts(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "ts-sdk", "1.9.0", "2025-11-25", [("answered", "fail")])
    cell(results, "ts-sdk", "1.10.0", "2025-11-25", [("answered", "pass")])
    unpinned = known()
    unpinned.pinned = {}  # nothing pinned: the newest version found is current
    column = status_of(
        compute([write(tmp_path / "roots.yaml", area())], unpinned, results), "ts-sdk"
    )
    assert (column["version"], column["state"]) == ("1.10.0", "supported")


def test_mixed_verdicts_are_partial_and_need_a_note(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", "2024-11-05", [("answered", "pass")])
    cell(results, "codex", "0.171.0", "2025-11-25", [("answered", "fail")])
    doc = run(tmp_path, results)
    assert status_of(doc, "codex")["state"] == "partial"
    warned = [i for i in doc["issues"] if "partial and has no note" in i["message"]]
    assert warned and warned[0]["severity"] == "warning"
    noted = row(
        status={
            "query": {"scenario": "roots-list", "check": "answered"},
            "notes": {
                "codex": {"version": "0.171.0", "state": "partial", "text": "fails at 2025-11-25"}
            },
        }
    )
    doc = run(tmp_path, results, area(rows=[noted]))
    column = status_of(doc, "codex")
    assert (column["note"], column["note_version"]) == ("fails at 2025-11-25", "0.171.0")
    assert not any("partial" in i["message"] for i in doc["issues"])


def test_fail_everywhere_is_not_supported_and_informational_is_observed(
    isolated: Path, tmp_path: Path
) -> None:
    results = isolated / "results"
    cell(results, "codex", "0.171.0", "2025-11-25", [("answered", "fail")])
    cell(results, "ts-sdk", "1.32.2", "2025-11-25", [("answered", "informational")])
    doc = run(tmp_path, results)
    assert status_of(doc, "codex")["state"] == "not-supported"
    observed = status_of(doc, "ts-sdk")
    assert observed["state"] == "observed"
    assert observed["revisions"]["2025-11-25"]["observed"] == "saw informational"


def test_not_run_cells_carry_their_reason(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    cell(
        results,
        "codex",
        "0.171.0",
        "2025-11-25",
        [],
        verdict="not-run",
        reason="not run, because the CLI cannot add a root",
    )
    column = status_of(run(tmp_path, results), "codex")
    assert column["state"] == "not-run"
    assert "cannot add a root" in column["reason"]


def test_malformed_verdict_is_recorded_and_skipped(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    bad = results / "ts-sdk" / "1.32.2" / "roots-list" / "2025-11-25"
    bad.mkdir(parents=True)
    (bad / "verdict.json").write_text('{"format": 1, "verdict": "great"')
    doc = run(tmp_path, results)
    assert len(doc["broken_cells"]) == 1
    assert status_of(doc, "ts-sdk")["state"] == "not-run"


def test_where_per_revision_comes_from_the_diff(isolated: Path, tmp_path: Path) -> None:
    two = row(where={"items": ["RootsListChangedNotification"], "deprecation": True})
    doc = run(tmp_path, isolated / "results", area(rows=[two]))
    where = doc["areas"][0]["rows"][0]["where"]
    assert where["computed"]
    states = {rev: c["state"] for rev, c in where["revisions"].items()}
    assert states == {OLDEST: "present", LAST_INIT: "present", FIRST_AFTER: "removed"}
    assert where["revisions"][FIRST_AFTER]["deprecated"] is True


def test_cited_columns_are_marked_cited_not_run(isolated: Path, tmp_path: Path) -> None:
    from ._area import GOOD_CITE

    cited = {"mcpx": {"state": "supported", "note": "n", "sources": [GOOD_CITE]}}
    r = row(status={"query": {"scenario": "roots-list", "check": "answered"}, "cited": cited})
    column = status_of(run(tmp_path, isolated / "results", area(rows=[r])), "mcpx")
    assert column["state"] == "cited" and column["label"] == "cited, not run"
    assert column["reason"].startswith("not run, because no package")
    assert column["sources"][0]["status"] == "verified"


def test_rows_cli_writes_rows_json_and_exits_1_on_lint_issues(isolated: Path) -> None:
    (isolated / "build" / "diff.json").write_text(json.dumps(diff()))
    done = subprocess.run(
        [sys.executable, "-m", "compare", "rows", "--json"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    data = json.loads((isolated / "build" / "rows.json").read_text())
    assert json.loads(done.stdout) == data
    [roots] = [a for a in data["areas"] if a["area"] == "roots"]
    ids = [r["id"] for r in roots["rows"]]
    assert ids == sorted(ids) and len(ids) >= 8
    # The crafted diff lacks most real items: each becomes an issue with a tip, and exit 1.
    assert done.returncode == 1
    assert any("is not in the diff" in i["message"] for i in data["issues"])


def test_malformed_area_is_reported_not_computed(isolated: Path, tmp_path: Path) -> None:
    bad = row()
    del bad["value"]
    doc = run(tmp_path, isolated / "results", area(rows=[bad], implementations=[{"id": "x"}]))
    assert doc["areas"] == []
    assert any("'value' is a required property" in i["message"] for i in doc["issues"])


def test_partial_without_note_warns_and_fails_only_with_strict(
    isolated: Path, tmp_path: Path
) -> None:
    (isolated / "build" / "diff.json").write_text(json.dumps(diff()))
    results = isolated / "results"
    cell(results, "ts-sdk", "1.32.2", "2024-11-05", [("answered", "pass")])
    cell(results, "ts-sdk", "1.32.2", "2025-11-25", [("answered", "fail")])
    path = write(tmp_path / "crafted.yaml", area())

    def rows(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "compare", "rows", "--area", str(path), *extra],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )

    # The crafted area names targets that the real target folder has, so only the warning fires.
    relaxed = rows()
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr
    assert "partial and has no note" in relaxed.stdout.replace("\n", " ")
    assert rows("--strict").returncode == 1


def test_a_row_on_several_checks_shows_the_worst_and_is_partial_when_they_disagree(
    isolated: Path, tmp_path: Path
) -> None:
    """A row resting on two checks (e.g. list_changed sent, but the new root not listed) must
    not read "supported" from the check that passed alone."""
    results = isolated / "results"
    for rev in REVS[:2]:
        cell(
            results, "codex", "0.171.0", rev, [("answered", "pass"), ("root-uri-encoding", "fail")]
        )
    both = row(
        status={"query": {"scenario": "roots-list", "check": ["answered", "root-uri-encoding"]}}
    )
    column = status_of(run(tmp_path, results, area(rows=[both])), "codex")
    assert column["state"] == "partial"
    shown = column["revisions"][REVS[0]]
    assert shown["verdict"] == "fail" and shown["reason"].startswith("root-uri-encoding:")
    single = row(status={"query": {"scenario": "roots-list", "check": "answered"}})
    assert status_of(run(tmp_path, results, area(rows=[single])), "codex")["state"] == "supported"


def test_a_named_check_outside_a_cells_window_does_not_make_it_not_run(
    isolated: Path, tmp_path: Path
) -> None:
    """A row may name two checks that split the revisions between them (a SHOULD before
    2025-06-18, a MUST from then on); each cell is judged by the one it has."""
    results = isolated / "results"
    cell(results, "codex", "0.171.0", REVS[0], [("answered", "pass")])
    cell(results, "codex", "0.171.0", REVS[1], [("root-uri-encoding", "pass")])
    both = row(
        status={"query": {"scenario": "roots-list", "check": ["answered", "root-uri-encoding"]}}
    )
    column = status_of(run(tmp_path, results, area(rows=[both])), "codex")
    assert column["state"] == "supported"
    assert {e["verdict"] for e in column["revisions"].values()} == {"pass"}
