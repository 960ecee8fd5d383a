"""Scenario refs are verified by ``cite --check`` like the rows' citations, and must quote a clause.

Crafted scenario files live in tmp_path; their outcomes are taken from the rule itself, so
these tests do not depend on how the shipped scenarios grade them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare._paths import PROJECT_ROOT
from compare.cite import standalone_problem, verify_refs
from compare.judge._refs import scenario_refs
from compare.judge.rules import RULES
from compare.rows import check_citations as check_all
from compare.rows import check_scenario_refs as check_scenarios

PAGE = "docs/specification/2025-11-25/client/roots.mdx"
CLAUSE = "When roots change, clients that support `listChanged` **MUST** send a notification"
GOOD = f'{{cite: "{PAGE}:78", quote: "{CLAUSE}", from: "2024-11-05", until: null}}'
TOKEN = f'{{cite: "{PAGE}:78", quote: "`listChanged` **MUST**", from: "2024-11-05", until: null}}'
MOVED = f'{{cite: "{PAGE}:77", quote: "{CLAUSE}", from: "2024-11-05", until: null}}'
WRONG = (
    f'{{cite: "{PAGE}:78", quote: "Clients never change their roots at all", '
    'from: "2024-11-05", until: null}'
)


WITH = {"method": "roots/list", "capability": "roots"}


def _scenario(folder: Path, *refs: str) -> Path:
    """One valid scenario whose single check carries ``refs``."""
    outcomes = "".join(
        f"      {o}: {{verdict: informational, means: {o}}}\n"
        for o in RULES["request-answered"].produces(WITH)
    )
    folder.mkdir(exist_ok=True)
    (folder / "demo.yaml").write_text(
        "id: demo\ntitle: Demo\ndescription: crafted for the cite tests.\n"
        'revisions: {from: "2024-11-05", until: "2025-11-25"}\n'
        "steps:\n"
        "  - {await: notifications/initialized, label: initialized, timeout_s: 5}\n"
        "  - {request: roots/list, label: roots, timeout_s: 5}\n"
        "checks:\n  - id: answered\n    title: answered\n    rule: request-answered\n"
        "    with: {method: roots/list, capability: roots}\n"
        f"    expected: a result\n    outcomes:\n{outcomes}    refs:\n"
        + "".join(f"      - {r}\n" for r in refs),
        encoding="utf-8",
    )
    return folder


def _empty_area(tmp_path: Path) -> Path:
    area = tmp_path / "empty.yaml"
    area.write_text("area: empty\nrows: []\n", encoding="utf-8")
    return area


@pytest.mark.parametrize(
    ("quote", "why"),
    [
        ("clientInfo", "1 word, 10 characters"),
        ("-32601", "1 word, 6 characters"),
        ("probe with", "2 words"),
        ("a b c d", "7 characters"),
        ("`listChanged` **MUST**", "2 words, 22 characters"),
        (None, "has no quote"),
    ],
)
def test_a_token_is_not_a_quote_that_stands_alone(quote: str | None, why: str) -> None:
    problem = standalone_problem(quote)
    assert problem is not None and why in problem


def test_a_clause_stands_alone() -> None:
    assert standalone_problem(CLAUSE) is None
    assert standalone_problem("does not support the") is None  # 4 words, 20 characters


def test_verify_refs_takes_citation_strings(isolated: Path) -> None:
    good, short, broken = verify_refs(
        [f"{PAGE}:78 “{CLAUSE}”", f"{PAGE}:78 “`listChanged` **MUST**”", f"{PAGE} no line"]
    )
    assert good.result and good.result.status == "verified" and good.problem is None
    assert short.result and short.result.status == "verified" and short.problem
    assert broken.result is None and broken.problem and ":LINE" in broken.problem


def test_each_scenario_ref_is_verified_and_named(isolated: Path, tmp_path: Path) -> None:
    folder = _scenario(tmp_path / "scenarios", GOOD, TOKEN, MOVED, WRONG)
    checked = check_scenarios(folder)
    assert [c.status for c in checked] == ["verified", "mismatch", "moved", "mismatch"]
    assert [c.failing for c in checked] == [False, True, False, True]
    assert all(c.origin == "scenario" and c.scenario == "demo" for c in checked)
    assert [c.ref_index for c in checked] == [0, 1, 2, 3]
    token = checked[1].error or ""
    assert "scenario demo, check answered, refs[1]" in token and "tip:" in token
    moved = checked[2].result
    assert moved and moved.found_at == [78] and "demo.yaml by hand" in moved.message


def test_check_all_records_scenario_refs_and_fails_on_them(isolated: Path, tmp_path: Path) -> None:
    folder = _scenario(tmp_path / "scenarios", GOOD, MOVED)
    report = check_all([_empty_area(tmp_path)], scenarios=folder)
    assert report.failed() and not report.failed(allow_moved=True)
    data = json.loads((isolated / "build" / "citations.json").read_text("utf-8"))
    moved = [c for c in data["citations"] if c["status"] == "moved"]
    assert len(moved) == 1
    assert moved[0] | {"origin": "scenario", "scenario": "demo", "check": "answered"} == moved[0]
    assert moved[0]["ref_index"] == 1 and moved[0]["ref"] == f"{PAGE}:77 “{CLAUSE}”"
    assert data["tally"]["moved"] == 1 and data["tally"]["verified"] == 1


def test_only_named_area_files_leave_the_scenarios_out(isolated: Path, tmp_path: Path) -> None:
    assert check_all([_empty_area(tmp_path)], write=False).checked == []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        env=dict(os.environ) | {"COLUMNS": "300"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_check_fails_on_a_token_quote_and_says_how_to_fix_it(
    isolated: Path, tmp_path: Path
) -> None:
    area = str(_empty_area(tmp_path))
    good = _scenario(tmp_path / "good", GOOD)
    done = _cli("cite", "--check", "--area", area, "--scenarios", str(good))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 citations (1 of them scenario refs)" in done.stdout
    bad = _scenario(tmp_path / "bad", GOOD, TOKEN)
    done = _cli("cite", "--check", "--area", area, "--scenarios", str(bad))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "scenario demo, check answered, refs[1]" in done.stdout
    assert (
        "is a token, not a clause" in done.stdout and "tip: quote the whole clause" in done.stdout
    )


def test_every_shipped_scenario_ref_cites_a_pinned_file(isolated: Path) -> None:
    refs = scenario_refs()
    assert len(refs) > 20 and all(r.revision is not None for r in refs)  # named, every one
    # a sentence only the common server checks (_wire-server.yaml) name is verified too
    assert any(r.check == "server-stdout-valid-message" for r in refs)
    unpinned = [(c.row, c.ref) for c in check_scenarios() if c.status == "unavailable"]
    assert not unpinned, "pin them: mcp-compare pin add-file PATH"


def test_the_exchange_stage_does_not_import_the_cite_stage() -> None:
    # cite reads scenarios through compare.exchange; the reverse edge would make a cycle.
    code = (
        "import sys, compare.exchange, compare.exchange._scenarios, compare.play._harness, "
        "compare.exchange.cli; "
        "print([m for m in sys.modules if m.startswith(('compare.cite', 'compare.rows'))])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
