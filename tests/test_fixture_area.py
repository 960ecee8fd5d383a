"""A new area is data, measured on real SDK hosts (issue 22, "Done when", second bullet).

``tests/fixtures/elicitation/`` holds an area file with one measured row (ELI-01,
"elicitation/create answered"), the scenario its status queries and the host-plan variant the
hosts play. Nothing else is written for it: the pins learn the area's spec page from the area
file (``pin add``), the diff its schema items, the peer sends elicitation/create from the
scenario's step, the shipped py-sdk and ts-sdk hosts declare and answer it from the variant
(laid over their target data, their programs untouched), the generic judge rules read the
method, definition and capability from the scenario's checks, and the rows stage computes the
row's columns from the verdicts.

What is asserted is what the wire shows: each host declared elicitation, the peer's request
went out, the host's answer is the variant's canned answer byte for byte as JSON, the judge
graded it from the negotiated revision's ``ElicitResult``, and the row's column for each host
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
from compare.exchange import Cell, RunSettings, load_targets, run_cells
from compare.exchange._host_plan import resolve_variants
from compare.exchange._scenarios import load_scenario_file
from compare.exchange._transcript import read_transcript
from compare.pin import release_order

pytestmark = pytest.mark.clients

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "elicitation"
SCENARIO = FIXTURE / "scenarios" / "elicitation-answered.yaml"
VARIANTS = FIXTURE / "variants.yaml"
#: Real SDK hosts of two languages; each already answers elicitation from a host plan.
HOSTS = ("py-sdk", "ts-sdk")
VARIANT = "elicitation"


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
        scenario = load_scenario_file(SCENARIO)
        own = resolve_variants(load_yaml(VARIANTS), VARIANTS)
        shipped = {t.id: t for t in load_targets()}
        targets = [
            dataclasses.replace(shipped[h], variants={**shipped[h].variants, **own}) for h in HOSTS
        ]
        played_at = [r for r in revisions() if scenario.plays(r)]
        cells = [Cell(t, VARIANT, scenario, r) for t in targets for r in played_at]
        settings = RunSettings(tmp / "results", "test", revisions(), tools=tools)
        verdicts = run_cells(cells, settings, jobs=2)

        from compare.rows import area_files, compute, gather

        known = gather(scenarios=SCENARIO.parent, diff=tmp / "build" / "diff.json")
        rows = compute(files=area_files(FIXTURE / "areas"), known=known, results=tmp / "results")
    # kept beside the cells, for a reader of a failure
    (tmp / "build" / "rows.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return {
        "tmp": tmp,
        "scenario": scenario,
        "answer": own[VARIANT]["features"]["elicitation"]["answer"],
        "revisions": played_at,
        "verdicts": {(v["target"], v["revision"]): v for v in verdicts},
        "rows": rows,
        "diff": json.loads((tmp / "build" / "diff.json").read_text(encoding="utf-8")),
    }


def _lines(played: dict[str, Any], target: str, revision: str) -> list[Any]:
    verdict = played["verdicts"][(target, revision)]
    folder = (
        played["tmp"]
        / "results"
        / target
        / verdict["target_version"]
        / "elicitation-answered"
        / f"{revision}~{VARIANT}"
    )
    return read_transcript(folder / "transcript.jsonl").lines


def test_the_fixture_plays_where_elicitation_is_a_plain_request(played: dict[str, Any]) -> None:
    """Its window comes from its file; each revision in it exists in the pins, defines
    ElicitResult (the loader checked that too) and was played by both hosts."""
    items = played["diff"]["areas"]["elicitation"]["items"]
    assert played["revisions"], "the window holds pinned revisions"
    for rev in played["revisions"]:
        assert items["ElicitResult"]["revisions"][rev]["present"], rev
    assert set(played["verdicts"]) == {(h, r) for h in HOSTS for r in played["revisions"]}


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_answers_elicitation_create_with_the_variants_answer(
    played: dict[str, Any], host: str
) -> None:
    for revision in played["revisions"]:
        verdict = played["verdicts"][(host, revision)]
        assert verdict["verdict"] != "error", verdict["reason"]
        lines = _lines(played, host, revision)
        asked = [x for x in lines if x.dir == "out" and x.method == "elicitation/create"]
        assert len(asked) == 1, "the peer sent the scenario's request once"
        answers = [
            x
            for x in lines
            if x.dir == "in" and x.is_response and x.obj.get("id") == asked[0].obj["id"]
        ]
        assert answers, f"{host} {revision}: no answer on the wire"
        assert answers[0].obj.get("result") == played["answer"], answers[0].raw
        checks = {c["id"]: c for c in verdict["checks"]}
        declared = verdict["client_capabilities"].get("elicitation")
        assert isinstance(declared, dict), verdict["client_capabilities"]
        assert checks["declares"]["outcome"] == (
            "member-declared" if "form" in declared else "declared"
        )
        assert checks["answered"]["outcome"] == "result"
        assert checks["answered"]["evidence"] == [answers[0].n]
        assert checks["result-valid"]["outcome"] == "valid", checks["result-valid"]["observed"]
        assert checks["result-valid"]["observed"] == f"valid ElicitResult at {revision}"
        assert verdict["verdict"] == "pass", verdict["reason"]


def test_pin_and_diff_learnt_the_area_from_its_file(played: dict[str, Any]) -> None:
    pins = (played["tmp"] / "schemas" / "revisions.toml").read_text(encoding="utf-8")
    for rev in played["revisions"]:
        assert f"docs/specification/{rev}/client/elicitation.mdx" in pins
    items = played["diff"]["areas"]["elicitation"]["items"]
    for name in ("ElicitRequest", "ElicitResult", "ClientCapabilities.elicitation"):
        present = [r for r, at in items[name]["revisions"].items() if at["present"]]
        assert present and "2024-11-05" not in present, (name, present)


def test_the_row_is_measured_from_the_cells_of_both_hosts(played: dict[str, Any]) -> None:
    (area,) = played["rows"]["areas"]
    (row,) = area["rows"]
    assert row["id"] == "ELI-01"
    for host in HOSTS:
        column = row["status"][host]
        graded = [
            c["verdict"]
            for (t, _), v in played["verdicts"].items()
            if t == host
            for c in v["checks"]
            if c["id"] in ("answered", "result-valid")
        ]
        # the state promises what every graded check behind it says (README, row states)
        want = "supported" if set(graded) == {"pass"} else "partial"
        assert column["state"] == want, column
    # a target that did not play the fixture says why, never a state it was not measured for
    others = [t for t in row["status"] if t not in HOSTS]
    assert others, "every other target is a column too"
    for target in others:
        column = row["status"][target]
        assert column["state"] == "not-run" and column["reason"].startswith("not run, because")
    # the row's own claims: where it exists from the diff, its sources verified at the pins
    where = row["where"]["revisions"]
    absent = [r for r, at in where.items() if at["state"] == "absent"]
    first = min(played["revisions"], key=release_order)
    assert absent and all(release_order(r) < release_order(first) for r in absent), absent
    assert {s["status"] for s in row["sources"]} == {"verified"}, row["sources"]
    assert played["rows"]["issues"] == []
