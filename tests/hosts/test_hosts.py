"""Each host program against a tiny stdlib server: what the real SDK client put on the wire.

Each host runs once per common variant (roots, no-roots, as host plans; roots with the add-root
signal) and every test reads that run's record. What the pinned client versions were measured
to do — the root URI each SDK produced for a folder named ``web #staging é``, the answer to
``roots/list`` without a roots handler, what each sends first, the add-root → list_changed path
— is data in ``tests/golden/sdk_hosts.json`` (``make golden`` rewrites it); the tests here
check it and what holds for any client: the hosts exit cleanly, call tools as told, report bad
servers, and keep the host contract for a roots plan (declared, the folder listed) and an empty
plan (nothing declared but ``always_declares``), which ``test_host_contract.py`` leaves to these
runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from _golden import GoldenFile

from compare.exchange._host_plan import common, host_plan
from compare.exchange._targets import load_targets
from compare.install import venv_python

HOSTS = Path(__file__).resolve().parents[2] / "compare" / "hosts"
TINY_SERVER = Path(__file__).resolve().parent / "tiny_server.py"
FOLDER = "web #staging é"
TARGETS = [
    "ts-sdk",
    "py-sdk",
    "fastmcp",
    "go-sdk",
    "mcp-go",
    "rust-sdk",
    "java-sdk",
    "kotlin-sdk",
    "pydantic-ai",
    "mastra",
    "mastra-v1",
    "mcp-use-py",
    "mcp-use-ts",
    "mcp-agent",
]
#: The hosts whose SDK can register roots (mastra's MCPClient 0.14.5 cannot: its target file's
#: `lacks:`; its roots plan exits 3, which test_host_contract checks): only these play the
#: roots run, and the others are measured on their no-roots run alone.
ROOTED = [t.id for t in load_targets() if t.id in TARGETS and "roots" not in t.lacks]
#: The rooted hosts that can also add a root while connected (``can_change_roots``; Mastra's
#: MCPClient 1.x takes roots but has no public setRoots): only these are sent the add-root
#: signal, the others are asked for their roots once.
CHANGING = [t.id for t in load_targets() if t.id in ROOTED and t.can_change_roots]
MODES = [(t, m) for t in TARGETS for m in ("roots", "no-roots") if m == "no-roots" or t in ROOTED]
#: Hosts whose SDK hides a server that hangs up during initialize: mcp-agent's aggregator logs
#: the failure and hands back no session (mcp_agent/mcp/mcp_aggregator.py:512-524 in 0.2.6),
#: exactly as for a server that never started, so its host cannot tell the two apart.
HIDES_HANGUP = {"mcp-agent"}
#: Hosts built by `tools install` into tools/hosts/<id>/bin/host (compiled languages).
BUILT = {"go-sdk", "mcp-go", "rust-sdk", "java-sdk", "kotlin-sdk"}

pytestmark = pytest.mark.clients


#: The SDKs that declare roots whatever the application registers (their target files'
#: ``always_declares``): their no-roots run declares roots too.
ALWAYS_ROOTED = [t.id for t in load_targets() if t.id in TARGETS and "roots" in t.always_declares]
#: The Node hosts, by target.
NODE_HOSTS = {
    "ts-sdk": "ts_sdk_host.mjs",
    "mastra": "mastra_host.mjs",
    "mastra-v1": "mastra_v1_host.mjs",
    "mcp-use-ts": "mcp_use_host.mjs",
}


def host_argv(target: str, tools: Path) -> list[str]:
    if target in NODE_HOSTS:
        # the Node.js the target runs on: its own tree's when it pins one (mastra-v1)
        (entry,) = [t for t in load_targets() if t.id == target]
        return [entry.node_binary(tools), str(HOSTS / NODE_HOSTS[target])]
    if target in BUILT:
        return [str(tools / "hosts" / target / "bin" / "host")]
    script = {
        "py-sdk": "py_sdk_host.py",
        "fastmcp": "fastmcp_host.py",
        "pydantic-ai": "pydantic_ai_host.py",
        "mcp-use-py": "mcp_use_host.py",
        "mcp-agent": "mcp_agent_host.py",
    }[target]
    return [str(venv_python(tools, target)), str(HOSTS / script)]


@dataclass(frozen=True)
class HostRun:
    """One host run against the tiny server: the process and every raw line both ways."""

    done: subprocess.CompletedProcess[str]
    lines: list[dict[str, Any]]
    workspace: Path

    def received(self) -> list[dict[str, Any]]:
        return [json.loads(x["raw"]) for x in self.lines if x["dir"] == "in"]

    def answer(self, request_id: str) -> tuple[dict[str, Any], str]:
        """The client's parsed answer to one of the server's requests, and its raw text."""
        for line in self.lines:
            if line["dir"] == "in" and json.loads(line["raw"]).get("id") == request_id:
                return json.loads(line["raw"]), line["raw"]
        raise AssertionError(f"no answer to {request_id}: {self.lines}")

    def initialize(self) -> dict[str, Any]:
        return next(m for m in self.received() if m.get("method") == "initialize")


def plan_argv(target: str, tools: Path, folder: Path, variant: str = "no-roots") -> list[str]:
    """The host's command line up to ``--``, with the plan of a common variant written into
    ``folder`` (its workspace is ``folder/FOLDER``, its control folder ``folder/control``)."""
    workspace, control = folder / FOLDER, folder / "control"
    workspace.mkdir(parents=True, exist_ok=True)
    control.mkdir(exist_ok=True)
    plan = folder / "host-plan.json"
    fragment = common().variants[variant]
    plan.write_text(json.dumps(host_plan(fragment, workspace, control)), encoding="utf-8")
    return [*host_argv(target, tools), "--plan", str(plan)]


def host_env(tools: Path, folder: Path) -> dict[str, str]:
    """The environment of one host run: its own home under ``folder``, as a cell has. The
    mcp-agent host writes its configuration file into its home (``write_config``); two of its
    runs sharing the machine's home, side by side, read each other's half-written file and
    found no server in it ("Server 'peer' not found in registry"), a race of ours."""
    home = folder / "home"
    home.mkdir(exist_ok=True)
    return {**os.environ, "MCP_COMPARE_TOOLS": str(tools), "HOME": str(home)}


def run_host(target: str, tools: Path, folder: Path, *, no_roots: bool) -> HostRun:
    workspace = folder / FOLDER
    record = folder / "record.jsonl"
    server = [sys.executable, str(TINY_SERVER), "--record", str(record)]
    argv = plan_argv(target, tools, folder, "no-roots" if no_roots else "roots")
    if not no_roots and target in CHANGING:
        server += ["--control", str(folder / "control")]
    env = host_env(tools, folder)
    done = subprocess.run(
        [*argv, "--", *server], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    # A host that never started the server leaves no record: its own tests fail, not all.
    text = record.read_text(encoding="utf-8") if record.exists() else ""
    return HostRun(done, [json.loads(x) for x in text.splitlines()], workspace)


@pytest.fixture(scope="module")
def runs(tools: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], HostRun]:
    """Every host in each of its modes, two at a time: each run is a program of its own
    against its own tiny server, mostly start-up time, which a second core can overlap."""
    folders = {(t, m): tmp_path_factory.mktemp(f"{t}-{m}") for t, m in MODES}

    def one(key: tuple[str, str]) -> HostRun:
        return run_host(key[0], tools, folders[key], no_roots=key[1] == "no-roots")

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(MODES, pool.map(one, MODES), strict=True))


@pytest.mark.parametrize(("target", "mode"), MODES, ids=[f"{m}-{t}" for t, m in MODES])
def test_host_exits_0_when_the_server_closes(
    target: str, mode: str, runs: dict[tuple[str, str], HostRun]
) -> None:
    run = runs[(target, mode)]
    assert run.done.returncode == 0, run.done.stderr
    assert "Traceback" not in run.done.stderr


def measured(target: str, runs: dict[tuple[str, str], HostRun]) -> dict[str, Any]:
    """What one SDK put on the wire, as kept in ``tests/golden/sdk_hosts.json``."""
    if target not in ROOTED:
        return lacking_roots(runs[(target, "no-roots")])
    run = runs[(target, "roots")]
    init = run.initialize()["params"]
    result, _raw = run.answer("roots-1")
    prefix = f"file://{run.workspace.parent.as_posix()}/"
    uris = [r["uri"] for r in result["result"]["roots"]]
    opening = run.received()[0]
    later: list[str] = []
    if target in CHANGING:
        second, _raw = run.answer("roots-2")
        later = [r["uri"] for r in second["result"]["roots"]]
    refusal, _raw = runs[(target, "no-roots")].answer("roots-1")
    facts: dict[str, Any] = {
        # the roots/list answer for FOLDER, after the workspace's parent folder
        "roots": [u.removeprefix(prefix) if u.startswith(prefix) else u for u in uris],
        "asks_for": init["protocolVersion"],
        "roots_capability": init["capabilities"].get("roots"),
        "first_request": opening.get("method"),
        "no_roots_answer": refusal.get("error", {}).get("code", "result"),
        "sends_list_changed": "notifications/roots/list_changed"
        in [m.get("method") for m in run.received()],
        # fastmcp's set_roots() only reaches sessions opened later: its live one keeps the old list
        # (Java's Path.toUri() ends a folder's URI with a slash; both forms name the folder)
        "shows_added_root": any(u.rstrip("/").endswith("/added%20root%20%C3%BC") for u in later),
    }
    if opening.get("method") == "server/discover":
        meta = opening["params"]["_meta"]
        facts["discover_meta"] = {
            key: meta.get(f"io.modelcontextprotocol/{key}")
            for key in ("protocolVersion", "clientCapabilities")
        }
    return facts


def lacking_roots(run: HostRun) -> dict[str, Any]:
    """What a host whose SDK cannot register roots put on the wire, from its no-roots run."""
    init = run.initialize()["params"]
    refusal, _raw = run.answer("roots-1")
    return {
        "lacks": "roots",
        "asks_for": init["protocolVersion"],
        "capabilities": init["capabilities"],
        "first_request": run.received()[0].get("method"),
        "no_roots_answer": refusal.get("error", {}).get("code", "result"),
        "sends_list_changed": "notifications/roots/list_changed"
        in [m.get("method") for m in run.received()],
    }


@pytest.mark.parametrize("target", TARGETS)
def test_measured_behaviour_matches_golden(
    target: str, runs: dict[tuple[str, str], HostRun], golden: Callable[[str], GoldenFile]
) -> None:
    """Root URI, default error, asked version, opening request, list_changed: as recorded."""
    golden("sdk_hosts").expect(target, measured(target, runs))


def names_folder(uri: str, folder: Path) -> bool:
    """Whether a file URI names ``folder`` (a trailing slash, as Java's Path.toUri writes
    for a folder, names it too)."""
    parsed = urlparse(uri)
    return parsed.scheme == "file" and unquote(parsed.path).rstrip("/") == str(folder)


@pytest.mark.parametrize("target", ROOTED)
def test_roots_variant_declares_roots_and_lists_the_folder(
    target: str, runs: dict[tuple[str, str], HostRun]
) -> None:
    """The host contract for a plan with roots: declared, and the first ``roots/list`` is
    answered with the workspace alone (the golden file keeps the exact URI)."""
    run = runs[(target, "roots")]
    assert "roots" in run.initialize()["params"]["capabilities"]
    reply, raw = run.answer("roots-1")
    roots = reply["result"]["roots"]
    assert [names_folder(r["uri"], run.workspace.resolve()) for r in roots] == [True], raw


@pytest.mark.parametrize("target", TARGETS)
def test_no_roots_variant_declares_no_roots(
    target: str, runs: dict[tuple[str, str], HostRun]
) -> None:
    """No roots declared, unless the SDK always declares them: then the answer lists none."""
    run = runs[(target, "no-roots")]
    declared = "roots" in run.initialize()["params"]["capabilities"]
    assert declared == (target in ALWAYS_ROOTED)
    reply, raw = run.answer("roots-1")
    assert "error" in reply or "result" in reply, raw
    if declared:
        assert reply["result"]["roots"] == [], raw


@pytest.mark.parametrize("target", TARGETS)
def test_each_listed_tool_is_called_with_empty_arguments(
    target: str, runs: dict[tuple[str, str], HostRun]
) -> None:
    run = runs[(target, "roots" if target in ROOTED else "no-roots")]
    calls = [m for m in run.received() if m.get("method") == "tools/call"]
    assert [(c["params"]["name"], c["params"]["arguments"]) for c in calls] == [("probe", {})]


@pytest.mark.parametrize("target", CHANGING)
def test_add_root_creates_the_folder_and_asks_again(
    target: str, runs: dict[tuple[str, str], HostRun]
) -> None:
    run = runs[(target, "roots")]
    assert (run.workspace / "added root ü").is_dir()
    second, raw = run.answer("roots-2")
    assert isinstance(second.get("result", {}).get("roots"), list), raw


@pytest.mark.parametrize("target", TARGETS)
def test_host_reports_a_server_that_cannot_start(target: str, tools: Path, tmp_path: Path) -> None:
    argv = [*plan_argv(target, tools, tmp_path), "--", "/nonexistent/srv"]
    env = host_env(tools, tmp_path)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode != 0
    assert "host:" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("target", TARGETS)
def test_host_exits_0_when_the_server_hangs_up_mid_handshake(
    target: str, tools: Path, tmp_path: Path
) -> None:
    # A server that reads the first request (initialize or server/discover), then exits
    # without answering: the connection closes under a pending request.
    server = [sys.executable, "-c", "import sys; sys.stdin.readline()"]
    argv = [*plan_argv(target, tools, tmp_path), "--", *server]
    env = host_env(tools, tmp_path)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)
    if target in HIDES_HANGUP:
        # Its SDK wrapper logs the failed initialize itself (a traceback on stderr, its own
        # logger's) and hands back no session: the host says so and exits 1.
        assert done.returncode == 1, done.stderr
        assert "mcp-agent host: NoServer: mcp-agent has no session" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_host_refuses_a_missing_server_command(tools: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        plan_argv("py-sdk", tools, tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0 and "SERVER_COMMAND" in done.stderr


def test_fastmcp_rejects_the_plain_path_its_docs_show(tools: Path, tmp_path: Path) -> None:
    """Why the fastmcp host prefixes file://: the documented plain path fails at construction."""
    code = (
        "import sys\nfrom fastmcp import Client\n"
        "from fastmcp.client.transports import StdioTransport\n"
        "try:\n    Client(StdioTransport('true', []), roots=[sys.argv[1]])\n"
        "except Exception as err:\n    print(type(err).__name__, err)\n"
        "else:\n    print('accepted')\n"
    )
    done = subprocess.run(
        [str(venv_python(tools, "fastmcp")), "-c", code, str(tmp_path / FOLDER)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.startswith("ValidationError"), done.stdout + done.stderr
    assert "relative URL without a base" in done.stdout
