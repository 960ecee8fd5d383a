"""Server-to-client requests named by scenario data (issue 22 item 2): the peer sends any of
them plainly or, from the era boundary on, embedded in an InputRequiredResult; the loader
refuses a method its sender cannot send; a client's garbage answer to an embedded
elicitation is a recorded finding, played through the real harness.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _revisions import first_after_initialize, revisions
from play.fakes import fake_target
from play.test_faults import _marked_processes

from compare._cores import default_jobs
from compare._errors import CompareError
from compare.exchange._scenarios import SCENARIO_SCHEMA, load_scenario_file
from compare.play._cells import Cell
from compare.play._harness import RunSettings, peer_argv, run_cells

MODERN = first_after_initialize()
META = {"io.modelcontextprotocol/protocolVersion": MODERN}
ELICIT = {
    "mode": "form",
    "message": "Proceed?",
    "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
}
STEP = {"request": "elicitation/create", "params": ELICIT, "embed": "confirm", "label": "ask"}


def _peer(
    tmp_path: Path, revision: str, lines: list[dict[str, Any]], **step: Any
) -> tuple[Any, list[Any]]:
    plan = {
        "revision": revision,
        "answer_revision": "2025-11-25",
        "first_modern": MODERN,
        "control": str(tmp_path / "control"),
        "steps": [{**STEP, "timeout_s": 5, **step}],
        "hard_deadline_s": 20,
    }
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    data = "".join(json.dumps(x) + "\n" for x in lines).encode()
    done = subprocess.run(peer_argv(path), input=data, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    out = [json.loads(x) for x in done.stdout.decode().splitlines()]
    return json.loads((tmp_path / "done.json").read_text()), out


def _call(rid: int, **extra: Any) -> dict[str, Any]:
    params = {"name": "probe", "arguments": {}, "_meta": META, **extra}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def test_an_embed_step_asks_inside_the_input_required_result(tmp_path: Path) -> None:
    answer = {"action": "accept", "content": {"answer": "yes"}}
    first = _call(1)
    # the retry echoes the state the peer made up; the peer reads it from its own answer
    done, out = _peer(tmp_path, MODERN, [first])
    assert done["steps"][0]["outcome"] == "timeout"  # asked, never answered: bounded
    asked = out[0]["result"]
    assert asked["resultType"] == "input_required"
    assert asked["inputRequests"] == {"confirm": {"method": "elicitation/create", "params": ELICIT}}
    state = asked["requestState"]
    assert done["steps"][0]["request_state"] == state and done["steps"][0]["embedded"] is True

    retry = _call(2, inputResponses={"confirm": answer}, requestState="x")
    done, out = _peer(tmp_path, MODERN, [first, retry])
    step = done["steps"][0]
    assert step["outcome"] == "ok" and step["key"] == "confirm"
    assert out[1]["result"]["resultType"] == "complete"


def test_an_embed_step_with_rounds_asks_again_until_the_last(tmp_path: Path) -> None:
    """rounds: 3 answers the first call and two retries input_required, each with a state
    of its own, and completes the third retry."""
    answer = {"confirm": {"action": "accept", "content": {"answer": "yes"}}}
    calls = [_call(1)] + [_call(k, inputResponses=answer, requestState="x") for k in (2, 3, 4)]
    done, out = _peer(tmp_path, MODERN, calls, rounds=3)
    kinds = [x["result"]["resultType"] for x in out]
    assert kinds == ["input_required", "input_required", "input_required", "complete"]
    states = [x["result"]["requestState"] for x in out[:3]]
    assert len(set(states)) == 3  # a fresh state each round
    assert all(x["result"]["inputRequests"] == out[0]["result"]["inputRequests"] for x in out[:3])
    step = done["steps"][0]
    assert step["outcome"] == "ok" and step["rounds_answered"] == 3
    # two retries of three: the step waits, bounded, and says how far the client got
    done, out = _peer(tmp_path, MODERN, calls[:3], rounds=3)
    assert done["steps"][0]["outcome"] == "timeout" and done["steps"][0]["rounds_answered"] == 2


def test_an_embed_step_is_a_plain_request_before_the_boundary(tmp_path: Path) -> None:
    earlier = max(r for r in revisions() if r != "draft" and r < MODERN)
    done, out = _peer(tmp_path, earlier, [])
    assert out[0]["method"] == "elicitation/create" and out[0]["params"] == ELICIT
    assert done["steps"][0]["embedded"] is False


BASE = """\
id: demo
title: Demo
description: A scenario for the loader tests.
revisions: {from: "2026-07-28", until: null}
steps:
  - {request: elicitation/create, params: {message: m}, embed: confirm, label: ask}
checks:
  - id: retry-valid
    title: The retry validates
    rule: mrtr-retry-valid
    expected: valid
    outcomes:
      valid: {verdict: pass, means: "validates"}
      invalid: {verdict: fail, means: "does not validate"}
      no-retry: {verdict: informational, means: "no retry"}
      legacy: {verdict: informational, means: "not applicable"}
    refs:
      - client-stdin-valid-message
"""


def _load(tmp_path: Path, text: str) -> Any:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario_file(path)


def test_the_base_embed_scenario_loads(tmp_path: Path) -> None:
    assert _load(tmp_path, BASE).steps[0]["embed"] == "confirm"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # a typo, a method of the other direction, one no InputRequiredResult may hold
        (
            "{request: elicitation/create, params: {message: m}, embed: confirm,",
            "{request: elicitation/creat,",
            "'elicitation/creat' is not a request a server may send a client",
        ),
        (
            "{request: elicitation/create, params: {message: m}, embed: confirm,",
            "{request: tools/list,",
            "'tools/list' is not a request a server may send a client",
        ),
        ("{request: elicitation/create,", "{request: ping,", "'ping' is not a request an Input"),
        ("embed: confirm,", "embed: confirm, observe_s: 1,", "steps.0"),
        ("revisions:", "mrtr: {key: k, request: tasks/get}\nrevisions:", "key mrtr.request"),
        ("revisions:", "mrtr: {key: k}\nrevisions:", "'request' is a required property"),
        (
            "revisions:",
            "client_features: {sampling: {answer: {}}}\nrevisions:",
            "client_features: only for side: server or proxy",
        ),
    ],
)
def test_the_loader_refuses_a_request_its_sender_cannot_send(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in BASE
    with pytest.raises(CompareError) as err:
        _load(tmp_path, BASE.replace(old, new, 1))
    assert str(tmp_path / "demo.yaml") in err.value.message
    assert message in err.value.message, err.value.message


def test_only_the_peer_embeds_and_the_scripted_client_sends_client_requests(
    tmp_path: Path,
) -> None:
    server = BASE.replace("steps:", "side: server\nsteps:", 1)
    with pytest.raises(CompareError, match=r"steps\.0\.embed: only the peer embeds"):
        _load(tmp_path, server)
    plain = server.replace(", embed: confirm", "", 1)
    with pytest.raises(CompareError, match="not a request a client may send a server"):
        _load(tmp_path, plain)
    assert _load(tmp_path, plain.replace("elicitation/create", "tools/list", 1))


def _methods_of(defs: dict[str, Any], union: str) -> set[str]:
    body = defs.get(union) or {}
    out: set[str] = set()
    for member in body.get("anyOf", []):
        name = member["$ref"].rsplit("/", 1)[-1]
        out |= _methods_of(defs, name) if "anyOf" in defs[name] else set()
        const = defs[name].get("properties", {}).get("method", {}).get("const")
        if isinstance(const, str):
            out.add(const)
    return out


def test_the_method_lists_are_the_pinned_schemas_unions(
    pinned_spec: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scenario.schema.json's lists hold what the pinned schemas say, no more, no less."""
    from compare.models._files import load_schema
    from compare.models._schema import definitions
    from compare.pin import load_pins

    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    pins = load_pins()
    want: dict[str, set[str]] = {"server_request": set(), "client_request": set()}
    want["input_request"] = set()
    for name in pins.revision_names:
        _, defs = definitions(load_schema(pins.revision(name)))
        want["server_request"] |= _methods_of(defs, "ServerRequest")
        want["client_request"] |= _methods_of(defs, "ClientRequest")
        want["input_request"] |= _methods_of(defs, "InputRequest")
    want["server_request"] |= want["input_request"]
    listed = json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))["$defs"]
    assert {k: set(listed[k]["enum"]) for k in want} == want


@pytest.fixture(scope="module")
def elicited(tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path) -> dict[str, Any]:
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    base = tmp_path_factory.mktemp("elicit")
    text = BASE.replace("params: {message: m}", "params: " + json.dumps(ELICIT), 1)
    text = text.replace("label: ask}", "label: ask, timeout_s: 15}", 1)
    scenario = _load(base, text)
    cells = [
        Cell(fake_target(mode), "default", scenario, MODERN)
        for mode in ("modern-elicit", "modern-elicit-garbage")
    ]
    settings = RunSettings(base / "results", spec_commit="test", known_revisions=revisions())
    verdicts = run_cells(cells, settings, jobs=default_jobs())
    mp.undo()
    return {
        "leftovers": _marked_processes(base / "results"),
        "good": verdicts[0],
        "bad": verdicts[1],
    }


def _check(verdict: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in verdict["checks"] if c["id"] == check)


def test_an_embedded_elicitation_answered_well_passes(elicited: dict[str, Any]) -> None:
    got = _check(elicited["good"], "retry-valid")
    assert (got["outcome"], got["verdict"]) == ("valid", "pass"), got["reason"]
    assert elicited["good"]["peer_done"]["steps"][0]["outcome"] == "ok"


def test_an_embedded_elicitation_answered_with_garbage_is_a_finding(
    elicited: dict[str, Any],
) -> None:
    got = _check(elicited["bad"], "retry-valid")
    assert (got["outcome"], got["verdict"]) == ("invalid", "fail"), got["reason"]
    assert "inputResponses" in got["reason"]
    assert elicited["bad"]["verdict"] == "fail"
    assert elicited["leftovers"] == []


def test_the_scripted_client_declares_and_lists_what_the_scenarios_said(tmp_path: Path) -> None:
    """Regression guard for moving the scripted client to ``features`` (a replay showed the
    roots' keys in another order at first): for every shipped server and proxy scenario it
    declares the capabilities and lists the roots, byte for byte as JSON, that the roots-only
    plan keys gave before."""
    from types import SimpleNamespace

    from compare.exchange._scenarios import load_scenarios
    from compare.peer.client import _features
    from compare.play._server_plan import _folders, features

    played = 0
    for scenario in load_scenarios():
        if scenario.side == "client":
            continue
        cell: Any = SimpleNamespace(scenario=scenario)
        spec = scenario.raw.get("client_roots") or {}
        # as the client reads it: from plan.json, written with sorted keys
        wanted = json.loads(json.dumps(features(cell, tmp_path / scenario.id), sort_keys=True))
        before = {} if spec.get("capability") is None else {"roots": spec["capability"]}
        # a feature beside roots (client_features: elicitation …) is declared as written there
        before.update(_features.declared(scenario.raw.get("client_features") or {}))
        assert json.dumps(_features.declared(wanted)) == json.dumps(before), scenario.id
        folders = _folders(cell, tmp_path / scenario.id)
        if spec.get("capability") is not None:
            listed = [folders[n] if isinstance(n, str) else n for n in spec.get("roots", [])]
            # the old client listed them from plan.json, which is written with sorted keys
            assert json.dumps(_features.initial_roots(wanted)) == json.dumps(listed, sort_keys=True)
            for step in scenario.steps:
                if "set_roots" in step:
                    names = json.loads(json.dumps(step["set_roots"], sort_keys=True))
                    old = [folders[n] if isinstance(n, str) else n for n in names]
                    got = _features.named_roots(wanted, names)
                    assert json.dumps(got) == json.dumps(old, sort_keys=True), scenario.id
        played += 1
    assert played >= 8


def test_a_root_named_like_a_fixture_link_stays_the_fixtures_link(tmp_path: Path) -> None:
    """Regression: building ``features`` before the fixture made the enforcement scenario's
    ``linked`` root a folder, and the fixture's link to outside the roots then failed to be
    made (a harness error in every server-enforcement cell of a replay)."""
    from compare.exchange._scenarios import load_scenarios
    from compare.exchange._targets import Expansion, load_targets
    from compare.play._server_plan import server_plan

    scenario = next(s for s in load_scenarios() if s.id == "server-enforcement")
    target = next(t for t in load_targets() if t.id == "server-everything")
    ws = tmp_path / "ws"
    ws.mkdir()
    exp = Expansion([], ws, tmp_path, tmp_path, tmp_path, tmp_path, tmp_path)
    plan = server_plan(Cell(target, "default", scenario, "2025-11-25"), exp, "2025-11-25", MODERN)
    links = [p for p in ws.iterdir() if p.is_symlink()]
    assert links, "the fixture's links are made"
    named = plan["features"]["roots"]["named"]
    assert all(str(ws / link.name) == named[link.name] for link in links if link.name in named)
