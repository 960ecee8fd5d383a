"""The chain launcher (hosts/chain.mjs) with the real gateways: the HTTP leg listens on
127.0.0.1 only, on the port the launcher picked, and nothing the chain started outlives it.

The outer command here is a probe that reads the kernel's socket tables while the inner
gateway is listening, so what is asserted is the bound address itself, not a log line.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compare.exchange._harness import HOSTS_DIR

pytestmark = pytest.mark.clients

#: Prints every listening socket on the port (argv[1]) as "address:port" per line.
PROBE = r"""
import sys
port = int(sys.argv[1])
for name in ("/proc/net/tcp", "/proc/net/tcp6"):
    for row in open(name).read().splitlines()[1:]:
        local, state = row.split()[1], row.split()[3]
        addr, hexport = local.rsplit(":", 1)
        if state == "0A" and int(hexport, 16) == port:
            print(addr)
"""


def _inner(tools: Path, gateway: str, scratch: Path) -> list[str]:
    if gateway == "supergateway":
        bin_ = str(tools / "node_modules" / ".bin" / "supergateway")
        return [bin_, "--stdio", "cat", "--outputTransport", "streamableHttp", "--stateful",
                "--port", "@PORT@"]  # fmt: skip
    # mcp-proxy starts (and initializes) its stdio server at once: give it a real one
    python = str(tools / "venvs" / "mcp-proxy" / "bin" / "python")
    tiny = str(Path(__file__).with_name("tiny_server.py"))
    server = [sys.executable, tiny, "--record", str(scratch / "tiny.jsonl")]
    return [python, "-m", "mcp_proxy", "--host", "127.0.0.1", "--port", "@PORT@", "--", *server]


def _marked(mark: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if mark.encode() in env and b") Z " not in stat:
            found.append(int(entry))
    return found


@pytest.mark.parametrize("gateway", ["supergateway", "mcp-proxy"])
def test_http_leg_binds_loopback_only_and_leaves_nothing(
    tools: Path, gateway: str, tmp_path: Path
) -> None:
    mark = f"chain-test-{secrets.token_hex(6)}"
    argv = ["node", str(HOSTS_DIR / "chain.mjs"), "--", *_inner(tools, gateway, tmp_path),
            "--then", sys.executable, "-c", PROBE, "@PORT@"]  # fmt: skip
    env = {**os.environ, "MCP_COMPARE_CHAIN_TEST": mark}
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=60, start_new_session=True
    )
    assert done.returncode == 0, done.stderr
    addresses = done.stdout.split()
    # 0100007F is 127.0.0.1 as /proc/net/tcp writes it; nothing on 0.0.0.0 or ::
    assert addresses and set(addresses) == {"0100007F"}, (addresses, done.stderr)
    deadline = time.monotonic() + 5
    while _marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked(mark) == []
