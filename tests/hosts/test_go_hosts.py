"""The two Go hosts (go-sdk, mcp-go) against the host-plan contract, with the real SDKs.

Each host is built by the project's own Go builder (only these two, into the tools folder),
then run against the project's peer with a plan written here: what each SDK declares for a
feature, how it answers ``elicitation/create`` and ``sampling/createMessage`` from the plan's
answers, what it answers when the feature is absent, and that a malformed plan or command
line is refused with exit code 2 before any server starts. Nothing here is a fake: the wire
is what the pinned SDK put there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from compare import _paths
from compare.exchange._host_plan import HOST_PLAN_SCHEMA
from compare.exchange._targets import load_targets
from compare.install import _go
from compare.install._pins import load_pins
from compare.play._harness import peer_argv

GO_HOSTS = ["go-sdk", "mcp-go"]
FOLDER = "web #staging é"
ELICIT_ANSWER = {"action": "accept", "content": {"answer": "yes"}}
SAMPLE_ANSWER = {
    "role": "assistant",
    "content": {"type": "text", "text": "canned ü"},
    "model": "mcp-compare-canned",
    "stopReason": "endTurn",
}
ELICIT_PARAMS = {
    "message": "Proceed?",
    "requestedSchema": {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
    },
}
SAMPLE_PARAMS = {
    "messages": [{"role": "user", "content": {"type": "text", "text": "Say something"}}],
    "maxTokens": 20,
}


def test_the_plan_reader_is_the_same_file_in_both_go_hosts() -> None:
    copies = {t: (_go.source_dir(t) / "plan.go").read_bytes() for t in GO_HOSTS}
    assert copies["go-sdk"] == copies["mcp-go"]


@pytest.fixture(scope="module")
def built() -> dict[str, Path]:
    """Both Go hosts, built (or found fresh by their stamp) by the project's Go builder."""
    tools = _paths.tools_dir()
    out: dict[str, Path] = {}
    for pin in load_pins():
        if pin.target in GO_HOSTS:
            _go.install(pin, tools)
            out[pin.target] = _go.binary(tools, pin.target)
    assert set(out) == set(GO_HOSTS)
    return out


def _cell(tmp_path: Path) -> tuple[Path, Path]:
    workspace, control = tmp_path / FOLDER, tmp_path / "control"
    workspace.mkdir()
    control.mkdir()
    return workspace, control


def _host_plan(workspace: Path, control: Path, features: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": 1,
        "workspace": str(workspace),
        "control": str(control),
        "features": features,
        "session": {"call_tools": True},
        "options": {},
    }


def _peer_plan(tmp_path: Path, steps: list[dict[str, Any]], revision: str) -> Path:
    workspace, control = tmp_path / FOLDER, tmp_path / "control"
    plan = {
        "format": 1,
        "scenario": "go-host-test",
        "revision": revision,
        "answer_revision": revision,
        "first_modern": "2026-07-28",
        "wire_version": revision,
        "target": "go-host-test",
        "variant": "plan",
        "start_failure_is_finding": False,
        "workspace": str(workspace),
        "control": str(control),
        "transcript": str(tmp_path / "transcript.jsonl"),
        "done": str(tmp_path / "done.json"),
        "server_info": {"name": "mcp-compare-peer", "version": "0.1.0"},
        "capabilities": {"tools": {}},
        "tools": [
            {"name": "probe", "description": "ok", "inputSchema": {"type": "object"}},
        ],
        "steps": [
            {"await": "notifications/initialized", "required": True, "timeout_s": 10},
            *steps,
        ],
        "linger_s": 0.0,
        "max_line_bytes": 1 << 20,
        "max_lines": 20000,
        "hard_deadline_s": 40,
    }
    path = tmp_path / "peer.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


def _play(
    host: Path, tmp_path: Path, features: dict[str, Any], steps: list[dict[str, Any]]
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Run the host with a plan against the peer; the process and the raw lines both ways."""
    workspace, control = _cell(tmp_path)
    plan = tmp_path / "host-plan.json"
    plan.write_text(
        json.dumps(_host_plan(workspace, control, features), ensure_ascii=False), encoding="utf-8"
    )
    server = peer_argv(_peer_plan(tmp_path, steps, "2025-11-25"))
    done = subprocess.run(
        [str(host), "--plan", str(plan), "--", *server],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=workspace,
        check=False,
    )
    lines = (tmp_path / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    wire = [json.loads(x) for x in lines]
    return done, [w for w in wire if "raw" in w]


def _initialize(wire: list[dict[str, Any]]) -> dict[str, Any]:
    for line in wire:
        message = json.loads(line["raw"])
        if line["dir"] == "in" and message.get("method") == "initialize":
            assert isinstance(message["params"], dict)
            return message["params"]
    raise AssertionError(f"no initialize: {wire}")


def _answer(wire: list[dict[str, Any]], method: str) -> dict[str, Any]:
    """The host's answer to the peer's request of ``method``."""
    asked = None
    for line in wire:
        message: dict[str, Any] = json.loads(line["raw"])
        if line["dir"] == "out" and message.get("method") == method:
            asked = message["id"]
        elif line["dir"] == "in" and asked is not None and message.get("id") == asked:
            return message
    raise AssertionError(f"no answer to {method}: {wire}")


ASK_BOTH = [
    {"request": "elicitation/create", "timeout_s": 5, "params": ELICIT_PARAMS},
    {"request": "sampling/createMessage", "timeout_s": 5, "params": SAMPLE_PARAMS},
]


@pytest.mark.clients
@pytest.mark.parametrize("target", GO_HOSTS)
def test_elicitation_and_sampling_are_answered_from_the_plan(
    target: str, built: dict[str, Path], tmp_path: Path
) -> None:
    features = {
        "elicitation": {"form": True, "url": True, "answer": ELICIT_ANSWER},
        "sampling": {"answer": SAMPLE_ANSWER},
    }
    done, wire = _play(built[target], tmp_path, features, ASK_BOTH)
    assert done.returncode == 0, done.stderr
    caps = _initialize(wire)["capabilities"]
    assert caps == {"elicitation": {"form": {}, "url": {}}, "sampling": {}}
    assert _answer(wire, "elicitation/create")["result"] == ELICIT_ANSWER
    assert _answer(wire, "sampling/createMessage")["result"] == SAMPLE_ANSWER


@pytest.mark.clients
@pytest.mark.parametrize("target", GO_HOSTS)
def test_the_plan_names_the_elicitation_modes_not_the_sdk(
    target: str, built: dict[str, Path], tmp_path: Path
) -> None:
    decline = {"action": "decline"}
    features = {"elicitation": {"form": False, "url": False, "answer": decline}}
    done, wire = _play(built[target], tmp_path, features, ASK_BOTH[:1])
    assert done.returncode == 0, done.stderr
    assert _initialize(wire)["capabilities"] == {"elicitation": {}}
    assert _answer(wire, "elicitation/create")["result"] == decline


@pytest.mark.clients
@pytest.mark.parametrize("target", GO_HOSTS)
def test_absent_features_are_neither_declared_nor_answered(
    target: str, built: dict[str, Path], tmp_path: Path
) -> None:
    done, wire = _play(built[target], tmp_path, {}, ASK_BOTH)
    assert done.returncode == 0, done.stderr
    assert _initialize(wire)["capabilities"] == {}
    # The SDK's own answer to a request it has no handler for: an error, never a result.
    assert "error" in _answer(wire, "elicitation/create")
    assert "error" in _answer(wire, "sampling/createMessage")


@pytest.mark.clients
@pytest.mark.parametrize("target", GO_HOSTS)
def test_roots_without_list_changed_are_declared_so(
    target: str, built: dict[str, Path], tmp_path: Path
) -> None:
    roots = {"folders": [str(tmp_path / FOLDER)], "list_changed": False, "changes": []}
    features = {"roots": roots}
    steps = [{"request": "roots/list", "timeout_s": 5}]
    done, wire = _play(built[target], tmp_path, features, steps)
    assert done.returncode == 0, done.stderr
    assert _initialize(wire)["capabilities"] == {"roots": {}}
    roots = _answer(wire, "roots/list")["result"]["roots"]
    assert roots == [{"uri": (tmp_path / FOLDER).as_uri(), "name": FOLDER}]


def _refused(host: Path, argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run the host with a server that would leave a mark if it were started."""
    mark = tmp_path / "server-started"
    server = [sys.executable, "-c", f"open({str(mark)!r}, 'w')"]
    done = subprocess.run(
        [str(host), *argv, "--", *server], capture_output=True, text=True, timeout=30, check=False
    )
    assert not mark.exists(), "the server was started"
    return done


def _change(**over: Any) -> dict[str, Any]:
    change = {"signal": "add-root", "add_folders": ["/cell/b"], "notify": True}
    roots = {"folders": [], "list_changed": True, "changes": [{**change, **over}]}
    return {"features": {"roots": roots}}


def _elicit(answer: Any) -> dict[str, Any]:
    return {"features": {"elicitation": {"form": True, "url": False, "answer": answer}}}


def _sample(**over: Any) -> dict[str, Any]:
    return {"features": {"sampling": {"answer": {**SAMPLE_ANSWER, **over}}}}


#: Plans that break one rule of host-plan.schema.json each (the top-level keys laid over a
#: good plan; None removes the key). The schema must refuse each as the hosts do.
BAD_PLANS: dict[str, dict[str, Any]] = {
    "unknown-key": {"extra": 1},
    "key-in-another-case": {"Format": 1},
    "unknown-feature": {"features": {"logging": {}}},
    "unknown-option": {"options": {"roots_form": "documented"}},
    "no-options": {"options": None},
    "format-2": {"format": 2},
    "relative-workspace": {"workspace": "web"},
    "no-session": {"session": None},
    "call-tools-not-boolean": {"session": {"call_tools": "yes"}},
    "roots-without-list-changed": {"features": {"roots": {"folders": [], "changes": []}}},
    "roots-without-changes": {"features": {"roots": {"folders": [], "list_changed": True}}},
    "relative-root": {
        "features": {"roots": {"folders": ["a"], "list_changed": True, "changes": []}}
    },
    "signal-with-a-slash": _change(signal="../x"),
    "signal-in-capitals": _change(signal="Add-Root"),
    "change-adding-nothing": _change(add_folders=[]),
    "change-without-notify": _change(notify=None),
    "elicit-action-unknown": _elicit({"action": "ok"}),
    "elicit-content-not-object": _elicit({"action": "accept", "content": "yes"}),
    "elicit-without-url": {"features": {"elicitation": {"form": True, "answer": ELICIT_ANSWER}}},
    "sample-without-model": _sample(model=None),
    "sample-role-unknown": _sample(role="system"),
    "sample-content-without-type": _sample(content={"text": "x"}),
    "elicit-key-the-sdk-drops": _elicit({"action": "accept", "surprise": 1}),
    "sample-key-the-sdk-drops": _sample(surprise=1),
    "sample-content-key-the-sdk-drops": _sample(content={"type": "text", "text": "x", "n": 1}),
}


def _bad_plan(fault: str, workspace: Path, control: Path) -> dict[str, Any]:
    plan = _host_plan(workspace, control, {})
    plan.update(BAD_PLANS[fault])
    dropped: dict[str, Any] = _drop_none(plan)
    return dropped


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


#: Faults the schema leaves to the hosts: README.md says a host refuses an option it does not
#: know, and answers go "through the SDK's types", which the schema cannot know (an answer
#: key the SDK's type would drop is refused rather than silently left off the wire).
HOST_RULES = {
    "unknown-option",
    "elicit-key-the-sdk-drops",
    "sample-key-the-sdk-drops",
    "sample-content-key-the-sdk-drops",
}


@pytest.mark.parametrize("fault", sorted(set(BAD_PLANS) - HOST_RULES))
def test_each_bad_plan_here_is_refused_by_the_schema_too(fault: str) -> None:
    schema = json.loads(HOST_PLAN_SCHEMA.read_text(encoding="utf-8"))
    plan = _bad_plan(fault, Path("/cell/workspace"), Path("/cell/control"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(plan)), plan


@pytest.mark.parametrize("fault", sorted(HOST_RULES))
def test_the_faults_left_to_the_hosts_pass_the_schema(fault: str) -> None:
    schema = json.loads(HOST_PLAN_SCHEMA.read_text(encoding="utf-8"))
    plan = _bad_plan(fault, Path("/cell/workspace"), Path("/cell/control"))
    assert not list(jsonschema.Draft202012Validator(schema).iter_errors(plan)), plan


def test_the_plans_these_tests_play_are_valid_for_the_schema(tmp_path: Path) -> None:
    schema = json.loads(HOST_PLAN_SCHEMA.read_text(encoding="utf-8"))
    good: list[dict[str, Any]] = [
        {"elicitation": {"form": True, "url": True, "answer": ELICIT_ANSWER}},
        {"sampling": {"answer": SAMPLE_ANSWER}},
        {"roots": {"folders": ["/w"], "list_changed": False, "changes": []}},
        {},
    ]
    for features in good:
        plan = _host_plan(tmp_path, tmp_path / "control", features)
        assert not list(jsonschema.Draft202012Validator(schema).iter_errors(plan)), plan


@pytest.mark.clients
@pytest.mark.parametrize("target", GO_HOSTS)
@pytest.mark.parametrize("fault", sorted(BAD_PLANS))
def test_a_malformed_plan_is_exit_2_before_the_server_starts(
    target: str, fault: str, built: dict[str, Path], tmp_path: Path
) -> None:
    workspace, control = _cell(tmp_path)
    path = tmp_path / "host-plan.json"
    path.write_text(json.dumps(_bad_plan(fault, workspace, control)), encoding="utf-8")
    done = _refused(built[target], ["--plan", str(path)], tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"{target} host: bad plan: ")


@pytest.mark.clients
@pytest.mark.parametrize("target", GO_HOSTS)
def test_the_old_roots_command_line_is_refused(
    target: str, built: dict[str, Path], tmp_path: Path
) -> None:
    done = _refused(built[target], ["--workspace", str(tmp_path), "--no-roots"], tmp_path)
    assert done.returncode == 2
    assert "usage: host --plan PATH -- SERVER_COMMAND..." in done.stderr


@pytest.mark.parametrize("target", GO_HOSTS)
def test_neither_go_host_has_a_lacks_entry_or_an_unsupported_exit(target: str) -> None:
    """Both SDKs register every feature a plan names, so neither host exits 3 and neither
    target file says it lacks one; the two facts are checked together so they agree."""
    (data,) = [t for t in load_targets() if t.id == target]
    assert not data.raw.get("lacks")
    source = "".join(
        p.read_text(encoding="utf-8") for p in sorted(_go.source_dir(target).glob("*.go"))
    )
    assert "unsupported:" not in source and "os.Exit(3)" not in source


#: (host, listChanged declared, the change's notify, list_changed sent). mcp-go notifies when
#: the application calls RootListChanges, as the plan says; go-sdk's AddRoots notifies exactly
#: when listChanged is declared, whatever the plan says (the SDK's choice stands).
CHANGES = [
    ("mcp-go", True, False, False),
    ("mcp-go", False, True, True),
    ("go-sdk", False, True, False),
    ("go-sdk", True, False, True),
]


@pytest.mark.clients
@pytest.mark.parametrize(("target", "list_changed", "notify", "sent"), CHANGES)
def test_who_decides_a_changes_notification_and_the_next_roots_list_shows_it(
    target: str,
    list_changed: bool,
    notify: bool,
    sent: bool,
    built: dict[str, Path],
    tmp_path: Path,
) -> None:
    workspace = tmp_path / FOLDER
    added = workspace / "added root ü"
    change = {"signal": "add-root", "add_folders": [str(added)], "notify": notify}
    roots = {"folders": [str(workspace)], "list_changed": list_changed, "changes": [change]}
    steps: list[dict[str, Any]] = [
        {"request": "roots/list", "timeout_s": 5},
        {"signal": "add-root"},
        {"observe_s": 1.0, "why": "give the host time to send a list_changed (or not)"},
        {"request": "roots/list", "timeout_s": 5},
    ]
    done, wire = _play(built[target], tmp_path, {"roots": roots}, steps)
    assert done.returncode == 0, done.stderr
    methods = [json.loads(w["raw"]).get("method") for w in wire if w["dir"] == "in"]
    assert ("notifications/roots/list_changed" in methods) is sent
    assert added.is_dir()
    answers = [
        json.loads(w["raw"])
        for w in wire
        if w["dir"] == "in" and "roots" in json.loads(w["raw"]).get("result", {})
    ]
    assert [len(a["result"]["roots"]) for a in answers] == [1, 2]
    assert {"uri": added.as_uri(), "name": added.name} in answers[1]["result"]["roots"]
