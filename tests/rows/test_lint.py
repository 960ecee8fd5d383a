"""Each lint fires on a crafted bad area file and carries a fix tip; the good file is clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare.rows import AREAS_DIR, SCHEMA_PATH, Issue, Known, lint_all, load_yaml, schema_issues

from ._area import GOOD_CITE, area, known, row, write


def lint(tmp_path: Path, data: dict[str, object], k: Known | None = None) -> list[Issue]:
    return lint_all([write(tmp_path / "roots.yaml", data)], k or known())


def only(issues: list[Issue], needle: str) -> Issue:
    hits = [i for i in issues if needle in i.message]
    assert hits, [i.message for i in issues]
    assert all(i.tip for i in hits)
    return hits[0]


def test_the_crafted_good_file_is_clean(isolated: Path, tmp_path: Path) -> None:
    assert lint(tmp_path, area()) == []


def test_published_schema_is_valid_json_schema_and_the_real_file_passes_it() -> None:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text()))
    assert schema_issues(load_yaml(AREAS_DIR / "roots.yaml"), "roots.yaml") == []


def test_vocabulary_outside_the_fixed_levels_names_the_allowed_ones(
    isolated: Path, tmp_path: Path
) -> None:
    issue = only(lint(tmp_path, area(rows=[row(value="huge")])), "is not one of")
    assert "high, medium, low" in issue.tip


def test_missing_detail_field_is_reported(isolated: Path, tmp_path: Path) -> None:
    bad = row()
    del bad["risk_detail"]
    only(lint(tmp_path, area(rows=[bad])), "'risk_detail' is a required property")


def test_yaml_1_1_boolean_trap_is_a_type_error_with_a_quoting_tip(
    isolated: Path, tmp_path: Path
) -> None:
    path = tmp_path / "roots.yaml"
    write(path, area())
    # YAML 1.2 keeps `no` a string; a true boolean is still caught with a tip to quote it.
    path.write_text(path.read_text().replace('"difference": "one line"', '"difference": true'))
    issue = only(lint_all([path], known()), "is not of type 'string'")
    assert "quote" in issue.tip


def test_duplicate_ids(isolated: Path, tmp_path: Path) -> None:
    only(lint(tmp_path, area(rows=[row(), row()])), "is used by 2 rows")


def test_id_with_another_prefix(isolated: Path, tmp_path: Path) -> None:
    only(lint(tmp_path, area(rows=[row(id="SAMP-01")])), "does not match ROOT-NN")


def test_reusing_a_retired_id(isolated: Path, tmp_path: Path) -> None:
    only(lint(tmp_path, area(retired_ids=["ROOT-01"])), "listed in retired_ids")


def test_partial_cited_status_without_note(isolated: Path, tmp_path: Path) -> None:
    cited = {"mcpx": {"state": "partial", "sources": [GOOD_CITE]}}
    bad = row(status={"query": {"scenario": "roots-list", "check": "answered"}, "cited": cited})
    issue = only(lint(tmp_path, area(rows=[bad])), "partial status needs a note")
    assert "note" in issue.tip


def test_note_for_a_target_that_does_not_exist(isolated: Path, tmp_path: Path) -> None:
    note = {"version": "1", "state": "partial", "text": "x"}
    status = {"query": {"scenario": "roots-list", "check": "answered"}, "notes": {"nope": note}}
    issue = only(lint(tmp_path, area(rows=[row(status=status)])), "unknown target 'nope'")
    assert "ts-sdk" in issue.tip


def test_cited_column_that_is_not_declared(isolated: Path, tmp_path: Path) -> None:
    status = {
        "query": {"scenario": "roots-list", "check": "answered"},
        "cited": {"ghost": {"state": "supported", "sources": [GOOD_CITE]}},
    }
    only(lint(tmp_path, area(rows=[row(status=status)])), "cited column 'ghost' is not declared")


def test_unknown_scenario_and_unknown_check(isolated: Path, tmp_path: Path) -> None:
    s1 = {"query": {"scenario": "nope", "check": "answered"}}
    issue = only(lint(tmp_path, area(rows=[row(status=s1)])), "unknown scenario 'nope'")
    assert "roots-list" in issue.tip
    s2 = {"query": {"scenario": "roots-list", "check": "nope"}}
    issue = only(lint(tmp_path, area(rows=[row(status=s2)])), "has no check 'nope'")
    assert "answered" in issue.tip


def test_status_that_queries_nothing(isolated: Path, tmp_path: Path) -> None:
    only(lint(tmp_path, area(rows=[row(status={})])), "queries nothing")


def test_where_item_not_in_the_diff_suggests_close_names(isolated: Path, tmp_path: Path) -> None:
    bad = row(where={"items": ["ListRootsRequest.params.cursor"]})
    issue = only(lint(tmp_path, area(rows=[bad])), "is not in the diff")
    assert "ListRootsRequest" in issue.tip


def test_missing_inputs_say_cannot_check_because(isolated: Path, tmp_path: Path) -> None:
    k = Known(missing={"diff": "no diff.json", "targets": "none", "scenarios": "none"})
    issues = lint(tmp_path, area(), k)
    messages = " | ".join(i.message for i in issues)
    assert "cannot check diff item 'ListRootsRequest', because no diff.json" in messages
    assert "cannot check scenario 'roots-list', because none" in messages


def test_row_without_a_verified_citation(isolated: Path, tmp_path: Path) -> None:
    bad = row(sources=["docs/specification/2025-11-25/client/roots.mdx:47 “nowhere at all”"])
    issue = only(lint(tmp_path, area(rows=[bad])), "no verified citation")
    assert "cite --check" in issue.tip


def test_unparseable_citation(isolated: Path, tmp_path: Path) -> None:
    issues = lint(tmp_path, area(rows=[row(sources=[GOOD_CITE, "not a citation"])]))
    only(issues, "unparseable citation")


def test_open_question_quote_must_say_so(isolated: Path, tmp_path: Path) -> None:
    oq = "seps/2575-stateless-mcp.md:760 “`roots`, `logLevel`”"
    issue = only(lint(tmp_path, area(rows=[row(sources=[GOOD_CITE, oq])])), "open questions")
    assert "context: open-question" in issue.tip
    marked = {"cite": oq, "context": "open-question"}
    assert lint(tmp_path, area(rows=[row(sources=[GOOD_CITE, marked])])) == []


def test_a_cut_requirement_in_a_row_source_names_the_whole_sentence(
    isolated: Path, tmp_path: Path
) -> None:
    """A quoted MUST is shown as the row's requirement: cut, it misstates it (issue 21)."""
    cut = "docs/specification/2025-11-25/client/roots.mdx:110 “This **MUST** be a `file://` URI”"
    issue = only(lint(tmp_path, area(rows=[row(sources=[GOOD_CITE, cut])])), "whole clause")
    assert "ROOT-01/sources[1]" in issue.where
    assert issue.tip.endswith(
        "roots.mdx:110-111 “This **MUST** be a `file://` URI in the current specification.”"
    )
    whole = (
        "docs/specification/2025-11-25/client/roots.mdx:110-111 “This **MUST** be a `file://`"
        " URI in the current specification.”"
    )
    assert lint(tmp_path, area(rows=[row(sources=[GOOD_CITE, whole])])) == []
    # a phrase without a keyword illustrates the prose; it may stay a phrase
    assert lint(tmp_path, area(rows=[row(sources=[GOOD_CITE])])) == []


def test_garbage_yaml_is_one_issue_not_a_traceback(isolated: Path, tmp_path: Path) -> None:
    path = tmp_path / "roots.yaml"
    path.write_text("rows: [unclosed\n  - : :\n")
    issues = lint_all([path], known())
    assert len(issues) == 1 and "not valid YAML" in issues[0].message


@pytest.mark.parametrize("text", ["", "- a list\n", "just text\n"])
def test_non_mapping_files_are_schema_issues(isolated: Path, tmp_path: Path, text: str) -> None:
    path = tmp_path / "roots.yaml"
    path.write_text(text)
    assert lint_all([path], known())


def test_lint_cli_prints_each_issue_with_its_fix_and_exits_1(
    isolated: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from compare._paths import PROJECT_ROOT

    path = write(tmp_path / "roots.yaml", area(rows=[row(value="huge", id="ROOT-1")]))
    done = subprocess.run(
        [sys.executable, "-m", "compare", "rows", "--lint", "--area", str(path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    out = done.stdout.replace("\n", " ")
    assert "'huge' is not one of" in out and "fix: use one of: high, medium, low" in out
    assert "'ROOT-1' does not match" in out  # both shape problems in one run


@pytest.mark.parametrize(
    ("path", "junk"),
    [
        (("rows",), 1),
        (("rows", 0, "sources"), 1),
        (("rows", 0, "where", "items", 0), [1, "a"]),
        (("rows", 0, "status", "query", "check"), [1]),
        (("rows", 0, "status", "cited"), ["x"]),
        (("id_prefix",), True),
        (("implementations",), 1),
    ],
)
def test_malformed_shapes_are_issues_never_exceptions(
    isolated: Path, tmp_path: Path, path: tuple[object, ...], junk: object
) -> None:
    from compare.rows import check_area_files, compute

    data = area()
    node: object = data
    for key in path[:-1]:
        node = node[key]  # type: ignore[index]
    node[path[-1]] = junk  # type: ignore[index]
    written = write(tmp_path / "roots.yaml", data)
    assert lint_all([written], known())  # reported…
    doc = compute([written], known(), tmp_path / "results")  # …and never half-computed
    assert doc["areas"] == [] and doc["issues"]
    check_area_files([written])  # citations of a malformed file are read without a crash


def _uncheckable() -> Known:
    """The crafted names, with a check whose outcomes only pass or inform."""
    k = known()
    k.scenarios["version-window"] = {"accepted"}
    k.grades["version-window"] = {"accepted": {"pass", "informational", "error"}}
    return k


def test_a_row_whose_checks_cannot_fail_is_flagged(isolated: Path, tmp_path: Path) -> None:
    query = {"scenario": "version-window", "check": "accepted"}
    bad = row(status={"query": query})
    issue = only(lint(tmp_path, area(rows=[bad]), _uncheckable()), "never not-supported")
    assert issue.where == "ROOT-01/status/query"
    assert "version-window/accepted" in issue.message
    assert "status.informational" in issue.tip and "fail or non-strict" in issue.tip


def test_a_row_declared_informational_may_rest_on_checks_that_cannot_fail(
    isolated: Path, tmp_path: Path
) -> None:
    query = {"scenario": "version-window", "check": "accepted"}
    said = row(status={"query": query, "informational": "the spec leaves the choice open"})
    assert lint(tmp_path, area(rows=[said]), _uncheckable()) == []


def test_a_check_that_can_fail_beside_one_that_cannot_clears_the_row(
    isolated: Path, tmp_path: Path
) -> None:
    k = _uncheckable()
    k.scenarios["version-window"].add("refused")
    k.grades["version-window"]["refused"] = {"pass", "fail"}
    both = row(status={"query": {"scenario": "version-window", "check": ["accepted", "refused"]}})
    assert lint(tmp_path, area(rows=[both]), k) == []


def test_an_informational_declaration_over_a_failing_check_must_go(
    isolated: Path, tmp_path: Path
) -> None:
    status = {
        "query": {"scenario": "roots-list", "check": "answered"},
        "informational": "an open question",
    }
    issue = only(lint(tmp_path, area(rows=[row(status=status)])), "declared informational")
    assert "drop status.informational" in issue.tip


def test_the_shipped_rows_can_each_fail_or_say_they_cannot() -> None:
    from compare.rows import gather

    k = gather()
    issues = lint_all([AREAS_DIR / "roots.yaml"], k)
    assert not [i for i in issues if "never not-supported" in i.message]
    assert not [i for i in issues if "declared informational" in i.message]
