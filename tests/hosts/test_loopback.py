"""Every shipped proxy that listens for our host binds 127.0.0.1 only, launched exactly as its
target file launches it (supergateway through the ``hosts/loopback.mjs`` preload its target
puts in ``NODE_OPTIONS``, mcp-proxy through ``--host 127.0.0.1``), and nothing it started
outlives its process group.

What is asserted is the bound address itself, read from the kernel's socket tables while the
proxy listens, not a log line.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from play.test_faults import live_processes_with as _marked

from compare.exchange._targets import Expansion, load_targets
from compare.play._harness import HOSTS_DIR

pytestmark = pytest.mark.clients

LISTENERS = [t.id for t in load_targets() if t.kind == "proxy" and t.transports["host"] != "stdio"]


def _listening(port: int) -> list[str]:
    """The local addresses of every listening socket on ``port`` (hex, as the kernel writes)."""
    found = []
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(name).read_text().splitlines()[1:]:
            local, state = row.split()[1], row.split()[3]
            addr, hexport = local.rsplit(":", 1)
            if state == "0A" and int(hexport, 16) == port:
                found.append(addr)
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_listening_proxies_are_the_ones_expected() -> None:
    assert set(LISTENERS) == {
        "supergateway-stdio-to-http",
        "supergateway-stdio-to-sse",
        "mcp-proxy-server",
    }


@pytest.mark.parametrize("target_id", LISTENERS)
def test_a_listening_proxy_binds_loopback_only_and_leaves_nothing(
    tools: Path, target_id: str, tmp_path: Path
) -> None:
    (target,) = [t for t in load_targets() if t.id == target_id]
    tiny = str(Path(__file__).with_name("tiny_server.py"))
    port = _free_port()
    exp = Expansion(
        server_argv=[sys.executable, tiny, "--record", str(tmp_path / "tiny.jsonl")],
        workspace=tmp_path,
        home=tmp_path,
        tools=tools,
        hosts=HOSTS_DIR,
        control=tmp_path,
        cell=tmp_path,
        port=port,
    )
    mark = f"loopback-test-{secrets.token_hex(6)}"
    env = {**os.environ, "MCP_COMPARE_LOOPBACK_TEST": mark}
    env.update({k: exp.text(v) for k, v in target.env.items()})
    proc = subprocess.Popen(
        exp.argv(target.argv),
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not _listening(port) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        # 0100007F is 127.0.0.1 as /proc/net/tcp writes it: nothing on 0.0.0.0 or ::
        assert _listening(port) == ["0100007F"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
    deadline = time.monotonic() + 5
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked(mark) == []
