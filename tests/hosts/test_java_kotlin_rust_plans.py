"""The Java, Kotlin and Rust SDK hosts against the host plan, talking to the real peer.

Each host is run with a hand-written plan (the shape of compare/hosts/README.md)
against ``compare/peer`` playing a hand-written peer plan, and what the real SDK client
put on the wire is read from the peer's transcript: the capabilities it declared, its answers to
``roots/list``, ``elicitation/create`` and ``sampling/createMessage``, and the
``notifications/roots/list_changed`` after a planned change. A plan without features must declare
none, and a malformed plan must be refused with exit code 2 before any server is started.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PEER = ROOT / "compare" / "peer"
FOLDER = "web #staging é"
TARGETS = ["java-sdk", "kotlin-sdk", "rust-sdk"]

pytestmark = pytest.mark.clients

ELICIT_FORM = {
    "mode": "form",
    "message": "Proceed?",
    "requestedSchema": {"type": "object", "properties": {"answer": {"type": "string"}}},
}
ELICIT_URL = {
    "mode": "url",
    "message": "Sign in",
    "url": "https://example.invalid/sign-in",
    "elicitationId": "e-1",
}
SAMPLE = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 9}
SAMPLED = {
    "role": "assistant",
    "content": {"type": "text", "text": "canned"},
    "model": "mcp-compare-canned",
    "stopReason": "endTurn",
}


def peer_plan(cell: Path, steps: list[dict[str, Any]]) -> dict[str, Any]:
    """A peer that answers the handshake at 2025-11-25, offers one tool and plays ``steps``."""
    return {
        "format": 1,
        "scenario": "host-plan",
        "target": "host-plan",
        "variant": "plan",
        "revision": "2025-11-25",
        "answer_revision": "2025-11-25",
        "wire_version": "2025-11-25",
        "first_modern": "2026-07-28",
        "capabilities": {"tools": {}},
        "server_info": {"name": "mcp-compare-peer", "version": "0.1.0"},
        "tools": [{"name": "probe", "description": "ok", "inputSchema": {"type": "object"}}],
        "control": str(cell / "control"),
        "workspace": str(cell / FOLDER),
        "transcript": str(cell / "transcript.jsonl"),
        "done": str(cell / "done.json"),
        "hard_deadline_s": 45.0,
        "linger_s": 0.0,
        "start_failure_is_finding": False,
        "steps": [
            {"label": "initialized", "await": "notifications/initialized", "required": True},
            *steps,
        ],
    }


def ask(label: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    step: dict[str, Any] = {"label": label, "request": method, "timeout_s": 10}
    if params is not None:
        step["params"] = params
    return step


@dataclass(frozen=True)
class Run:
    """One host run: the process and the peer's transcript, message by message."""

    done: subprocess.CompletedProcess[str]
    cell: Path
    lines: list[dict[str, Any]]

    def sent(self) -> list[dict[str, Any]]:
        return [json.loads(x["raw"]) for x in self.lines if x["dir"] == "in"]

    def capabilities(self) -> dict[str, Any]:
        init = next(m for m in self.sent() if m.get("method") == "initialize")
        caps = init["params"]["capabilities"]
        assert isinstance(caps, dict)
        return caps

    def answer(self, label: str) -> dict[str, Any]:
        """The host's answer to the peer request of step ``label``."""
        notes = [json.loads(x["raw"]) for x in self.lines if x["dir"] == "note"]
        done = next(n for n in notes if n.get("event") == "step-done" and n["label"] == label)
        for message in self.sent():
            if message.get("id") == done["id"] and "method" not in message:
                return message
        raise AssertionError(f"no answer to {label}: {self.lines}")


def host(tools: Path, target: str) -> Path:
    built = tools / "hosts" / target / "bin" / "host"
    if not built.is_file():
        pytest.skip(f"not run, because {target}'s host is not built at {built}")
    return built


def run(tools: Path, target: str, cell: Path, plan: dict[str, Any], steps: list[Any]) -> Run:
    (cell / "control").mkdir(parents=True)
    (cell / FOLDER).mkdir()
    (cell / "peer.json").write_text(json.dumps(peer_plan(cell, steps)), encoding="utf-8")
    (cell / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    server = [sys.executable, "-I", "-S", str(PEER), "--plan", str(cell / "peer.json")]
    done = subprocess.run(
        [str(host(tools, target)), "--plan", str(cell / "plan.json"), "--", *server],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        env={**os.environ, "MCP_COMPARE_TOOLS": str(tools)},
    )
    text = (cell / "transcript.jsonl").read_text(encoding="utf-8")
    return Run(done, cell, [json.loads(line) for line in text.splitlines()])


def full_plan(cell: Path) -> dict[str, Any]:
    workspace = str(cell / FOLDER)
    added = str(cell / FOLDER / "added root ü")
    change = {"signal": "add-root", "add_folders": [added], "notify": True}
    return {
        "format": 1,
        "workspace": workspace,
        "control": str(cell / "control"),
        "features": {
            "roots": {"folders": [workspace], "list_changed": True, "changes": [change]},
            "elicitation": {
                "form": True,
                "url": False,
                "answer": {"action": "accept", "content": {"answer": "yes"}},
            },
            "sampling": {"answer": copy.deepcopy(SAMPLED)},
        },
        "session": {"call_tools": True},
        "options": {},
    }


ROOTS_STEPS = [
    ask("before", "roots/list"),
    ask("elicit", "elicitation/create", ELICIT_FORM),
    ask("sample", "sampling/createMessage", SAMPLE),
    {"label": "signal", "signal": "add-root"},
    {"label": "notified", "await": "notifications/roots/list_changed", "timeout_s": 10},
    ask("after", "roots/list"),
]


def uris(answer: dict[str, Any]) -> list[str]:
    return [r["uri"].rstrip("/") for r in answer["result"]["roots"]]


@pytest.mark.parametrize("target", TARGETS)
def test_every_planned_feature_is_declared_and_answered(
    target: str, tools: Path, tmp_path: Path
) -> None:
    """Roots, a form elicitation and sampling, each answered from the plan through the SDK."""
    cell = tmp_path / "cell"
    got = run(tools, target, cell, full_plan(cell), ROOTS_STEPS)
    assert got.done.returncode == 0, got.done.stderr
    caps = got.capabilities()
    assert caps["roots"] == {"listChanged": True}
    assert caps["elicitation"] == {"form": {}}
    assert caps["sampling"] == {}
    base = (cell / FOLDER).as_uri()
    assert uris(got.answer("before")) == [base]
    assert got.answer("elicit")["result"] == {"action": "accept", "content": {"answer": "yes"}}
    assert got.answer("sample")["result"] == SAMPLED
    # A set: the Java SDK keeps its roots in a ConcurrentHashMap keyed by URI
    # (McpAsyncClient's constructor), so roots/list comes in that map's order, not the host's.
    assert set(uris(got.answer("after"))) == {base, (cell / FOLDER / "added root ü").as_uri()}
    assert (cell / FOLDER / "added root ü").is_dir()
    calls = [m["params"] for m in got.sent() if m.get("method") == "tools/call"]
    assert [(c["name"], c["arguments"]) for c in calls] == [("probe", {})]


@pytest.mark.parametrize("target", TARGETS)
def test_url_mode_and_a_decline_and_a_change_without_list_changed(
    target: str, tools: Path, tmp_path: Path
) -> None:
    """URL mode alone is declared as such; the decline is passed on; call_tools false lists no
    tool. Without listChanged declared, the planned notification is asked of the SDK's own call:
    the Java SDK sends it, rmcp too, the Kotlin SDK refuses to (client/Client.kt:323-328 of
    kotlin-sdk-client-jvm 0.16.0), and the session goes on either way."""
    cell = tmp_path / "cell"
    plan = full_plan(cell)
    plan["features"]["roots"]["list_changed"] = False
    plan["features"]["elicitation"] = {"form": False, "url": True, "answer": {"action": "decline"}}
    del plan["features"]["sampling"]
    plan["session"] = {"call_tools": False}
    steps = [
        ask("elicit", "elicitation/create", ELICIT_URL),
        {"label": "signal", "signal": "add-root"},
        {"label": "notified", "await": "notifications/roots/list_changed", "timeout_s": 3},
        ask("after", "roots/list"),
    ]
    got = run(tools, target, cell, plan, steps)
    assert got.done.returncode == 0, got.done.stderr
    notified = [m for m in got.sent() if m.get("method") == "notifications/roots/list_changed"]
    assert len(notified) == (0 if target == "kotlin-sdk" else 1)
    caps = got.capabilities()
    assert caps["roots"].get("listChanged") in (None, False)
    assert caps["elicitation"] == {"url": {}}
    assert "sampling" not in caps
    assert got.answer("elicit")["result"]["action"] == "decline"
    assert len(uris(got.answer("after"))) == 2
    assert not [m for m in got.sent() if m.get("method") in ("tools/list", "tools/call")]


@pytest.mark.parametrize("target", TARGETS)
def test_a_plan_without_features_declares_none(target: str, tools: Path, tmp_path: Path) -> None:
    """Nothing declared, nothing of ours answers: each request meets the SDK's own default."""
    cell = tmp_path / "cell"
    plan = {**full_plan(cell), "features": {}}
    steps = [
        ask("roots", "roots/list"),
        ask("elicit", "elicitation/create", ELICIT_FORM),
        ask("sample", "sampling/createMessage", SAMPLE),
    ]
    got = run(tools, target, cell, plan, steps)
    assert got.done.returncode == 0, got.done.stderr
    assert not {"roots", "elicitation", "sampling"} & set(got.capabilities())
    for label in ("roots", "elicit", "sample"):
        reply = got.answer(label)
        assert "error" in reply or "result" in reply, reply
        assert reply.get("result") != SAMPLED


def spoiled(case: str, cell: Path) -> str:
    """A full plan made malformed in one way (the rest of it valid)."""
    plan = full_plan(cell)
    features = plan["features"]
    change = features["roots"]["changes"][0]
    if case == "not-json":
        return json.dumps(plan)[:-1]
    if case == "format-2":
        plan["format"] = 2
    elif case == "relative-workspace":
        plan["workspace"] = "tmp"
    elif case == "no-session":
        del plan["session"]
    elif case == "no-list-changed":
        del features["roots"]["list_changed"]
    elif case == "signal-path":
        change["signal"] = "../add-root"
    elif case == "no-added-folder":
        change["add_folders"] = []
    elif case == "bad-action":
        features["elicitation"]["answer"] = {"action": "maybe"}
    elif case == "sampling-without-model":
        del features["sampling"]["answer"]["model"]
    elif case == "notify-text":
        change["notify"] = "yes"
    return json.dumps(plan, ensure_ascii=False)


BAD_PLANS = [
    "not-json",
    "format-2",
    "relative-workspace",
    "no-session",
    "no-list-changed",
    "signal-path",
    "no-added-folder",
    "bad-action",
    "sampling-without-model",
    "notify-text",
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", BAD_PLANS)
def test_a_malformed_plan_is_refused_before_the_server_starts(
    target: str, case: str, tools: Path, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(spoiled(case, tmp_path), encoding="utf-8")
    started = tmp_path / "started"
    server = [sys.executable, "-c", f"open({str(started)!r}, 'w')"]
    done = subprocess.run(
        [str(host(tools, target)), "--plan", str(plan), "--", *server],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if "host: " in line]
    assert len(errors) == 1 and "bad plan" in errors[0], done.stderr
    assert not started.exists()
