"""Grades and sentences written once (issue 22): gate grades in ``_gates.yaml``, each spec
sentence named once in ``_sentences.yaml``, expanded by the loader into the refs the judge
has always read.

The proof of no behaviour change is ``data/scenarios_before.json``: every check's outcome
grades and refs as the scenario files held them before the change (written once from main's
files, commit a50100b; a grade changed on purpose since is written into it with its change:
relay-roots-undeclared's ``forwarded-session``; the server gate ``no-discover``, error →
informational, when rust-mcp-filesystem showed that a server silent on ``server/discover`` is
what 2026-07-28's stdio page calls legacy; and the outcomes renamed, with the same grades,
when checks moved onto the generic rules of issue 22 item 4: handshake ``roots-capability``
``roots`` → ``declared`` and ``roots-list-changed`` → ``member-declared``, list-changed
``notification`` ``no-roots`` → ``undeclared``; issue 36's earned passes: every pass in a
check that cannot fail regraded informational, the outcomes whose precondition never held
graded ``not-exercised``, and the wire checks' ``no-requests`` / ``no-notifications``). The
loader's expansion must give the same
grades and, at every
revision a check plays at, the same refs in the same order (what a verdict stores and the
site shows) for an exchange over stdio; over HTTP, the wire checks name the base protocol's
JSON-RPC sentence instead of the stdio page's (``transport`` on a ref).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import _revisions
import pytest

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare._yaml import load_yaml
from compare.exchange._scenarios import (
    COMMON_FILES,
    SCENARIOS_DIR,
    Check,
    common_checks,
    in_window,
    load_scenario_file,
    load_scenarios,
)
from compare.judge._sentences import SENTENCES_FILE, load_sentences

BEFORE = Path(__file__).parent / "data" / "scenarios_before.json"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _played(check: Check, windows: list[dict[str, Any] | None]) -> list[str]:
    """The pinned revisions at which ``check`` is judged in one of the scenario ``windows``."""
    return [
        rev
        for rev in _revisions.revisions()
        if any(in_window(rev, w) for w in windows)
        and (not check.revisions or in_window(rev, check.revisions))
    ]


def test_expanded_grades_and_refs_equal_the_scenario_files_before_the_change() -> None:
    before: dict[str, dict[str, Any]] = json.loads(BEFORE.read_text("utf-8"))
    scenarios = load_scenarios()
    loaded: dict[str, tuple[list[Check], list[dict[str, Any] | None]]] = {
        s.path.name: (s.checks, [s.revisions]) for s in scenarios
    }
    for side, path in COMMON_FILES.items():
        windows = [s.revisions for s in scenarios if s.side == side]
        loaded[path.name] = (common_checks(side), windows)
    # every file of the fixture is still there (a file written after the change has no "before")
    assert set(before) <= set(loaded)
    compared = 0
    for name in before:
        checks, windows = loaded[name]
        # every check of the fixture is still there; checks added since have no "before"
        assert set(before[name]) <= {c.id for c in checks}, name
        for check in (c for c in checks if c.id in before[name]):
            old = before[name][check.id]
            assert check.outcomes == old["outcomes"], (name, check.id)
            for rev in _played(check, windows):
                was = [r for r in old["refs"] if in_window(rev, r)]
                # over stdio, as before (a ref about one transport now says which)
                now = [
                    {k: v for k, v in r.items() if k != "transport"}
                    for r in check.refs_for(rev, "stdio")
                ]
                assert now == was, (name, check.id, rev)
                compared += len(was)
    assert compared > 250  # refs × revisions played: the comparison is not vacuous


def test_the_shipped_scenarios_name_their_sentences_and_leave_gate_grades_to_the_gates() -> None:
    from compare.exchange._scenarios import gates

    files = [
        p
        for p in SCENARIOS_DIR.glob("*.yaml")
        if p.name not in {"_sentences.yaml", "_gates.yaml", "_operations.yaml"}
    ]
    named = 0
    for path in files:
        side = "client"
        for s, p in COMMON_FILES.items():
            side = s if p == path else side
        data = load_yaml(path)
        side = data.get("side", side)
        for check in data["checks"]:
            for ref in check["refs"]:
                assert not (isinstance(ref, dict) and "cite" in ref), (path.name, check["id"])
                named += 1
            for outcome, grade in check["outcomes"].items():
                # an entry equal to the default is a repetition the gates file removed
                assert gates(side).get(outcome) != grade, (path.name, check["id"], outcome)
    assert named > 50


def test_every_sentence_is_named_by_some_check_or_row() -> None:
    """A sentence is named by a check's refs, or by a row's where-column (a rule of a page
    that no schema item carries, where no check grades it at that revision)."""
    from compare._yaml import load_yaml
    from compare.rows import area_files

    used = {n for s in load_scenarios() for c in s.checks for n in c.sentences}
    used |= {n for side in COMMON_FILES for c in common_checks(side) for n in c.sentences}
    used |= {
        str(fact["sentence"])
        for area in map(load_yaml, area_files())
        for row in area.get("rows") or []
        for fact in (row.get("where") or {}).get("facts") or []
        if "sentence" in fact
    }
    assert set(load_sentences()) == used


# -- crafted scenarios, with their own sentence file --------------------------------------------
SENTENCES = """\
roots-errors:
  page: client/roots.mdx
  quote: "Clients **SHOULD** return standard JSON-RPC errors for common failure cases:
    - Client does not support roots: `-32601` (Method not found)"
  revisions: {from: "2025-06-18", until: null}
  at: {"2025-06-18": "142-144", "2025-11-25": "142-144"}
json-rpc:
  page: basic/index.mdx
  quote: "All messages between MCP clients and servers **MUST** follow the JSON-RPC 2.0
    specification."
  revisions: {from: "2025-06-18", until: null}
  at: {"2025-06-18": "27-28", "2025-11-25": "27-28"}
"""

SCENARIO = """\
id: demo
title: Demo
description: A scenario that names its sentences and inherits its gate grades.
revisions: {from: "2025-06-18", until: "2025-11-25"}
steps:
  - {await: notifications/initialized, label: initialized, timeout_s: 5}
  - {request: roots/list, label: roots, timeout_s: 5}
checks:
  - id: answer
    title: answer
    rule: undeclared-answer
    expected: "-32601"
    outcomes:
      method-not-found: {verdict: pass, means: ok}
      invalid-request: {verdict: non-strict, means: "-32600"}
      other-error: {verdict: informational, means: other}
      empty-list: {verdict: informational, means: empty}
      roots-returned: {verdict: informational, means: roots}
      silence: {verdict: fail, means: silence}
      closed: {verdict: informational, means: closed}
      not-asked: {verdict: informational, means: not asked}
      declared: {verdict: informational, means: declared}
      version-refused: {verdict: informational, means: "refused, an override"}
    refs:
      - {sentence: roots-errors, supports: [invalid-request]}
      - {sentence: json-rpc, supports: [silence]}
"""


def _load(folder: Path, scenario: str = SCENARIO, sentences: str | None = SENTENCES) -> Any:
    folder.mkdir(exist_ok=True)
    if sentences is not None:
        (folder / "_sentences.yaml").write_text(sentences, encoding="utf-8")
    path = folder / "demo.yaml"
    path.write_text(scenario, encoding="utf-8")
    return load_scenario_file(path)


def test_a_check_inherits_the_gate_grades_and_its_own_grade_overrides_one(tmp_path: Path) -> None:
    check = _load(tmp_path).checks[0]
    assert check.outcomes["no-initialize"]["verdict"] == "error"
    assert check.outcomes["no-initialize"]["means"].startswith("not run, because the client")
    assert check.outcomes["exited-before-initialize"]["verdict"] == "informational"
    assert check.outcomes["version-refused"]["means"] == "refused, an override"


def test_a_named_sentence_expands_to_one_ref_per_revision_with_its_supports(
    tmp_path: Path,
) -> None:
    check = _load(tmp_path).checks[0]
    assert check.sentences == ("roots-errors", "json-rpc")
    assert [r["cite"] for r in check.refs_for("2025-11-25")] == [
        "docs/specification/2025-11-25/client/roots.mdx:142-144",
        "docs/specification/2025-11-25/basic/index.mdx:27-28",
    ]
    last = check.refs[-1]
    assert (last["from"], last["until"], last["supports"]) == ("2025-11-25", None, ["silence"])


def test_an_ungraded_outcome_still_does_not_load(tmp_path: Path) -> None:
    with pytest.raises(CompareError) as err:
        _load(
            tmp_path,
            SCENARIO.replace("      closed: {verdict: informational, means: closed}\n", ""),
        )
    assert "ungraded: closed" in err.value.message


def test_an_unknown_sentence_does_not_load(tmp_path: Path) -> None:
    with pytest.raises(CompareError) as err:
        _load(tmp_path, SCENARIO.replace("sentence: json-rpc", "sentence: json-rcp"))
    assert "no sentence named 'json-rcp'" in err.value.message


def test_a_fail_needs_its_must_sentence_at_every_revision_it_plays_at(tmp_path: Path) -> None:
    short = SENTENCES.replace(
        '{"2025-06-18": "27-28", "2025-11-25": "27-28"}', '{"2025-06-18": "27-28"}'
    )
    short = short.replace(
        '  revisions: {from: "2025-06-18", until: null}\n  at: {"2025-06-18": "27-28"}',
        '  revisions: {from: "2025-06-18", until: "2025-06-18"}\n  at: {"2025-06-18": "27-28"}',
    )
    with pytest.raises(CompareError) as err:
        _load(tmp_path, sentences=short)
    assert "outcome silence is graded fail but no reference for 2025-11-25" in err.value.message


def test_a_cut_quote_in_the_sentence_file_is_refused_with_its_whole_sentence(
    tmp_path: Path,
) -> None:
    cut = SENTENCES.replace(' JSON-RPC 2.0\n    specification."', ' JSON-RPC 2.0"')
    assert cut != SENTENCES
    with pytest.raises(CompareError) as err:
        _load(tmp_path, sentences=cut)
    assert "which is not a whole clause" in err.value.message


def test_a_line_outside_the_sentences_window_does_not_load(tmp_path: Path) -> None:
    wrong = SENTENCES.replace(
        'from: "2025-06-18", until: null}\n  at: {"2025-06-18": "142-144"',
        'from: "2025-11-25", until: null}\n  at: {"2025-06-18": "142-144"',
    )
    assert wrong != SENTENCES
    with pytest.raises(CompareError) as err:
        _load(tmp_path, sentences=wrong)
    assert "outside the sentence's window" in err.value.message


def test_the_judge_key_follows_the_expanded_scenario_not_its_text(tmp_path: Path) -> None:
    """A pure refactor keeps the cached verdicts; a moved line in the sentence file re-judges."""
    named = _load(tmp_path / "named")
    head, _, _ = SCENARIO.partition("    refs:\n")
    # the same check written out in full: literal refs, a gate grade spelled as its default
    spelled_out = (
        head.replace(
            "      version-refused:",
            "      no-initialize: "
            + json.dumps(named.checks[0].outcomes["no-initialize"])
            + "\n      version-refused:",
        )
        + "    refs:\n"
        + "".join(f"      - {json.dumps(r, ensure_ascii=False)}\n" for r in named.checks[0].refs)
    )
    spelled = _load(tmp_path / "spelled", spelled_out, None)
    assert spelled.checks[0].refs == named.checks[0].refs
    assert spelled.file_hash == named.file_hash
    moved = SENTENCES.replace('"2025-11-25": "27-28"', '"2025-11-25": "25-26"')
    assert _load(tmp_path / "moved", sentences=moved).file_hash != named.file_hash


# -- cite: a sentence shown, verified and fixed in its file -------------------------------------
def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cite_shows_a_named_sentence_at_each_revision(isolated: Path) -> None:
    done = _cli("cite", "client-stdin-valid-message")
    assert done.returncode == 0, done.stderr
    for rev in ("2024-11-05", "2025-11-25", "2026-07-28"):
        assert f"── at {rev}" in done.stdout
    assert "basic/transports/stdio.mdx:20-21" in done.stdout
    assert done.stdout.count("whole clause") == len(
        load_sentences()["client-stdin-valid-message"].at
    )
    unknown = _cli("cite", "no-such-sentence")
    assert unknown.returncode != 0 and "no sentence named" in unknown.stderr


def test_cite_fix_rewrites_a_moved_line_in_the_sentence_file(
    isolated: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "scenarios"
    moved = SENTENCES.replace('"2025-11-25": "27-28"', '"2025-11-25": "25-26"')
    _load(folder, sentences=moved)
    area = tmp_path / "empty.yaml"
    area.write_text("rows: []\n", encoding="utf-8")
    check = _cli("cite", "--check", "--area", str(area), "--scenarios", str(folder))
    assert check.returncode == 1, check.stdout + check.stderr
    assert "sentence json-rpc docs/specification/2025-11-25/basic/index.mdx:25-26" in check.stdout
    assert "`mcp-compare cite --fix` rewrites it" in check.stdout
    fixed = _cli("cite", "--fix", "--area", str(area), "--scenarios", str(folder))
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (folder / "_sentences.yaml").read_text("utf-8")
    assert text == SENTENCES  # only the moved entry changed, back to its lines


def test_the_shipped_sentence_file_is_where_the_shipped_scenarios_read() -> None:
    assert load_sentences() == load_sentences(SENTENCES_FILE)
    assert "client-stdin-valid-message" in load_sentences()
