"""The files stages hand each other keep the shape their JSON Schemas publish.

Each contract of ``compare._contracts`` names a schema beside the module that writes the file.
Here every schema is a valid draft 2020-12 schema, every schema under ``compare/`` is listed
(a new one cannot be forgotten), every shipped data file validates, and every file a real
pipeline run produces — a real client cell, a real server cell and a real proxy cell, played
in a temporary folder, then judged, rowed, cited, exported and built — validates against its
schema, while the same file with a required key taken out does not: a schema that accepted
anything would fail here.
"""

from __future__ import annotations

import copy
import json
import shutil
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from compare import _contracts
from compare._contracts import CONTRACTS, Contract, contract
from compare._paths import PROJECT_ROOT, tools_dir
from compare._yaml import load_yaml
from compare.judge._verdicts import VERDICTS
from compare.rows import STATE_PROMISES


def _validator(entry: Contract) -> Draft202012Validator:
    schema = entry.load_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _errors(entry: Contract, value: Any) -> list[str]:
    return [f"{e.json_path}: {e.message}" for e in _validator(entry).iter_errors(value)]


def _first(mapping: dict[str, Any]) -> dict[str, Any]:
    value: dict[str, Any] = next(iter(mapping.values()))
    return value


#: Files that are maps of named entries require nothing at the top: a required key of their
#: first entry is taken out instead (and so for a file whose lines are of more than one kind).
_INNER: dict[str, Any] = {
    "gates": lambda doc: _first(doc["client"]).pop("verdict"),
    "sentences": lambda doc: _first(doc).pop("quote"),
    # a line is one of two kinds (a request's outcome, a resource update): its first key goes
    "host-session": lambda doc: doc.pop(next(iter(doc))),
}


def _without_a_required_key(entry: Contract, value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with the first key the schema requires (and ``value`` has) taken out."""
    mutated = copy.deepcopy(value)
    if entry.name in _INNER:
        _INNER[entry.name](mutated)
        return mutated
    required = [k for k in entry.load_schema().get("required", []) if k in value]
    assert required, f"{entry.name}: the schema requires nothing this file has"
    del mutated[required[0]]
    return mutated


def _documents(entry: Contract, path: Path) -> list[Any]:
    if entry.form == "jsonl":
        return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    if entry.form == "toml":
        return [tomllib.loads(path.read_text("utf-8"))]
    if entry.form == "yaml":
        return [load_yaml(path)]
    return [json.loads(path.read_text("utf-8"))]


def _assert_holds(entry: Contract, paths: list[Path]) -> None:
    """Every document of ``paths`` validates; the first, mutated, does not."""
    assert paths, f"no {entry.where} was produced"
    problems = [
        f"{p}: {e}" for p in paths for doc in _documents(entry, p) for e in _errors(entry, doc)
    ]
    assert problems == []
    first = _documents(entry, paths[0])[0]
    assert _errors(entry, _without_a_required_key(entry, first)), (
        f"{entry.name}: a {entry.where} without a required key still validates"
    )


def test_every_contract_schema_is_a_valid_schema_with_a_title_and_a_description() -> None:
    names = [c.name for c in CONTRACTS]
    assert len(names) == len(set(names))
    for entry in CONTRACTS:
        schema = entry.load_schema()
        Draft202012Validator.check_schema(schema)
        assert entry.title != entry.name and entry.description, entry.schema
        assert entry.form in {"json", "jsonl", "toml", "yaml"} and entry.kind in {"data", "output"}


def test_every_schema_beside_the_code_is_a_listed_contract() -> None:
    """A schema added beside a writer without an entry here would be published nowhere."""
    found = {
        p.relative_to(PROJECT_ROOT).as_posix()
        for p in (PROJECT_ROOT / "compare").rglob("*.schema.json")
        if "node_modules" not in p.parts
    }
    assert found == {c.schema for c in CONTRACTS}


def test_the_rows_schema_knows_exactly_the_states_the_rows_stage_promises() -> None:
    defs = contract("rows").load_schema()["$defs"]
    assert set(defs["state"]["enum"]) == set(STATE_PROMISES)
    verdicts = defs["column"]["properties"]["revisions"]["additionalProperties"]
    assert set(verdicts["properties"]["verdict"]["enum"]) == set(VERDICTS)


def test_contract_lookup_names_an_unknown_contract() -> None:
    with pytest.raises(KeyError, match="nonesuch"):
        _contracts.contract("nonesuch")


def _shipped(pattern: str) -> list[Path]:
    return sorted(p for p in (PROJECT_ROOT / "compare").glob(pattern))


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("target", "exchange/targets/*.yaml"),
        ("scenario", "exchange/scenarios/[!_]*.yaml"),
        ("gates", "exchange/scenarios/_gates.yaml"),
        ("sentences", "exchange/scenarios/_sentences.yaml"),
        ("area", "rows/areas/*.yaml"),
        ("implementations", "rows/implementations.yaml"),
        ("variants", "hosts/variants.yaml"),
        ("check-beside", "check/beside.yaml"),
    ],
)
def test_every_shipped_data_file_holds_its_contract(name: str, pattern: str) -> None:
    _assert_holds(contract(name), _shipped(pattern))


def test_the_pins_hold_their_contract() -> None:
    _assert_holds(contract("revisions"), [PROJECT_ROOT / "schemas" / "revisions.toml"])


@pytest.mark.clients  # reads what tools install built
def test_a_go_host_build_record_holds_its_contract() -> None:
    records = sorted(tools_dir().glob("hosts/*/build.json"))
    if not records:
        pytest.skip(f"not run, because no Go host program is built under {tools_dir()}")
    _assert_holds(contract("go-build"), records)


# --- files a real run produces ---------------------------------------------------------------

#: One real client, one real server and one real proxy, each at one revision (the other
#: combinations of the selection are not-run cells, which write verdicts too). The proxy is
#: one whose relay-roots cell passes in under 2 s: the pipeline plays a failing cell twice
#: more to settle it (fastmcp-proxy's took three plays of 6 s), which no file here needs.
PROXY = "supergateway-http-to-stdio"
TARGETS = ("ts-sdk", "py-sdk-server", PROXY)
#: client-tool-answers records requests that return and raise; client-resource-subscribe a
#: resource update the SDK handed our handler, the record's other kind of line.
SCENARIOS = (
    "handshake",
    "server-asks",
    "relay-roots",
    "client-tool-answers",
    "client-resource-subscribe",
)


@pytest.fixture(scope="module")
def produced(
    pinned_spec: Path, shared_spec: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """A checkout-like temporary folder after one real ``mcp-compare compare``."""
    from compare.pipeline import Selection, run_pipeline

    root = tmp_path_factory.mktemp("contracts")
    shutil.copytree(pinned_spec, root / "cache")
    shutil.copytree(PROJECT_ROOT / "schemas", root / "schemas")
    # One area: every file kind a stage writes is written for it, and the run's cost no
    # longer grows with each area added.
    (root / "areas").mkdir()
    shutil.copy2(PROJECT_ROOT / "compare" / "rows" / "areas" / "roots.yaml", root / "areas")
    chosen = Selection(targets=TARGETS, scenarios=SCENARIOS, revisions=("2025-11-25",))
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        for name in ("cache", "schemas", "areas", "results", "build", "site"):
            patch.setenv(f"MCP_COMPARE_{name.upper()}", str(root / name))
        patch.setenv("MCP_COMPARE_SPEC", str(shared_spec))
        _, code = run_pipeline(jobs=2, chosen=chosen, say=lines.append)
        assert code == 0, "\n".join(lines)
        yield root


#: contract → the files of the run it covers (relative to the temporary checkout).
PRODUCED = {
    "plan": ["results/*/*/*/*/plan.json", "results/*/*/*/*/upstream-plan.json"],
    "transcript": ["results/*/*/*/*/transcript.jsonl", "results/*/*/*/*/upstream-*.jsonl"],
    "host-plan": ["results/*/*/*/*/host-plan.json"],
    "host-session": ["results/*/*/*/*/host-session.jsonl"],
    "done": ["results/*/*/*/*/done.json"],
    "process": ["results/*/*/*/*/process.json"],
    "verdict": ["results/*/*/*/*/verdict.json"],
    "diff": ["build/diff.json"],
    "rows": ["build/rows.json"],
    "citations": ["build/citations.json"],
    "matrix": ["build/matrix.json"],
    "stamp": ["build/stamps/*.json"],
}


def test_every_output_contract_is_covered_by_a_produced_file() -> None:
    outputs = {c.name for c in CONTRACTS if c.kind == "output"}
    # go-build: built by tools install, checked above; check-report: written by a check of a
    # real server in tests/check/test_check_real.py, validated there (a mutated one fails
    # in tests/check/test_check_report.py)
    assert outputs - set(PRODUCED) == {"go-build", "check-report"}


@pytest.mark.clients
@pytest.mark.parametrize("name", sorted(PRODUCED))
def test_a_real_produced_file_holds_its_contract_and_a_mutated_one_fails(
    name: str, produced: Path
) -> None:
    paths = sorted({p for pattern in PRODUCED[name] for p in produced.glob(pattern)})
    _assert_holds(contract(name), paths)


@pytest.mark.clients
def test_the_run_produced_a_cell_of_each_side(produced: Path) -> None:
    """The proxy's upstream plan and legs, the server's scripted-client plan and the client's
    peer plan were all among the files validated above."""
    plans = [json.loads(p.read_text("utf-8")) for p in produced.glob("results/*/*/*/*/plan.json")]
    assert {"side" in p for p in plans} == {True, False}
    assert list(produced.glob(f"results/{PROXY}/*/relay-roots/*/upstream-plan.json"))
    merged = produced.glob(f"results/{PROXY}/*/relay-roots/*/transcript.jsonl")
    legs = {
        json.loads(line).get("leg") for p in merged for line in p.read_text("utf-8").splitlines()
    }
    assert {"host", "upstream"} <= legs


@pytest.mark.clients
def test_the_session_records_held_both_kinds_of_line(produced: Path) -> None:
    """A request's outcome and a resource update were among the record lines validated."""
    records = produced.glob("results/ts-sdk/*/*/*/host-session.jsonl")
    lines = [json.loads(line) for p in records for line in p.read_text("utf-8").splitlines()]
    assert {"step" in e for e in lines} == {True, False}
