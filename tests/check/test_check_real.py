"""``mcp-compare check`` end to end, as a CI job would run it: the command line, on a real
server (the reference Everything server, from the project's tools) and on a deliberately
broken one (``broken_server.py``, which writes a banner to stdout). One scenario at one
revision each: the mechanism, not the matrix (the matrix plays every scenario)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from compare._paths import PROJECT_ROOT
from compare.check._report import validate

MC = PROJECT_ROOT / ".venv" / "bin" / "mcp-compare"
BROKEN = Path(__file__).resolve().parent / "broken_server.py"
SELECTION = ["--scenario", "server-features", "--revision", "2025-06-18", "--jobs", "1"]


def run_check(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MC), "check", *args, *SELECTION],
        capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


@pytest.mark.clients
def test_a_real_server_passes_and_a_broken_one_fails_with_its_sentence(isolated: Path) -> None:
    real = isolated / "everything"
    done = run_check("--server", "{node_bin:mcp-server-everything} stdio", "--out", str(real))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "result: PASS (--fail-on fail)" in done.stdout
    report = json.loads((real / "report.json").read_text(encoding="utf-8"))
    assert validate(report) == [] and report["result"]["outcome"] == "pass"
    assert report["cells"]["played"] == 1 and report["program"]["side"] == "server"
    ET.parse(real / "junit.xml")  # well-formed
    assert "<html" in (real / "report.html").read_text(encoding="utf-8")

    # as on a machine where only `make venv` ran: no spec in the cache; the check fetches and
    # verifies the pinned files itself (here from the offline copy beside the checkout)
    broken = isolated / "broken"
    fresh = dict(os.environ, MCP_COMPARE_CACHE=str(isolated / "empty-cache"))
    fresh["MCP_COMPARE_SPEC"] = str(PROJECT_ROOT.parent / "shared" / "mcp-spec")
    done = run_check("--server", f"{sys.executable} {BROKEN}", "--out", str(broken), env=fresh)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL LIFE-20 (wire-json)" in done.stdout
    assert "MUST NOT write anything to its `stdout`" in done.stdout
    assert list((isolated / "empty-cache" / "spec").glob("*/schema/*/schema.json"))
    junit = ET.parse(broken / "junit.xml").getroot()
    assert sum(int(s.get("failures", "0")) for s in junit.iter("testsuite")) == 1
    # the same cells, reported at another threshold: read again, not played again
    done = run_check("--server", f"{sys.executable} {BROKEN}", "--out", str(broken),
                     "--fail-on", "never", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == {"threshold": "never", "outcome": "pass", "why": []}
    assert "cached 1" in done.stderr
    # nothing reached the published results folder
    assert list((isolated / "results").iterdir()) == []


@pytest.mark.clients
def test_a_real_server_already_running_is_checked_at_its_url(isolated: Path) -> None:
    """``--server URL``: the Everything server, started here in its Streamable HTTP mode
    (bound to 127.0.0.1 by our loopback preload), is checked where it listens and is still
    running afterwards: the check starts and ends nothing of the user's."""
    import socket

    from compare._paths import tools_dir
    from compare.play._harness import HOSTS_DIR

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    env = dict(os.environ, PORT=str(port), NODE_OPTIONS=f"--import=file://{HOSTS_DIR}/loopback.mjs")
    binary = tools_dir() / "node_modules" / ".bin" / "mcp-server-everything"
    server = subprocess.Popen([str(binary), "streamableHttp"], env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        out = isolated / "running"
        done = subprocess.run(
            [str(MC), "check", "--server", f"http://localhost:{port}/mcp", "--out", str(out),
             "--scenario", "server-http-session", "--revision", "2025-06-18", "--jobs", "1"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        assert validate(report) == [] and report["cells"]["played"] == 1, done.stderr
        rows = {row for finding in report["findings"] for row in finding["rows"]}
        assert "TRAN-08" in rows, done.stdout  # 400, not 404, for an ended session
        assert done.returncode == 1 and server.poll() is None
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.clients
def test_a_real_client_that_takes_a_url_is_checked_against_our_server_over_http(
    isolated: Path,
) -> None:
    """``--client '... {url}'``: mcp-remote's own client (installed for the proxy column,
    never a client column) is handed our server's URL, and is judged as a client on stdio is."""
    out = isolated / "url-client"
    done = subprocess.run(
        [str(MC), "check", "--client", "{node_bin:mcp-remote-client} {url}", "--out", str(out),
         "--scenario", "handshake", "--revision", "2025-06-18", "--jobs", "1"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["program"]["name"] == "mcp-remote-client" and report["cells"]["played"] == 1
    (cell,) = (out / "results").glob("*/*/handshake/2025-06-18")
    assert json.loads((cell / "done.json").read_text())["sessions"] >= 1
    lines = (cell / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    got = [json.loads(json.loads(x)["raw"]) for x in lines if json.loads(x)["dir"] == "in"]
    assert any(m.get("method") == "initialize" for m in got)
