"""Every SDK host obeys the host contract (``compare/hosts/README.md``).

Parametrised over the shipped targets of kind ``sdk-host``, each launched by its own target
line (``HOST --plan {host_plan} -- {server_argv}``) against the tiny stdlib server, with a plan
the harness's own writer builds (``_host_plan.host_plan``). What holds for every host: a plan
with only roots declares roots and answers ``roots/list`` with the folder; ``{}`` declares
none (but what the target's data lists under ``always_declares``); a feature the data says
it ``lacks`` exits 3 with one line, and every feature it does not lack is declared; a
malformed plan exits 2 with one line. Then the answers of the plan: py-sdk, ts-sdk, fastmcp,
java-sdk, kotlin-sdk, rust-sdk, pydantic-ai, both mcp-use clients and mcp-agent answer
``elicitation/create`` and ``sampling/createMessage`` (each one its target does not lack)
with what the plan says.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from compare.exchange._host_plan import FEATURES, HOST_PLAN, common, host_plan
from compare.exchange._targets import Expansion, Target, load_targets
from compare.play._harness import HOSTS_DIR, WORKSPACE_NAME

TINY_SERVER = Path(__file__).resolve().parent / "tiny_server.py"
SDK_HOSTS = [t for t in load_targets() if t.kind == "sdk-host"]
IDS = [t.id for t in SDK_HOSTS]
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
    env = {**os.environ, **{k: exp.text(v) for k, v in target.env.items()}}
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


def names_folder(uri: str, folder: Path) -> bool:
    """Whether a file URI names ``folder`` (a trailing slash, as Java's Path.toUri writes
    for a folder, names it too)."""
    parsed = urlparse(uri)
    return parsed.scheme == "file" and unquote(parsed.path).rstrip("/") == str(folder)


ROOTED = [t for t in SDK_HOSTS if "roots" not in t.lacks]


@pytest.mark.parametrize("target", ROOTED, ids=[t.id for t in ROOTED])
def test_a_plan_with_only_roots_declares_them_and_lists_the_folder(
    target: Target, tools: Path, tmp_path: Path
) -> None:
    run = play(target, tools, tmp_path, ONLY_ROOTS)
    assert run.done.returncode == 0, run.done.stderr
    assert "roots" in run.capabilities()
    roots = run.answer("roots-1")["result"]["roots"]
    assert [names_folder(r["uri"], run.workspace.resolve()) for r in roots] == [True], roots


@pytest.mark.parametrize("target", SDK_HOSTS, ids=IDS)
def test_an_empty_plan_declares_no_roots(target: Target, tools: Path, tmp_path: Path) -> None:
    """No roots planned, none declared, unless the target's data says its SDK declares roots
    whatever the application does (``always_declares``): then they must be on the wire, with
    no root of the application's in the answer."""
    run = play(target, tools, tmp_path, {"features": {}})
    assert run.done.returncode == 0, run.done.stderr
    assert ("roots" in run.capabilities()) == ("roots" in target.always_declares)
    answer = run.answer("roots-1")
    assert "result" in answer or "error" in answer
    if "roots" in target.always_declares:
        assert answer["result"]["roots"] == []


LACKED = [(t, f) for t in SDK_HOSTS for f in t.lacks]
SUPPORTED = [(t, f) for t in SDK_HOSTS for f in FEATURES if f not in t.lacks]


@pytest.mark.parametrize(
    ("target", "feature"), LACKED, ids=[f"{t.id}-{f}" for t, f in LACKED] or None
)
def test_a_lacked_feature_exits_3_before_the_server(
    target: Target, feature: str, tools: Path, tmp_path: Path
) -> None:
    run = play(target, tools, tmp_path, {"features": {feature: FRAGMENTS[feature]}})
    assert run.done.returncode == 3, run.done.stderr
    assert run.done.stderr.strip().count("\n") == 0
    assert f": unsupported: {feature}: " in run.done.stderr
    assert run.lines == []  # the server never started


@pytest.mark.parametrize(
    ("target", "feature"), SUPPORTED, ids=[f"{t.id}-{f}" for t, f in SUPPORTED]
)
def test_a_feature_the_data_does_not_call_lacking_is_declared(
    target: Target, feature: str, tools: Path, tmp_path: Path
) -> None:
    """The other half of host and data agreeing: no silent exit 3, and the capability is on
    the wire."""
    run = play(target, tools, tmp_path, {"features": {feature: FRAGMENTS[feature]}})
    assert run.done.returncode == 0, run.done.stderr
    assert feature in run.capabilities()


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


@pytest.mark.parametrize("target", SDK_HOSTS, ids=IDS)
@pytest.mark.parametrize(
    "how", ["not-json", "unknown-key", "unknown-feature", "unknown-option", "missing-key"]
)
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
    """Each of the two features the target does not lack (mastra lacks sampling)."""
    planned = [k for k in ("elicitation", "sampling") if k not in target.lacks]
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
