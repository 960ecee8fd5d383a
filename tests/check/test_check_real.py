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
