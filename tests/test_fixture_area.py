"""A new area is data, measured on real SDK hosts (issue 22, "Done when", second bullet).

``tests/fixtures/elicitation/`` holds an area file with two measured rows (ELI-01,
"elicitation/create answered", and ELI-02, the same request embedded in a 2026-07-28
InputRequiredResult and answered in the retry), the two scenarios their status queries and
the host-plan variant the hosts play. Nothing else is written for it: the pins learn the
area's spec page from the area file (``pin add``), the diff its schema items, the peer sends or
embeds elicitation/create from the scenarios' steps, the shipped py-sdk and ts-sdk hosts
declare and answer it from the variant (laid over their target data, their programs
untouched), the generic judge rules read the method, definition and capability from the
scenarios' checks, and the rows stage computes the rows' columns from the verdicts.

What is asserted is what the wire shows: each host declared elicitation, the peer's request
went out (or rode an InputRequiredResult), the host's answer is the variant's canned answer,
the judge graded it from the revision's ``ElicitResult``, and each row's column for each host
is the state its cells' graded checks give.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare import _paths
from compare._paths import PROJECT_ROOT
from compare._yaml import load_yaml
from compare.exchange._host_plan import resolve_variants
from compare.exchange._scenarios import Scenario, load_scenario_file
from compare.exchange._targets import load_targets
from compare.judge._transcript import Line, read_transcript
from compare.pin import release_order
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

pytestmark = pytest.mark.clients

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "elicitation"
SCENARIOS = FIXTURE / "scenarios"
VARIANTS = FIXTURE / "variants.yaml"
#: Real SDK hosts of two languages; each already answers elicitation from a host plan.
HOSTS = ("py-sdk", "ts-sdk")
VARIANT = "elicitation"
PLAIN, EMBEDDED = "elicitation-answered", "elicitation-embedded"
ROWS = {"ELI-01": PLAIN, "ELI-02": EMBEDDED}


def _run(env: dict[str, str], *args: str) -> None:
    proc = subprocess.run(
        [CLI, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, f"mcp-compare {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"


@pytest.fixture(scope="module")
def played(
    shared_spec: Path, pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The fixture area pinned and diffed by the real commands, its cells played against the
    real hosts, and its rows computed: what each stage produced."""
    tools = _paths.tools_dir()
    tmp = tmp_path_factory.mktemp("fixture-area")
    shutil.copytree(PROJECT_ROOT / "schemas", tmp / "schemas")  # pins and generated models
    shutil.copytree(pinned_spec / "spec", tmp / "cache" / "spec")  # already verified files
    locations = {
        f"MCP_COMPARE_{name.upper()}": str(tmp / name)
        for name in ("schemas", "cache", "build", "site", "results")
    }
    env = {
        **os.environ,
        **locations,
        "MCP_COMPARE_SPEC": str(shared_spec),
        "MCP_COMPARE_AREAS": str(FIXTURE / "areas"),
    }
    for rev in revisions():  # pins the area's spec page where it exists (nothing else changes)
        _run(env, "pin", "add", rev)
    _run(env, "pin", "verify", "--no-fetch")
    _run(env, "diff", "--quiet")
    with pytest.MonkeyPatch.context() as mp:
        for key, value in locations.items():
            mp.setenv(key, value)
        mp.setenv("MCP_COMPARE_AREAS", str(FIXTURE / "areas"))
        scenarios = {s: load_scenario_file(SCENARIOS / f"{s}.yaml") for s in (PLAIN, EMBEDDED)}
        own = resolve_variants(load_yaml(VARIANTS), VARIANTS)
        shipped = {t.id: t for t in load_targets()}
        targets = [
            dataclasses.replace(shipped[h], variants={**shipped[h].variants, **own}) for h in HOSTS
        ]
        cells = [
            Cell(t, VARIANT, s, r)
            for s in scenarios.values()
            for t in targets
            for r in revisions()
            if s.plays(r)
        ]
        settings = RunSettings(tmp / "results", "test", revisions(), tools=tools)
        verdicts = run_cells(cells, settings, jobs=2)

        from compare.rows import area_files, compute, gather

        known = gather(scenarios=SCENARIOS, diff=tmp / "build" / "diff.json")
        rows = compute(files=area_files(FIXTURE / "areas"), known=known, results=tmp / "results")
    # kept beside the cells, for a reader of a failure
    (tmp / "build" / "rows.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return {
        "tmp": tmp,
        "scenarios": scenarios,
        "answer": own[VARIANT]["features"]["elicitation"]["answer"],
        "verdicts": {(v["target"], v["scenario"], v["revision"]): v for v in verdicts},
        "rows": rows,
        "diff": json.loads((tmp / "build" / "diff.json").read_text(encoding="utf-8")),
    }


def _revisions_of(played: dict[str, Any], scenario: str) -> list[str]:
    s: Scenario = played["scenarios"][scenario]
    return [r for r in revisions() if s.plays(r)]


def _lines(played: dict[str, Any], target: str, scenario: str, revision: str) -> list[Line]:
    verdict = played["verdicts"][(target, scenario, revision)]
    folder = played["tmp"] / "results" / target / verdict["target_version"] / scenario
    return read_transcript(folder / f"{revision}~{VARIANT}" / "transcript.jsonl").lines


def _checks(verdict: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in verdict["checks"]}


def test_the_scenarios_play_where_elicitation_exists(played: dict[str, Any]) -> None:
    """Their windows come from their files; each revision in them defines ElicitResult (the
    loader checked that too), the plain one ends where the embedded one begins, and both
    hosts played every cell."""
    items = played["diff"]["areas"]["elicitation"]["items"]
    plain, embedded = _revisions_of(played, PLAIN), _revisions_of(played, EMBEDDED)
    assert plain and embedded and not set(plain) & set(embedded)
    for rev in plain + embedded:
        assert items["ElicitResult"]["revisions"][rev]["present"], rev
    want = {(h, s, r) for s in (PLAIN, EMBEDDED) for h in HOSTS for r in _revisions_of(played, s)}
    assert set(played["verdicts"]) == want


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_answers_elicitation_create_with_the_variants_answer(
    played: dict[str, Any], host: str
) -> None:
    for revision in _revisions_of(played, PLAIN):
        verdict = played["verdicts"][(host, PLAIN, revision)]
        assert verdict["verdict"] != "error", verdict["reason"]
        lines = _lines(played, host, PLAIN, revision)
        asked = [x for x in lines if x.dir == "out" and x.method == "elicitation/create"]
        assert len(asked) == 1, "the peer sent the scenario's request once"
        answers = [
            x
            for x in lines
            if x.dir == "in" and x.is_response and x.obj.get("id") == asked[0].obj["id"]
        ]
        assert answers, f"{host} {revision}: no answer on the wire"
        assert answers[0].obj.get("result") == played["answer"], answers[0].raw
        checks = _checks(verdict)
        declared = verdict["client_capabilities"].get("elicitation")
        assert isinstance(declared, dict), verdict["client_capabilities"]
        member = "member-declared" if "form" in declared else "declared"
        assert checks["declares"]["outcome"] == member
        assert checks["answered"]["outcome"] == "result"
        assert checks["answered"]["evidence"] == [answers[0].n]
        assert checks["result-valid"]["outcome"] == "valid", checks["result-valid"]["observed"]
        assert checks["result-valid"]["observed"] == f"valid ElicitResult at {revision}"
        assert verdict["verdict"] == "pass", verdict["reason"]


@pytest.mark.parametrize("host", HOSTS)
def test_from_the_era_boundary_the_request_rides_the_input_required_result(
    played: dict[str, Any], host: str
) -> None:
    """A host that speaks 2026-07-28 gets elicitation/create inside the InputRequiredResult of
    its tools/call and answers in the retry; one that opens with initialize is never asked
    (not-asked, not exercised), and the transcript shows no InputRequiredResult at all."""
    for revision in _revisions_of(played, EMBEDDED):
        verdict = played["verdicts"][(host, EMBEDDED, revision)]
        assert verdict["verdict"] != "error", verdict["reason"]
        checks = _checks(verdict)
        lines = _lines(played, host, EMBEDDED, revision)
        carried = [
            x
            for x in lines
            if x.dir == "out"
            and isinstance(x.obj.get("result"), dict)
            and x.obj["result"].get("resultType") == "input_required"
        ]
        if checks["speaks-modern"]["outcome"] == "legacy":
            assert not carried
            assert checks["answered"]["outcome"] == "not-asked"
            assert checks["result-valid"]["outcome"] == "no-result"
            continue
        (asked,) = carried
        (key,) = asked.obj["result"]["inputRequests"]
        assert asked.obj["result"]["inputRequests"][key]["method"] == "elicitation/create"
        retries = [
            x
            for x in lines
            if x.dir == "in" and x.method == "tools/call" and "inputResponses" in x.params
        ]
        assert retries, f"{host} {revision}: no retry"
        assert retries[0].params["inputResponses"][key] == played["answer"]
        assert checks["answered"]["outcome"] == "result"
        assert checks["answered"]["evidence"] == [retries[0].n]
        assert checks["result-valid"]["outcome"] == "valid", checks["result-valid"]["observed"]
        assert verdict["verdict"] == "pass", verdict["reason"]
    # the Python SDK speaks 2026-07-28 (DESIGN.md: server/discover first), so ELI-02 is
    # measured on a real answer, not only on not-asked columns
    if host == "py-sdk":
        outcomes = {
            _checks(played["verdicts"][(host, EMBEDDED, r)])["speaks-modern"]["outcome"]
            for r in _revisions_of(played, EMBEDDED)
        }
        assert outcomes == {"modern"}


def test_pin_and_diff_learnt_the_area_from_its_file(played: dict[str, Any]) -> None:
    pins = (played["tmp"] / "schemas" / "revisions.toml").read_text(encoding="utf-8")
    for rev in _revisions_of(played, PLAIN) + _revisions_of(played, EMBEDDED):
        assert f"docs/specification/{rev}/client/elicitation.mdx" in pins
    items = played["diff"]["areas"]["elicitation"]["items"]
    for name in ("ElicitRequest", "ElicitResult", "ClientCapabilities.elicitation"):
        present = [r for r, at in items[name]["revisions"].items() if at["present"]]
        assert present and "2024-11-05" not in present, (name, present)


def _state(graded: list[str]) -> str:
    """What a row promises over its graded checks (README, "A row's state"); a check never
    exercised grades nothing but says so (issue 36)."""
    unexercised = "not-exercised" in graded
    graded = [v for v in graded if v != "not-exercised"]
    if not graded:
        return "not-exercised" if unexercised else "observed"
    if set(graded) == {"pass"}:
        return "supported"
    return "not-supported" if set(graded) == {"fail"} else "partial"


def test_each_row_is_measured_from_the_cells_of_both_hosts(played: dict[str, Any]) -> None:
    (area,) = played["rows"]["areas"]
    rows = {r["id"]: r for r in area["rows"]}
    assert set(rows) == set(ROWS)
    for row_id, scenario in ROWS.items():
        row = rows[row_id]
        for host in HOSTS:
            graded = [
                c["verdict"]
                for (t, s, _), v in played["verdicts"].items()
                if t == host and s == scenario
                for c in v["checks"]
                if c["id"] in row["status_query"]["check"] and c["verdict"] != "informational"
            ]
            assert row["status"][host]["state"] == _state(graded), (row_id, host)
        # a target that did not play the fixture says why, never a state it was not measured for
        others = [t for t in row["status"] if t not in HOSTS]
        assert others, "every other target is a column too"
        for target in others:
            column = row["status"][target]
            assert column["state"] == "not-run" and column["reason"].startswith("not run, because")
        assert {s["status"] for s in row["sources"]} == {"verified"}, row["sources"]
    # ELI-01's "where it exists" is the diff's: absent before the first revision it plays at
    where = rows["ELI-01"]["where"]["revisions"]
    absent = [r for r, at in where.items() if at["state"] == "absent"]
    first = min(_revisions_of(played, PLAIN), key=release_order)
    assert absent and all(release_order(r) < release_order(first) for r in absent), absent
    assert rows["ELI-01"]["status"]["py-sdk"]["state"] == "supported"
    assert rows["ELI-02"]["status"]["py-sdk"]["state"] == "supported"
    assert played["rows"]["issues"] == []
