"""Each host program against a tiny stdlib server: what the real SDK client put on the wire.

These pin the measured behaviour of the pinned client versions (see the README of the
exchange stage): the root URI each SDK produced for a folder named ``web #staging é``, the
answer to ``roots/list`` without a roots handler, and the add-root → list_changed path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from compare.exchange.install import venv_python

HOSTS = Path(__file__).resolve().parents[3] / "compare" / "exchange" / "hosts"
TINY_SERVER = Path(__file__).resolve().parent / "tiny_server.py"
FOLDER = "web #staging é"
ENCODED = "web%20%23staging%20%C3%A9"

pytestmark = pytest.mark.clients


def host_argv(target: str, tools: Path) -> list[str]:
    if target == "ts-sdk":
        return ["node", str(HOSTS / "ts_sdk_host.mjs")]
    script = {"py-sdk": "py_sdk_host.py", "fastmcp": "fastmcp_host.py"}[target]
    return [str(venv_python(tools, target)), str(HOSTS / script)]


def run_host(
    target: str, tools: Path, tmp_path: Path, *extra: str, change_roots: bool = False
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]], Path]:
    """Run one host against the tiny server; return the process, the record and the workspace."""
    workspace = tmp_path / FOLDER
    workspace.mkdir()
    record = tmp_path / "record.jsonl"
    server = [sys.executable, str(TINY_SERVER), "--record", str(record)]
    argv = [*host_argv(target, tools), "--workspace", str(workspace), *extra]
    if change_roots:
        control = tmp_path / "control"
        control.mkdir()
        argv += ["--control", str(control)]
        server += ["--control", str(control)]
    env = {**os.environ, "MCP_COMPARE_TOOLS": str(tools)}
    done = subprocess.run(
        [*argv, "--", *server], capture_output=True, text=True, timeout=60, env=env, check=False
    )
    lines = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()]
    return done, lines, workspace


def received(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [json.loads(x["raw"]) for x in lines if x["dir"] == "in"]


def answer(lines: list[dict[str, Any]], request_id: str) -> tuple[dict[str, Any], str]:
    """The client's parsed answer to one of the server's requests, and its raw text."""
    for line in lines:
        if line["dir"] == "in" and json.loads(line["raw"]).get("id") == request_id:
            return json.loads(line["raw"]), line["raw"]
    raise AssertionError(f"no answer to {request_id}: {lines}")


# What each SDK put in roots/list for FOLDER, measured on the raw line.
EXPECTED_URI = {
    "ts-sdk": ENCODED,  # pathToFileURL encodes space, '#' and é
    "py-sdk": ENCODED,  # Path.as_uri encodes them; the SDK's FileUrl keeps it
    "fastmcp": "web%20#staging%20%C3%A9",  # "file://"+path through pydantic: '#' left bare
}


@pytest.mark.parametrize("target", ["ts-sdk", "py-sdk", "fastmcp"])
def test_root_uri_as_each_sdk_encodes_it(target: str, tools: Path, tmp_path: Path) -> None:
    done, lines, workspace = run_host(target, tools, tmp_path)
    assert done.returncode == 0, done.stderr
    result, raw = answer(lines, "roots-1")
    uris = [r["uri"] for r in result["result"]["roots"]]
    assert uris == [f"file://{workspace.parent.as_posix()}/{EXPECTED_URI[target]}"], raw


@pytest.mark.parametrize(
    ("target", "code"), [("ts-sdk", -32601), ("py-sdk", -32600), ("fastmcp", -32600)]
)
def test_no_roots_variant_gets_the_sdk_default_error(
    target: str, code: int, tools: Path, tmp_path: Path
) -> None:
    done, lines, _ = run_host(target, tools, tmp_path, "--no-roots")
    assert done.returncode == 0, done.stderr
    reply, raw = answer(lines, "roots-1")
    assert reply["error"]["code"] == code, raw
    init = next(m for m in received(lines) if m.get("method") == "initialize")
    assert "roots" not in init["params"]["capabilities"]


@pytest.mark.parametrize("target", ["ts-sdk", "py-sdk", "fastmcp"])
def test_roots_variant_declares_list_changed(target: str, tools: Path, tmp_path: Path) -> None:
    done, lines, _ = run_host(target, tools, tmp_path)
    assert done.returncode == 0, done.stderr
    init = next(m for m in received(lines) if m.get("method") == "initialize")
    assert init["params"]["capabilities"]["roots"] == {"listChanged": True}
    assert init["params"]["protocolVersion"] == "2025-11-25"


@pytest.mark.parametrize(
    ("target", "first"),
    [("ts-sdk", "initialize"), ("py-sdk", "server/discover"), ("fastmcp", "server/discover")],
)
def test_first_request_each_sdk_sends(target: str, first: str, tools: Path, tmp_path: Path) -> None:
    done, lines, _ = run_host(target, tools, tmp_path)
    assert done.returncode == 0, done.stderr
    opening = received(lines)[0]
    assert opening["method"] == first
    if first == "server/discover":
        meta = opening["params"]["_meta"]
        assert meta["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"


@pytest.mark.parametrize("target", ["ts-sdk", "py-sdk", "fastmcp"])
def test_each_listed_tool_is_called_with_empty_arguments(
    target: str, tools: Path, tmp_path: Path
) -> None:
    done, lines, _ = run_host(target, tools, tmp_path)
    assert done.returncode == 0, done.stderr
    calls = [m for m in received(lines) if m.get("method") == "tools/call"]
    assert [(c["params"]["name"], c["params"]["arguments"]) for c in calls] == [("probe", {})]


# After add-root: does the next roots/list show the new root? fastmcp's set_roots() only
# affects sessions opened later, so its live session keeps answering with the old list.
SHOWS_ADDED_ROOT = {"ts-sdk": True, "py-sdk": True, "fastmcp": False}


@pytest.mark.parametrize("target", ["ts-sdk", "py-sdk", "fastmcp"])
def test_add_root_sends_list_changed(target: str, tools: Path, tmp_path: Path) -> None:
    done, lines, workspace = run_host(target, tools, tmp_path, change_roots=True)
    assert done.returncode == 0, done.stderr
    methods = [m.get("method") for m in received(lines)]
    assert "notifications/roots/list_changed" in methods
    assert (workspace / "added root ü").is_dir()
    second, raw = answer(lines, "roots-2")
    uris = [r["uri"] for r in second["result"]["roots"]]
    assert any(u.endswith("/added%20root%20%C3%BC") for u in uris) is SHOWS_ADDED_ROOT[target], raw


@pytest.mark.parametrize("target", ["ts-sdk", "py-sdk", "fastmcp"])
def test_host_reports_a_server_that_cannot_start(target: str, tools: Path, tmp_path: Path) -> None:
    workspace = tmp_path / FOLDER
    workspace.mkdir()
    argv = [*host_argv(target, tools), "--workspace", str(workspace), "--", "/nonexistent/srv"]
    env = {**os.environ, "MCP_COMPARE_TOOLS": str(tools)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode != 0
    assert "host:" in done.stderr
    assert "Traceback" not in done.stderr


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


@pytest.mark.parametrize("target", ["ts-sdk", "py-sdk", "fastmcp"])
def test_host_exits_0_when_the_server_hangs_up_mid_handshake(
    target: str, tools: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / FOLDER
    workspace.mkdir()
    # A server that reads the first request (initialize or server/discover), then exits
    # without answering: the connection closes under a pending request.
    server = [sys.executable, "-c", "import sys; sys.stdin.readline()"]
    argv = [*host_argv(target, tools), "--workspace", str(workspace), "--", *server]
    env = {**os.environ, "MCP_COMPARE_TOOLS": str(tools)}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
