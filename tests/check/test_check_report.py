"""``mcp-compare check``'s reading and reporting, on crafted cells of the real area files and
scenarios: which rows a program gets, the sentence behind each finding, the gate at each
threshold, the published columns beside it, and each report form (JSON against its schema,
JUnit as XML, HTML escaped against a hostile program)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from compare._errors import CompareError
from compare.check import _html, _junit, _terminal
from compare.check._beside import default_beside, published
from compare.check._report import build, grouped, stray_findings, validate
from compare.check._rows import Program, checked_areas
from compare.check._run import Request, _default_name, check
from compare.exchange._scenarios import load_scenarios
from compare.rows._cells import read_cells
from compare.rows._derive import write_operations

VERSION = "cmd-0123456789ab"
SERVER = Program("server-command", VERSION, "server", "my-server", "my-server --stdio")
MUST = "The server **MUST NOT** write anything to its `stdout` that is not a valid MCP message."
HOSTILE = "<script>window.__pwned=1</script>"
SUPPORTED = {"state": "supported", "label": "supported"}


def write_cell(
    results: Path, scenario: str, revision: str, checks: list[dict[str, Any]], verdict: str
) -> Path:
    folder = results / "server-command" / VERSION / scenario / f"{revision}~default"
    folder.mkdir(parents=True)
    line = {"n": 1, "t": 0.1, "dir": "in", "raw": HOSTILE}
    (folder / "transcript.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    (folder / "server.stderr").write_text(f"{HOSTILE}\n", encoding="utf-8")
    record = {
        "format": 1,
        "target": "server-command",
        "target_version": VERSION,
        "variant": "default",
        "scenario": scenario,
        "revision": revision,
        "key": "0" * 64,
        "verdict": verdict,
        "reason": "made up for the test",
        "checks": checks,
        "started_at": "2026-12-06T00:00:00Z",
        "duration_s": 0.1,
        "process": {"exit_code": 0, "ended_by": "self", "leftover_killed": 0},
        "files": {"transcript": "transcript.jsonl", "stderr": "server.stderr"},
    }
    (folder / "verdict.json").write_text(json.dumps(record), encoding="utf-8")
    return folder


def a_check(ident: str, verdict: str, quote: str = MUST) -> dict[str, Any]:
    return {
        "id": ident,
        "verdict": verdict,
        "title": f"the check {ident}",
        "observed": HOSTILE,
        "reason": "what the judge said",
        "evidence": [1],
        "refs": [{"cite": "docs/specification/2025-06-18/basic/transports.mdx:31", "quote": quote}],
    }


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """server-features at one revision: wire-json (row LIFE-20) fails, wire-valid passes,
    and a check no row reads is non-strict (read once: no test changes it)."""
    results = tmp_path_factory.mktemp("played") / "results"
    checks = [a_check("wire-json", "fail"), a_check("wire-valid", "pass")]
    checks.append(a_check("made-up-check", "non-strict", "Servers **SHOULD** do it."))
    write_cell(results, "server-features", "2025-06-18", checks, "fail")
    scenarios = load_scenarios()
    sides = {s.id: s.side for s in scenarios}
    cells = read_cells(results)
    areas = checked_areas(
        SERVER, cells, results, sides, write_operations(scenarios), {"server-features"}
    )
    return {"results": results, "cells": cells, "areas": areas}


def rows_of(areas: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for area in areas for row in area["rows"]}


def report_of(played: dict[str, Any], threshold: str = "fail", **extra: Any) -> dict[str, Any]:
    other = stray_findings(SERVER, played["cells"], played["results"], played["areas"])
    beside = extra.pop("beside", {"source": "x", "columns": [], "states": {}, "missing": []})
    return build(
        program=SERVER,
        areas=played["areas"],
        other=other,
        read_by={
            ("server-features", "wire-json"): ["LIFE-20"],
            ("server-http-session", "foreign-origin"): ["TRAN-02"],
            ("server-http-session", "foreign-origin-403"): ["TRAN-02"],
            ("x", "dup"): ["X-1"],
            ("y", "dup"): ["Y-1"],
        },
        verdicts=extra.pop("verdicts", [{"verdict": "fail"}]),
        errors=extra.pop("errors", []),
        beside=beside,
        spec_commit="b0f60ba5409db7a6582440a7b473cc0398890f15",
        revisions=["2025-06-18"],
        checked_at="2026-12-06T00:00:00Z",
        threshold=threshold,
    )


def test_a_program_gets_the_rows_of_its_side_that_were_played(played: dict[str, Any]) -> None:
    rows = rows_of(played["areas"])
    # LIFE-20 reads server-features/wire-json: the matrix's own rule makes it "not supported"
    assert rows["LIFE-20"]["state"] == "not-supported"
    assert rows["LIFE-21"]["state"] == "supported"
    # only rows of played scenarios, and never a client row
    assert all(row["scenario"] == "server-features" for row in rows.values())
    lifecycle = next(a for a in played["areas"] if a["area"] == "lifecycle")
    assert lifecycle["not_applicable"] > 0  # the area's client rows, counted apart


def test_a_finding_carries_its_whole_sentence(played: dict[str, Any]) -> None:
    (finding,) = rows_of(played["areas"])["LIFE-20"]["findings"]
    assert finding["verdict"] == "fail" and finding["check"] == "wire-json"
    assert finding["sentences"] == [
        {"cite": "docs/specification/2025-06-18/basic/transports.mdx:31", "quote": MUST}
    ]
    assert finding["cell"] == f"server-command/{VERSION}/server-features/2025-06-18~default"


def test_a_failing_check_no_row_reads_is_still_reported(played: dict[str, Any]) -> None:
    report = report_of(played, "never")
    assert [f["check"] for f in report["other_findings"]] == ["made-up-check"]


BROKE = "1 broken MUST (LIFE-20)"
BENT = "1 SHOULD met only non-strictly (made-up-check)"


@pytest.mark.parametrize(
    ("threshold", "errors", "outcome", "why"),
    [
        ("fail", [], "fail", [BROKE]),
        ("non-strict", [], "fail", [BROKE, BENT]),
        ("never", ["x: harness error"], "pass", []),
        ("fail", ["x: error"], "fail", [BROKE, "1 cell(s) ended in a harness error"]),
    ],
)
def test_the_gate_at_each_threshold(
    played: dict[str, Any], threshold: str, errors: list[str], outcome: str, why: list[str]
) -> None:
    report = report_of(played, threshold, errors=errors)
    assert report["result"] == {"threshold": threshold, "outcome": outcome, "why": why}


def test_one_behaviour_seen_in_many_exchanges_is_one_finding(tmp_path: Path) -> None:
    """The same stdout banner breaks the stdio rule in every exchange of a server: one
    finding, with every exchange behind it and the rows that describe it."""
    results = tmp_path / "results"
    for scenario in ("server-features", "server-asks"):
        for revision in ("2025-06-18", "2025-11-25"):
            write_cell(results, scenario, revision, [a_check("wire-json", "fail")], "fail")
    scenarios = load_scenarios()
    cells = read_cells(results)
    areas = checked_areas(
        SERVER, cells, results, {s.id: s.side for s in scenarios}, {},
        {"server-features", "server-asks"},
    )  # fmt: skip
    report = report_of({"results": results, "cells": cells, "areas": areas})
    (group,) = report["findings"]
    assert group["rows"] == ["LIFE-20"] and group["check"] == "wire-json"
    assert sorted((e["scenario"], e["revision"]) for e in group["exchanges"]) == [
        ("server-asks", "2025-06-18"), ("server-asks", "2025-11-25"),
        ("server-features", "2025-06-18"), ("server-features", "2025-11-25"),
    ]  # fmt: skip
    assert report["result"]["why"] == [BROKE]
    text = _terminal.summary(report, {})
    assert text.count("FAIL LIFE-20 (wire-json)") == 1
    assert "in 4 exchanges (server-asks, server-features) at 2 revisions" in text


def test_a_wire_check_a_row_reads_in_one_scenario_is_still_one_finding() -> None:
    """Some rows read a wire check in one named scenario; the same invalid message in
    another scenario is the same behaviour, not a second finding with other rows."""
    read_by = {("server-features", "wire-valid"): ["LIFE-21"],
               ("server-elicits", "wire-valid"): ["ELI-20", "LIFE-21"]}  # fmt: skip
    found = [
        {
            "scenario": scenario,
            "revision": "2025-11-25",
            "check": "wire-valid",
            "verdict": "fail",
            "title": "valid",
            "sentences": [],
            "observed": "x",
            "cell": scenario,
        }
        for scenario in ("server-features", "server-ping")
    ]
    (group,) = grouped([], found, read_by)
    assert group["rows"] == ["ELI-20", "LIFE-21"] and len(group["exchanges"]) == 2


def test_checks_of_one_scenario_that_grade_one_row_are_one_finding(tmp_path: Path) -> None:
    """TRAN-02 reads one check up to 2025-06-18 and another, naming 403, at 2025-11-25: a
    server that serves a foreign Origin at each revision did one thing, so one finding."""
    results = tmp_path / "results"
    write_cell(results, "server-http-session", "2025-06-18", [a_check("foreign-origin", "fail")],
               "fail")  # fmt: skip
    write_cell(results, "server-http-session", "2025-11-25",
               [a_check("foreign-origin-403", "fail")], "fail")  # fmt: skip
    scenarios = load_scenarios()
    cells = read_cells(results)
    areas = checked_areas(
        SERVER, cells, results, {s.id: s.side for s in scenarios}, {}, {"server-http-session"}
    )
    report = report_of({"results": results, "cells": cells, "areas": areas})
    (group,) = report["findings"]
    assert group["rows"] == ["TRAN-02"]
    assert group["check"] == "foreign-origin, foreign-origin-403"
    assert len(group["exchanges"]) == 2
    assert report["result"]["why"] == ["1 broken MUST (TRAN-02)"]


def test_only_non_strict_fails_only_the_non_strict_threshold(tmp_path: Path) -> None:
    results = tmp_path / "results"
    write_cell(
        results, "server-features", "2025-06-18", [a_check("wire-json", "non-strict")], "non-strict"
    )
    scenarios = load_scenarios()
    cells = read_cells(results)
    areas = checked_areas(
        SERVER, cells, results, {s.id: s.side for s in scenarios}, {}, {"server-features"}
    )
    run = {"results": results, "cells": cells, "areas": areas}
    assert report_of(run, "fail")["result"]["outcome"] == "pass"
    assert report_of(run, "non-strict")["result"]["outcome"] == "fail"


def test_the_report_fits_its_schema_and_a_broken_one_does_not(played: dict[str, Any]) -> None:
    report = report_of(played)
    assert validate(report) == []
    report["result"]["outcome"] = "maybe"
    del report["program"]["side"]
    problems = validate(report)
    assert any("program" in p and "side" in p for p in problems)
    assert any("result/outcome" in p for p in problems)


def test_junit_counts_failures_and_skips_per_area(played: dict[str, Any]) -> None:
    report = report_of(played, "non-strict")
    root = ET.fromstring(_junit.junit(report))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    life = suites["Lifecycle and versioning"]
    assert life.get("failures") == "1"
    failure = next(c for c in life.iter("testcase") if c.get("name", "").startswith("LIFE-20"))
    node = failure.find("failure")
    assert node is not None and "MUST NOT" in node.get("message", "")
    # the non-strict check no row reads is a failure of its own suite at this threshold
    assert suites["checks no row reads"].get("failures") == "1"
    (stray,) = suites["checks no row reads"].iter("testcase")
    assert "Servers SHOULD do it." in stray.find("failure").get("message", "")  # type: ignore[union-attr]
    at_fail = ET.fromstring(_junit.junit(report_of(played, "fail")))
    assert "checks no row reads" not in {s.get("name") for s in at_fail.iter("testsuite")}


def test_html_escapes_what_the_program_wrote_and_shows_the_keyword(
    played: dict[str, Any],
) -> None:
    report = report_of(played)
    cells = [
        {
            "folder": f"server-command/{VERSION}/server-features/2025-06-18~default",
            "scenario": "server-features",
            "revision": "2025-06-18",
            "verdict": "fail",
            "reason": HOSTILE,
            "stderr": "server.stderr",
        }
    ]
    page = _html.html(report, played["results"], cells)
    assert "<script>" not in page
    assert page.count("&lt;script&gt;") >= 4  # observed, transcript, stderr, reason
    assert "<strong>MUST NOT</strong>" in page and "**MUST" not in page
    assert "<code>stdout</code>" in page
    # each sentence opens at its lines of the pinned spec
    assert "/docs/specification/2025-06-18/basic/transports.mdx#L31'>" in page


def test_terminal_summary_names_each_finding_with_its_sentence(played: dict[str, Any]) -> None:
    text = _terminal.summary(report_of(played), {"html": "r.html"})
    assert "FAIL LIFE-20 (wire-json): the check wire-json" in text
    assert "“The server MUST NOT write anything" in text
    assert "NON-STRICT no row (made-up-check)" in text
    assert text.rstrip().endswith(f"result: FAIL (--fail-on fail): {BROKE}")


def test_beside_reads_the_published_rows_and_says_what_is_missing(tmp_path: Path) -> None:
    rows = tmp_path / "rows.json"
    assert "there is none" in published(rows, ["py-sdk-server"])["missing"][0]
    rows.write_text("{not json", encoding="utf-8")
    assert "unreadable" in published(rows, ["py-sdk-server"])["missing"][0]
    document = {
        "implementations": [{"id": "py-sdk-server", "name": "Python SDK", "version": "2.3.0"}],
        "areas": [{"rows": [{"id": "LIFE-20", "status": {"py-sdk-server": SUPPORTED}}]}],
    }
    rows.write_text(json.dumps(document), encoding="utf-8")
    got = published(rows, ["py-sdk-server", "no-such-column"])
    assert got["columns"] == [{"id": "py-sdk-server", "name": "Python SDK", "version": "2.3.0"}]
    assert got["states"]["LIFE-20"] == {
        "py-sdk-server": {"state": "supported", "label": "supported"}
    }
    assert got["missing"] == ["no-such-column is not a column of the published matrix"]


def test_the_default_columns_beside_are_published_targets() -> None:
    from compare.exchange._targets import target_files

    known = set(target_files())
    for side in ("client", "server"):
        assert default_beside(side) and set(default_beside(side)) <= known


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (Request(), "--client COMMAND or --server COMMAND"),
        (Request(client="a", server="b"), "--client COMMAND or --server COMMAND"),
        (Request(server="s", fail_on="sometimes"), "not a threshold"),
        (Request(server="s", areas=("no-such-area",)), "unknown area: no-such-area"),
        (Request(client="c {server}", scenarios=("server-features",)), "no client scenario"),
    ],
)
def test_a_request_that_cannot_run_is_refused_with_a_reason(
    isolated: Path, request_: Request, message: str
) -> None:
    with pytest.raises(CompareError, match=message.replace("-", r"\-")):
        check(request_)


def test_a_check_never_writes_into_the_published_results(isolated: Path) -> None:
    inside = isolated / "results" / "mine"
    with pytest.raises(CompareError, match="inside the published results folder"):
        check(Request(server="my-server", out=inside))
    assert not inside.exists()


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("python -m my_server --stdio", "my_server"),
        ("npx -y @acme/mcp-server", "mcp-server"),
        ("/opt/bin/my-client {server}", "my-client"),
        ("http://127.0.0.1:8000/mcp", "127.0.0.1:8000/mcp"),
        ("{node_bin:mcp-remote-client} {url}", "mcp-remote-client"),
    ],
)
def test_a_default_name_comes_from_the_command(command: str, name: str) -> None:
    assert _default_name(command) == name


def test_a_finding_quotes_the_sentence_its_grade_rests_on_at_its_revision() -> None:
    """A check's refs hold every revision's text and the sentences of its other outcomes: a
    non-strict finding at 2025-11-25 shows the SHOULD in force then, not the MUST beside it
    nor the SHOULD an earlier page said."""
    from compare.check._rows import grounding

    old = {"cite": "a.mdx:1", "quote": "Servers **SHOULD** do it.", "until": "2025-03-26"}
    new = {"cite": "b.mdx:2", "quote": "Servers **SHOULD** do it now.", "from": "2025-06-18"}
    must = {"cite": "c.mdx:3", "quote": "Messages **MUST** be JSON."}
    other = {"cite": "d.mdx:4", "quote": "Servers **SHOULD** do else.", "supports": ["else"]}
    check = {"verdict": "non-strict", "outcome": "it", "refs": [old, new, must, other]}
    assert grounding(check, "2025-11-25") == [new]
    assert grounding(check, "2025-03-26") == [old]  # until: the last revision it is in
    assert grounding(check, "2025-06-18") == [new]
    assert grounding(check | {"verdict": "fail"}, "2025-11-25") == [must]


def test_one_check_id_in_two_scenarios_read_by_two_rows_is_two_findings(tmp_path: Path) -> None:
    """A check id is the scenario's word: the same id in two scenarios read by two rows is
    two behaviours (a completion's unknown prompt is not prompts/get's)."""
    results = tmp_path / "results"
    for scenario in ("x", "y"):
        write_cell(results, scenario, "2025-06-18", [a_check("dup", "fail")], "fail")
    cells = read_cells(results)
    report = report_of({"results": results, "cells": cells, "areas": []})
    assert [(g["rows"], len(g["exchanges"])) for g in report["findings"]] == [
        (["X-1"], 1), (["Y-1"], 1)
    ]  # fmt: skip
