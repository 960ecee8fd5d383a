"""Host plans (``compare/exchange/_host_plan.py``): variants as named plan fragments, said once,
resolved per target, expanded per cell, checked against the schema, and a lacked feature
turning a cell into "not run, because …"."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from _revisions import revisions
from play.fakes import FAKE_CLIENT

from compare._errors import CompareError
from compare.exchange._host_plan import (
    HOST_PLAN,
    HOST_PLAN_SCHEMA,
    HOST_SESSION,
    MAX_RECORD_BYTES,
    SESSION_RECORD,
    common,
    host_plan,
    keep_record,
    needs,
    resolve_variants,
    write_host_plan,
)
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import Target, load_targets, parse_target
from compare.judge.rules._registry import ADDED_ROOT
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

WHERE = Path("demo.yaml")


def _host(**extra: Any) -> dict[str, Any]:
    """A minimal SDK host target entry (its launch line ends as the contract says)."""
    data: dict[str, Any] = {
        "id": "demo",
        "name": "Demo SDK",
        "kind": "sdk-host",
        "package": {"registry": "npm", "name": "demo", "version": "1.0.0"},
        "roots_uri": "the demo host builds URIs with the platform helper",
        "launch": {"argv": ["demo-host", "--plan", "{host_plan}", "--", "{server_argv}"]},
        "variants": ["roots", "no-roots"],
        "ends": "self",
        "timeout_s": 30,
    }
    data.update(extra)
    return data


def test_the_added_root_is_said_once_and_the_judge_reads_it() -> None:
    assert common().added_root == ADDED_ROOT
    change = common().variants["roots"]["features"]["roots"]["changes"][0]
    assert change["add_folders"] == ["{workspace}/" + ADDED_ROOT]


def test_a_cell_plan_expands_the_folders_and_passes_the_schema(tmp_path: Path) -> None:
    workspace = tmp_path / "web #staging é"
    plan = host_plan(common().variants["roots"], workspace, tmp_path / "control")
    jsonschema.Draft202012Validator(json.loads(HOST_PLAN_SCHEMA.read_text("utf-8"))).validate(plan)
    roots = plan["features"]["roots"]
    assert roots["folders"] == [str(workspace)]
    assert roots["changes"][0]["add_folders"] == [f"{workspace}/{ADDED_ROOT}"]
    assert plan["session"] == {"call_tools": True} and plan["options"] == {}
    assert host_plan(common().variants["no-roots"], workspace, tmp_path)["features"] == {}


def test_an_own_variant_starts_from_its_base() -> None:
    own = {"roots-documented": {"base": "roots", "options": {"roots_form": "documented"}}}
    variants = resolve_variants(["roots", own, "no-roots"], WHERE)
    assert list(variants) == ["roots", "roots-documented", "no-roots"]
    assert variants["roots-documented"]["features"] == variants["roots"]["features"]
    assert variants["roots-documented"]["options"] == {"roots_form": "documented"}
    assert needs(variants["roots-documented"]) == ["roots"] and needs(variants["no-roots"]) == []


@pytest.mark.parametrize(
    ("items", "says"),
    [
        (["roots", "rots"], "variants.1: 'rots' is not a common variant"),
        (["roots", "roots"], "listed twice"),
        ([{"mine": {"base": "nothing"}}], "variants.0.mine.base"),
        ([{"mine": {"features": {"roots": {"folders": ["relative"]}}}}], "variants.0.mine"),
        ([{"mine": {"surprise": 1}}], "surprise"),
    ],
    ids=["unknown-common", "twice", "unknown-base", "bad-fragment", "unknown-key"],
)
def test_a_bad_variant_names_the_file_and_the_key(items: list[Any], says: str) -> None:
    with pytest.raises(CompareError) as err:
        resolve_variants(items, WHERE)
    assert str(WHERE) in err.value.message and says in err.value.message


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"launch": {"argv": ["demo-host", "--", "{server_argv}"]}}, "never passes {host_plan}"),
        (
            {"launch": {"argv": ["demo-host", "{host_plan}", "--", "{server_argv}"]}},
            "must end with --plan {host_plan} -- {server_argv}",
        ),
        ({"variants": None}, "lists no variants"),
        ({"lacks": {"logging": {"why": "no such feature", "source": "x"}}}, "lacks"),
    ],
    ids=["no-plan", "bare-plan", "plan-without-variants", "unknown-lack"],
)
def test_an_sdk_host_line_that_breaks_the_contract_is_refused(
    change: dict[str, Any], says: str
) -> None:
    data = {k: v for k, v in _host(**change).items() if v is not None}
    with pytest.raises(CompareError) as err:
        parse_target(data, WHERE)
    assert says in err.value.message


def test_every_shipped_sdk_host_passes_a_plan_and_names_no_feature() -> None:
    hosts = [t for t in load_targets() if t.kind == "sdk-host"]
    stdio = [t for t in hosts if not t.connects_by_url]
    # the ten of issue 22, then mcp-use (PyPI and npm), mcp-agent and Mastra 1.x of issue 23
    assert len(stdio) == 14
    ids = {t.id for t in stdio}
    for target in hosts:
        tail = ["--url", "{url}"] if target.connects_by_url else ["--", "{server_argv}"]
        assert target.argv[-4:] == ["--plan", "{host_plan}", *tail], target.id
        own = ("--plan", tail[0])
        assert not any(a.startswith("--") and a not in own for a in target.argv), target.id
        assert {"roots", "no-roots"} <= set(target.variants), target.id
        if target.connects_by_url:  # the same host handed our URL: its stdio twin is shipped
            assert target.id.removesuffix("-http") in ids, target.id


def _fake_host(tmp_path: Path, **extra: Any) -> Target:
    """A ``command`` target running the fake client with the host plan (``--plan``)."""
    argv = [sys.executable, str(FAKE_CLIENT), "--mode", "good", "--control", "{control}"]
    data = {
        "id": "fake-planned",
        "name": "fake planned client",
        "kind": "command",
        "launch": {"argv": [*argv, "--plan", "{host_plan}", "--", "{server_argv}"]},
        "variants": ["roots", "no-roots"],
        "ends": "harness",
        "timeout_s": 20,
        "can_change_roots": True,
        **extra,
    }
    return parse_target(data, tmp_path / "fake-planned.yaml")


def _settings(tmp_path: Path) -> RunSettings:
    return RunSettings(tmp_path / "results", "test-commit", revisions())


def _scenario(sid: str) -> Any:
    return next(s for s in load_scenarios() if s.id == sid)


@pytest.fixture
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.mark.usefixtures("_spec_cache")
def test_a_lacked_feature_is_not_run_and_says_why(tmp_path: Path) -> None:
    lacks = {"roots": {"why": "this SDK has no roots API", "source": "demo/client.go:1"}}
    target = _fake_host(tmp_path, lacks=lacks)
    lacked = Cell(target, "roots", _scenario("roots-list"), "2025-11-25")
    played = Cell(target, "no-roots", _scenario("roots-undeclared"), "2025-11-25")
    first, second = run_cells([lacked, played], _settings(tmp_path))
    assert first["verdict"] == "not-run"
    assert first["reason"] == (
        "not run, because fake planned client lacks roots: this SDK has no roots API"
    )
    assert second["verdict"] != "not-run"


@pytest.mark.usefixtures("_spec_cache")
def test_the_harness_writes_the_host_plan_beside_the_peer_plan(tmp_path: Path) -> None:
    target = _fake_host(tmp_path)
    cells = [
        Cell(target, "roots", _scenario("roots-list"), "2025-11-25"),
        Cell(target, "no-roots", _scenario("roots-undeclared"), "2025-11-25"),
    ]
    with_roots, without = run_cells(cells, _settings(tmp_path))
    folder = cells[0].folder(tmp_path / "results")
    plan = json.loads((folder / HOST_PLAN).read_text("utf-8"))
    peer = json.loads((folder / "plan.json").read_text("utf-8"))
    assert plan["workspace"] == peer["workspace"] and plan["control"] == peer["control"]
    assert plan["features"]["roots"]["folders"] == [peer["workspace"]]
    assert HOST_PLAN in with_roots["written"]
    assert with_roots["client_capabilities"].get("roots") is not None
    assert "roots" not in (without["client_capabilities"] or {})


def test_a_changed_fragment_replays_and_a_changed_description_does_not(tmp_path: Path) -> None:
    """A common variant lives outside the target's entry: its fragment is part of the play
    key, its wording is not."""
    target = _fake_host(tmp_path)
    roots = target.variants["roots"]
    changed = {**roots, "options": {"x": "y"}}
    reworded = {**roots, "description": "said otherwise"}
    scenario = _scenario("roots-list")

    def key(fragment: dict[str, Any]) -> str:
        variants = {**target.variants, "roots": fragment}
        return Cell(
            dataclasses.replace(target, variants=variants), "roots", scenario, "2025-11-25"
        ).play_key()

    assert key(changed) != key(roots)
    assert key(reworded) == key(roots)


@pytest.mark.usefixtures("_spec_cache")
@pytest.mark.parametrize("code", [2, 3])
def test_a_host_refusing_its_plan_is_an_error_not_a_finding(code: int, tmp_path: Path) -> None:
    """Exit 2 or 3 before the server started is our host and our data disagreeing: the cell is
    the harness's error, never the SDK's fail."""
    said = "print('demo host: unsupported: roots: none', file=sys.stderr)"
    refuse = f"import sys; {said}; sys.exit({code})"
    data = {
        "id": "refusing",
        "name": "refusing host",
        "kind": "command",
        "launch": {
            "argv": [sys.executable, "-c", refuse, "--plan", "{host_plan}", "--", "{server_argv}"]
        },
        "variants": ["roots"],
        "ends": "self",
        "timeout_s": 20,
    }
    target = parse_target(data, tmp_path / "refusing.yaml")
    [verdict] = run_cells(
        [Cell(target, "roots", _scenario("roots-list"), "2025-11-25")], _settings(tmp_path)
    )
    assert verdict["verdict"] == "error"
    assert f"our host program refused its plan, exit {code}" in verdict["reason"]
    assert "demo host: unsupported: roots: none" in verdict["reason"]


def test_a_session_script_plays_only_where_a_host_makes_it(tmp_path: Path) -> None:
    """A scenario that requires a session plays on a target whose host scripts one, unless it
    lacks a kind of request the script makes; the others read not run, saying why."""
    scenario = _scenario("client-structured-schema")
    without = Cell(_fake_host(tmp_path), "no-roots", scenario, "2025-11-25")
    assert "no host of ours makes client requests" in str(without.not_run_reason())
    scripted = _fake_host(tmp_path, scripts_session=True)
    assert Cell(scripted, "no-roots", scenario, "2025-11-25").not_run_reason() is None
    lacks = {"call": {"why": "its client has no call for tools", "source": "demo/client.go:1"}}
    lacking = _fake_host(tmp_path, scripts_session=True, lacks=lacks)
    assert Cell(lacking, "no-roots", scenario, "2025-11-25").not_run_reason() == (
        "not run, because fake planned client lacks call: its client has no call for tools"
    )


def test_the_script_replaces_calling_every_tool_and_its_record_is_kept_cut(
    tmp_path: Path,
) -> None:
    variants = {"no-roots": {"features": {}}}
    script = [{"list": "tools"}, {"call": "probe", "arguments": {}}]
    path = write_host_plan(variants, "no-roots", tmp_path, tmp_path / "w", tmp_path / "c", script)
    assert path is not None
    session = json.loads(path.read_text("utf-8"))["session"]
    assert session == {"call_tools": False, "requests": script}
    plain = write_host_plan(variants, "no-roots", tmp_path, tmp_path / "w", tmp_path / "c")
    assert plain is not None
    assert json.loads(plain.read_text("utf-8"))["session"] == {"call_tools": True}
    control, cell = tmp_path / "control", tmp_path / "cell"
    control.mkdir()
    cell.mkdir()
    assert keep_record(control, cell) is False  # a host that wrote none leaves no file
    line = json.dumps({"step": 0, "request": "list", "ok": True, "result": "x" * 1000}) + "\n"
    (control / SESSION_RECORD).write_text(line * 2000, encoding="utf-8")  # about 2 MB
    assert keep_record(control, cell) is True
    kept = (cell / HOST_SESSION).read_bytes()
    assert len(kept) <= MAX_RECORD_BYTES and kept.endswith(b"\n")
    assert all(json.loads(x)["step"] == 0 for x in kept.splitlines())
