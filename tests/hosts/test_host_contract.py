"""Every SDK host obeys the host contract (``compare/hosts/README.md``).

Parametrised over the shipped targets of kind ``sdk-host``, each launched by its own target
line (``HOST --plan {host_plan} -- {server_argv}``) against the tiny stdlib server, with a plan
the harness's own writer builds (``_host_plan.host_plan``). What holds for every host: a
feature the data says it ``lacks`` exits 3 with one line; a malformed plan exits 2 with one
line (every way of spoiling it against each plan reader, one way against each other host
sharing that reader). Then the answers of the plan: every host answers
``elicitation/create`` and ``sampling/createMessage`` (each one its target does not lack)
with what the plan says, having declared both.

A plan with only roots (declared, the folder listed) and the empty plan (nothing declared but
``always_declares``) are the ``roots`` and ``no-roots`` cells of each SDK in
``test_sdk_runs.py``, which the harness plays with those plans and which are checked there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._host_plan import FEATURES, HOST_PLAN, LACKABLE, LISTS, common, host_plan
from compare.exchange._targets import Expansion, Target, load_targets
from compare.play._harness import HOSTS_DIR, WORKSPACE_NAME

TINY_SERVER = Path(__file__).resolve().parent / "tiny_server.py"
#: Each host once, as its stdio target starts it; its HTTP target (``-http``, handed our
#: server's URL) runs the same program, and the matrix plays it over HTTP.
SDK_HOSTS = [t for t in load_targets() if t.kind == "sdk-host" and not t.connects_by_url]
#: The hosts whose elicitation and sampling answers are checked on the wire here.
ANSWERING = [
    "py-sdk",
    "ts-sdk",
    "fastmcp",
    "go-sdk",
    "mcp-go",
    "java-sdk",
    "kotlin-sdk",
    "rust-sdk",
    "pydantic-ai",
    "mastra",
    "mastra-v1",
    "mcp-use-py",
    "mcp-use-ts",
    "mcp-agent",
]
ONLY_ROOTS = {
    "features": {"roots": {"folders": ["{workspace}"], "list_changed": True, "changes": []}}
}
#: A fragment per feature: roots alone, and the common elicitation and sampling variants
#: (``hosts/variants.yaml``) with their canned answers.
FRAGMENTS: dict[str, dict[str, Any]] = {
    "roots": ONLY_ROOTS["features"]["roots"],
    **{f: common().variants[f]["features"][f] for f in ("elicitation", "sampling")},
}
ELICITED = FRAGMENTS["elicitation"]["answer"]
SAMPLED = FRAGMENTS["sampling"]["answer"]

pytestmark = pytest.mark.clients


@dataclass(frozen=True)
class Played:
    """One host run: the process and every raw line the tiny server saw both ways."""

    done: subprocess.CompletedProcess[str]
    lines: list[dict[str, Any]]
    workspace: Path

    def received(self) -> list[dict[str, Any]]:
        return [json.loads(x["raw"]) for x in self.lines if x["dir"] == "in"]

    def capabilities(self) -> dict[str, Any]:
        first = next(m for m in self.received() if m.get("method") == "initialize")
        caps: dict[str, Any] = first["params"]["capabilities"]
        return caps

    def answer(self, request_id: str) -> dict[str, Any]:
        for message in self.received():
            if message.get("id") == request_id and "method" not in message:
                return message
        raise AssertionError(f"no answer to {request_id}: {self.lines}")


def play(
    target: Target,
    tools: Path,
    folder: Path,
    fragment: dict[str, Any] | None,
    *,
    raw_plan: str | None = None,
    asks: tuple[str, ...] = (),
) -> Played:
    """Launch ``target`` by its own launch line with the plan of ``fragment`` (or the text
    ``raw_plan``) against the tiny server."""
    workspace, control, home = folder / WORKSPACE_NAME, folder / "control", folder / "home"
    for path in (workspace, control, home):
        path.mkdir(parents=True)
    plan_path = folder / HOST_PLAN
    if raw_plan is None:
        plan = host_plan(fragment or {}, workspace, control)
        plan_path.write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    else:
        plan_path.write_text(raw_plan, encoding="utf-8")
    record = folder / "record.jsonl"
    server = [sys.executable, str(TINY_SERVER), "--record", str(record)]
    for ask in asks:
        server += ["--ask", ask]
    exp = Expansion(
        server_argv=server,
        workspace=workspace,
        home=home,
        tools=tools,
        hosts=HOSTS_DIR,
        control=control,
        cell=folder,
        host_plan=plan_path,
    )
    # Its own home, as a cell has: mcp-agent's host writes its configuration file there, and
    # two of its runs sharing one home (two workers) would read each other's half-written file.
    env = {**os.environ, "HOME": str(home), **{k: exp.text(v) for k, v in target.env.items()}}
    done = subprocess.run(
        exp.argv(target.argv),
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=target.timeout_s + 30,
        env=env,
        check=False,
    )
    text = record.read_text(encoding="utf-8") if record.exists() else ""
    return Played(done, [json.loads(x) for x in text.splitlines()], workspace)


LACKED = [(t, f) for t in SDK_HOSTS for f in t.lacks]
#: One request of each kind a target may lack (a list by name, every other kind as it is).
REQUESTS: dict[str, dict[str, Any]] = {
    **{f"list_{name}": {"list": name} for name in LISTS},
    "call": {"call": "probe"},
    "read": {"read": "mcp-compare://x"},
    "subscribe": {"subscribe": "mcp-compare://x"},
    "unsubscribe": {"unsubscribe": "mcp-compare://x"},
    "get_prompt": {"get_prompt": "p"},
    "complete": {"complete": {"ref": {"type": "ref/prompt", "name": "p"},
                              "argument": {"name": "a", "value": ""}}},
    "close": {"close": True},
}  # fmt: skip


def test_every_kind_of_request_has_one_to_try() -> None:
    assert set(REQUESTS) == set(LACKABLE)


@pytest.mark.parametrize(
    ("target", "feature"), LACKED, ids=[f"{t.id}-{f}" for t, f in LACKED] or None
)
def test_a_lacked_feature_exits_3_before_the_server(
    target: Target, feature: str, tools: Path, tmp_path: Path
) -> None:
    if feature in REQUESTS:  # a kind of scripted request its SDK has no call for
        fragment: dict[str, Any] = {"session": {"requests": [REQUESTS[feature]]}}
    else:
        fragment = {"features": {feature: FRAGMENTS[feature]}}
    run = play(target, tools, tmp_path, fragment)
    assert run.done.returncode == 3, run.done.stderr
    assert run.done.stderr.strip().count("\n") == 0
    assert f": unsupported: {feature}: " in run.done.stderr
    assert run.lines == []  # the server never started


def _spoil(how: str, plan: dict[str, Any]) -> str:
    """A plan made malformed one way (the rest of it valid)."""
    if how == "not-json":
        return json.dumps(plan)[:-1]
    if how == "unknown-key":
        plan["surprise"] = True
    elif how == "unknown-feature":
        plan["features"]["logging"] = {}
    elif how == "unknown-option":
        plan["options"]["surprise"] = "yes"
    elif how == "missing-key":
        del plan["session"]
    return json.dumps(plan, ensure_ascii=False)


SPOILS = ["not-json", "unknown-key", "unknown-feature", "unknown-option", "missing-key"]


def _plan_reader(target: Target) -> str:
    """The code that reads a host's plan: the Python hosts share ``host_plan.py``, the Node
    hosts ``plan_check.mjs``; a built host (Go, Java, Kotlin, Rust) has its own."""
    script = next((a for a in target.argv if a.startswith("{hosts}/")), "")
    return {".py": "host_plan.py", ".mjs": "plan_check.mjs"}.get(Path(script).suffix, target.id)


def _spoiled() -> list[tuple[Target, str]]:
    """Every way of spoiling a plan against each plan reader, on the first host that uses it;
    each other host sharing that reader gets one way (in turn), which shows it reads its plan
    through it. The reader itself is checked way by way in ``test_plan_reader.py``."""
    cases: list[tuple[Target, str]] = []
    seen: dict[str, int] = {}
    for target in sorted(SDK_HOSTS, key=lambda t: t.id):
        reader = _plan_reader(target)
        count = seen[reader] = seen.get(reader, -1) + 1
        if count == 0:
            cases += [(target, how) for how in SPOILS]
        else:
            cases.append((target, SPOILS[(count - 1) % len(SPOILS)]))
    return cases


SPOILED = _spoiled()


@pytest.mark.parametrize(("target", "how"), SPOILED, ids=[f"{h}-{t.id}" for t, h in SPOILED])
def test_a_malformed_plan_exits_2_with_one_line(
    target: Target, how: str, tools: Path, tmp_path: Path
) -> None:
    valid = host_plan(ONLY_ROOTS, tmp_path / WORKSPACE_NAME, tmp_path / "control")
    run = play(target, tools, tmp_path, None, raw_plan=_spoil(how, valid))
    assert run.done.returncode == 2, run.done.stderr
    assert run.done.stderr.strip() and run.done.stderr.strip().count("\n") == 0, run.done.stderr
    assert run.lines == []  # refused before the server started


@pytest.mark.parametrize(
    "target",
    [t for t in SDK_HOSTS if t.id in ANSWERING],
    ids=[t.id for t in SDK_HOSTS if t.id in ANSWERING],
)
def test_elicitation_and_sampling_are_answered_with_the_plan(
    target: Target, tools: Path, tmp_path: Path
) -> None:
    """Each feature but roots the target does not lack (mastra lacks sampling) is declared and
    answered (roots: the roots cells of ``test_sdk_runs.py``); a new feature fails here until
    asked."""
    planned = [k for k in FEATURES if k != "roots" and k not in target.lacks]
    asks = {"elicitation": "elicitation/create", "sampling": "sampling/createMessage"}
    fragment = {"features": {k: FRAGMENTS[k] for k in planned}}
    run = play(target, tools, tmp_path, fragment, asks=tuple(asks[k] for k in planned))
    assert run.done.returncode == 0, run.done.stderr
    caps = run.capabilities()
    assert set(planned) <= set(caps)
    assert ("roots" in caps) == ("roots" in target.always_declares)
    if "elicitation" in planned:
        assert run.answer("elicitation/create").get("result") == ELICITED
    if "sampling" in planned:
        sampled = run.answer("sampling/createMessage").get("result")
        assert sampled is not None and {k: sampled.get(k) for k in SAMPLED} == SAMPLED


#: Hosts whose SDK takes a handler per elicitation mode, so the host itself decides which
#: modes get one (the others hand every mode to the one handler: what they do with an
#: undeclared mode is the SDK's, and elicitation-url-undeclared measures it).
PER_MODE = ["java-sdk"]


@pytest.mark.parametrize("target", [t for t in SDK_HOSTS if t.id in PER_MODE], ids=PER_MODE)
def test_a_mode_the_plan_leaves_out_gets_no_handler_of_ours(
    target: Target, tools: Path, tmp_path: Path
) -> None:
    """Issue 36: the Java host registered a URL-mode hook though its plan said url: false, so
    our canned answer went out for a mode nobody declared. A form-only plan gives the SDK no
    URL hook: a URL-mode request then meets the SDK's own handling, never our answer."""
    fragment = {"features": {"elicitation": FRAGMENTS["elicitation"]}}
    assert fragment["features"]["elicitation"]["url"] is False
    run = play(target, tools, tmp_path, fragment, asks=("elicitation/create#url",))
    assert run.done.returncode == 0, run.done.stderr
    assert "url" not in (run.capabilities().get("elicitation") or {})
    assert run.answer("elicitation/create#url").get("result") != ELICITED
