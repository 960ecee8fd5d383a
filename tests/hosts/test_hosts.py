"""Each host program where a server fails it: one that cannot start, one that hangs up in the
middle of the handshake, a missing server command.

What each host does against a working server — the roots variant declared and its folder
listed, the empty plan declaring only what its SDK always declares, each listed tool called
with ``{}``, an added root listed on the next ask, a clean exit when the server closes — is
read from the harness's own cells of each SDK in ``test_sdk_runs.py`` (the smoke set), which
play those very plans: the runs this module made of them against a tiny server were the same
mechanism twice (issue 37: real programs once per mechanism).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare.exchange._host_plan import common, host_plan
from compare.exchange._targets import load_targets
from compare.install import venv_python

HOSTS = Path(__file__).resolve().parents[2] / "compare" / "hosts"
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
#: Hosts whose SDK hides a server that hangs up during initialize: mcp-agent's aggregator logs
#: the failure and hands back no session (mcp_agent/mcp/mcp_aggregator.py:512-524 in 0.2.6),
#: exactly as for a server that never started, so its host cannot tell the two apart.
HIDES_HANGUP = {"mcp-agent"}
#: Hosts built by `tools install` into tools/hosts/<id>/bin/host (compiled languages).
BUILT = {"go-sdk", "mcp-go", "rust-sdk", "java-sdk", "kotlin-sdk"}

pytestmark = pytest.mark.clients


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
