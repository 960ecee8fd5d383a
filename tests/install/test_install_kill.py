"""``tools install`` killed mid-install: the installer's processes go with it, no stamp says
"installed", and the next install completes.

The npm on PATH is a stand-in (a fault for the test, never a client under measurement): it
starts a helper process in its group, as npm's install scripts do, and either hangs or
writes the manifests ``npm ci`` would. Before the watchdog, a killed ``tools install`` left
npm writing into ``node_modules`` under the next install.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _kills import SIGNALS, carriers, gone_after

from compare._paths import PROJECT_ROOT
from compare.exchange._targets import TARGETS_DIR
from compare.install._npm import STAMP, package_json
from compare.install._pins import load_pins

FAKE_NPM = """#!{python}
import json, os, pathlib, subprocess, sys, time
helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
if os.path.exists(os.environ["FAKE_NPM_HANG"]):
    time.sleep(120)
deps = json.loads(pathlib.Path("package.json").read_text())["dependencies"]
for name, version in deps.items():
    folder = pathlib.Path("node_modules", name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text(json.dumps({{"name": name, "version": version}}))
helper.kill()
"""


def _setup(tmp_path: Path) -> tuple[dict[str, str], Path]:
    targets = tmp_path / "targets"
    targets.mkdir()
    shutil.copy(TARGETS_DIR / "ts-sdk.yaml", targets)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "package.json").write_text(package_json(load_pins(targets)), encoding="utf-8")
    (tools / "package-lock.json").write_text("{}\n", encoding="utf-8")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM.format(python=sys.executable), encoding="utf-8")
    npm.chmod(0o755)
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH (the installer requires it)")
    env = dict(os.environ)
    env.pop("MCP_COMPARE_RUN", None)
    env.update(
        PATH=f"{bin_dir}:{env['PATH']}",
        PYTHONPATH=str(PROJECT_ROOT),
        MCP_COMPARE_TOOLS=str(tools),
        MCP_COMPARE_BUILD=str(tmp_path / "build"),
        FAKE_NPM_HANG=str(tmp_path / "hang"),
    )
    return env, targets


def _install(env: dict[str, str], targets: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "compare", "tools", "install", "--targets", str(targets)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_killed_install_leaves_no_stamp_and_no_installer(
    tmp_path: Path, sig: signal.Signals
) -> None:
    env, targets = _setup(tmp_path)
    (tmp_path / "hang").touch()
    proc = _install(env, targets)
    deadline = time.monotonic() + 60
    # npm and its helper both carry the tools folder in their environment.
    while len(carriers(str(tmp_path / "tools"))) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(carriers(str(tmp_path / "tools"))) >= 3, "the fake npm never started"
    proc.send_signal(sig)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:  # a failure here must not leave the install behind
            proc.kill()
            proc.wait()
    waited, left = gone_after(str(tmp_path / "tools"))
    print(f"\n{sig.name}: installer processes gone {waited:.2f} s after mcp-compare")
    assert not left
    assert not (tmp_path / "tools" / "node_modules" / STAMP).exists()
    assert not (tmp_path / "build" / "stamps" / "tools.json").exists()

    (tmp_path / "hang").unlink()
    again = _install(env, targets)
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0, out
    assert (tmp_path / "tools" / "node_modules" / STAMP).is_file()
    assert (tmp_path / "build" / "stamps" / "tools.json").is_file()
    assert "npm: installed from package-lock.json" in out


def test_a_second_install_waits_for_the_first_then_completes(tmp_path: Path) -> None:
    env, targets = _setup(tmp_path)
    tools = tmp_path / "tools"
    fd = os.open(tools, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # this test plays the first install
    try:
        refused = subprocess.run(
            [sys.executable, "-m", "compare", "tools", "install", "--no-wait"],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert f"the tools folder {tools} is in use: held by pid {os.getpid()}" in refused.stderr
        second = _install(env, targets)
        assert second.stdout is not None
        first_line = second.stdout.readline()
        assert f"waiting for the tools folder {tools}: held by pid {os.getpid()}" in first_line
        assert second.poll() is None
    finally:
        os.close(fd)
    out, _ = second.communicate(timeout=120)
    assert second.returncode == 0, out
    assert "is free after" in out and (tools / "node_modules" / STAMP).is_file()
