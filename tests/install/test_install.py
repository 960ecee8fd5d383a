"""The installer: real installs from the registries, and clear errors for what can go wrong."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compare import _paths
from compare._errors import CompareError
from compare.exchange._targets import TARGETS_DIR
from compare.install import check_status, install_tools, lock_tools, tool_status
from compare.install._pins import Pin
from compare.install._pypi import unpinned

MC = [sys.executable, "-m", "compare"]


def bumped_targets(tmp_path: Path, target: str, old: str, new: str) -> Path:
    """A copy of one shipped target file whose pinned version is changed."""
    folder = tmp_path / "targets"
    folder.mkdir()
    text = (TARGETS_DIR / f"{target}.yaml").read_text(encoding="utf-8")
    assert f'version: "{old}"' in text
    (folder / f"{target}.yaml").write_text(text.replace(f'"{old}"', f'"{new}"'), encoding="utf-8")
    return folder


def mc(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MC, *args],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        check=False,
        cwd=_paths.PROJECT_ROOT,
    )


@pytest.mark.clients
def test_install_puts_every_pinned_client_in_the_tools_folder() -> None:
    """Every pin but those the run leaves out (``make test``: MCP_COMPARE_TOOLS_EXCEPT)."""
    install_tools()
    left = _paths.tools_left_out()
    statuses = [s for s in tool_status() if s.name not in left and s.target not in left]
    assert {s.target for s in statuses} >= {"ts-sdk", "py-sdk", "fastmcp"}
    assert [s for s in statuses if not s.ok] == []
    check_status(statuses)


@pytest.mark.clients
def test_second_install_does_nothing() -> None:
    install_tools()
    report = install_tools()
    assert all("already installed" in step for step in report.steps), report.steps
    assert report.size_bytes > 0


@pytest.mark.clients
def test_list_fails_on_a_version_mismatch(tmp_path: Path) -> None:
    install_tools()
    targets = bumped_targets(tmp_path, "py-sdk", "2.3.0", "2.2.0")
    [status] = tool_status(targets)
    assert (status.pinned, status.installed, status.ok) == ("2.2.0", "2.3.0", False)
    with pytest.raises(CompareError, match=re.escape("mcp 2.3.0 (pinned 2.2.0)")):
        check_status([status])
    done = mc("tools", "list", "--targets", str(targets))
    assert done.returncode == 2
    assert "pinned 2.2.0" in done.stderr
    assert "Traceback" not in done.stderr


def test_list_reports_a_client_that_is_not_installed(tmp_path: Path) -> None:
    statuses = tool_status(tools=tmp_path / "empty-tools")
    assert statuses and all(s.installed is None and not s.ok for s in statuses)


def test_install_refuses_a_package_json_that_does_not_match_the_targets(tmp_path: Path) -> None:
    targets = bumped_targets(tmp_path, "ts-sdk", "1.32.2", "1.32.1")
    tools = tmp_path / "tools"
    tools.mkdir()
    shutil.copy(_paths.PROJECT_ROOT / "tools" / "package.json", tools / "package.json")
    shutil.copy(_paths.PROJECT_ROOT / "tools" / "package-lock.json", tools / "package-lock.json")
    with pytest.raises(CompareError, match="does not match the target files"):
        install_tools(targets, tools)


def test_install_refuses_a_requirements_file_without_the_pin(tmp_path: Path) -> None:
    targets = bumped_targets(tmp_path, "fastmcp", "4.2.3", "4.2.2")
    tools = tmp_path / "tools"
    (tools / "requirements").mkdir(parents=True)
    shutil.copy(
        _paths.PROJECT_ROOT / "tools" / "requirements" / "fastmcp.txt",
        tools / "requirements" / "fastmcp.txt",
    )
    with pytest.raises(CompareError, match=re.escape("does not pin fastmcp==4.2.2")):
        install_tools(targets, tools)


def test_missing_requirements_file_says_to_lock(tmp_path: Path) -> None:
    targets = bumped_targets(tmp_path, "py-sdk", "2.3.0", "2.3.0")
    with pytest.raises(CompareError, match="tools lock"):
        install_tools(targets, tmp_path / "tools")


def test_missing_npm_is_a_clear_error(tmp_path: Path) -> None:
    targets = bumped_targets(tmp_path, "ts-sdk", "1.32.2", "1.32.2")
    tools = tmp_path / "tools"
    tools.mkdir()
    shutil.copy(_paths.PROJECT_ROOT / "tools" / "package-lock.json", tools / "package-lock.json")
    from compare.install._npm import package_json
    from compare.install._pins import load_pins

    (tools / "package.json").write_text(package_json(load_pins(targets)), encoding="utf-8")
    # A PATH with git (other stages import GitPython, which wants it) but no node or npm.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git, "git is needed by the CLI"
    (bin_dir / "git").symlink_to(git)
    env = {**os.environ, "PATH": str(bin_dir), "MCP_COMPARE_TOOLS": str(tools)}
    done = mc("tools", "install", "--targets", str(targets), env=env)
    assert done.returncode == 2
    assert "node was not found on PATH" in done.stderr
    assert "Traceback" not in done.stderr


def test_registry_failure_is_a_clear_error(tmp_path: Path) -> None:
    """A version the registry does not have: pip's own failure, as a CompareError."""
    targets = bumped_targets(tmp_path, "py-sdk", "2.3.0", "0.0.999")
    with pytest.raises(CompareError, match="pip install failed"):
        lock_tools(targets, tmp_path / "tools")


@pytest.mark.clients
def test_lock_writes_a_closure_that_install_then_accepts(tmp_path: Path) -> None:
    """lock → install round trip for one PyPI target, in a private tools folder: the Python
    SDK's target file pinned to one small package without dependencies (idna), so the real
    resolve, freeze and install cost seconds, not the SDK's whole closure; the closure of a
    real target is locked and installed by ``make tools`` before the tests run."""
    targets = tmp_path / "targets"
    targets.mkdir()
    text = (TARGETS_DIR / "py-sdk.yaml").read_text(encoding="utf-8")
    own = text.replace("id: py-sdk", "id: tiny").replace("{python:py-sdk}", "python")
    own = own.replace("name: mcp\n", "name: idna\n").replace('"2.3.0"', '"3.20"')
    (targets / "tiny.yaml").write_text(own, encoding="utf-8")
    tools = tmp_path / "tools"
    report = lock_tools(targets, tools)
    assert report.steps[0] == "no npm targets"
    text = (tools / "requirements" / "tiny.txt").read_text(encoding="utf-8")
    assert text.startswith("# generated by `mcp-compare tools lock`")
    pinned = [line for line in text.splitlines() if not line.startswith("#")]
    assert pinned == ["idna==3.20"]
    assert install_tools(targets, tools).steps == ["no npm targets", "tiny: already installed"]
    [status] = tool_status(targets, tools)
    assert status.ok


def test_an_extras_requirement_is_held_by_its_package_line() -> None:
    """pydantic-ai asks for ``pydantic-ai-slim[mcp]==V``; ``pip freeze`` locks it without the
    extra, and install used to refuse the lock it had just written."""
    pin = Pin("t", "pypi", "pkg", "1.0", ("pkg[group]==1.0",))
    assert unpinned(pin, {"pkg": "1.0"}) is None
    assert unpinned(pin, {"pkg": "2.0"}) == "pkg==1.0"
    other = Pin("t", "pypi", "pkg", "1.0", ("dep[x]==3",))
    assert unpinned(other, {"pkg": "1.0", "dep": "2"}) == "dep[x]==3"


def test_targets_with_the_same_closure_share_one_venv(tmp_path: Path) -> None:
    """Two targets that pin the same closure (here one small package, as the Python SDK's
    client and server pin one large one): one venv is installed, each target's folder links
    to it, and a venv a target had of its own is replaced by the link."""
    targets = tmp_path / "targets"
    targets.mkdir()
    tools = tmp_path / "tools"
    (tools / "requirements").mkdir(parents=True)
    text = (TARGETS_DIR / "py-sdk.yaml").read_text(encoding="utf-8")
    for target in ("one", "two"):
        own = text.replace("id: py-sdk", f"id: {target}").replace("{python:py-sdk}", "python")
        own = own.replace("name: mcp\n", "name: idna\n").replace('"2.3.0"', '"3.20"')
        (targets / f"{target}.yaml").write_text(own, encoding="utf-8")
        head = f"# generated for target {target}; do not edit.\n"
        (tools / "requirements" / f"{target}.txt").write_text(head + "idna==3.20\n", "utf-8")
    (tools / "venvs" / "one" / "bin").mkdir(parents=True)  # an older venv of its own
    steps = install_tools(targets, tools).steps
    assert len([s for s in steps if "installed idna==3.20" in s]) == 1, steps
    assert len([s for s in steps if s.endswith(": already installed")]) == 1, steps
    one, two = (tools / "venvs" / t for t in ("one", "two"))
    assert one.is_symlink() and two.is_symlink()
    assert one.resolve() == two.resolve()
    assert one.resolve().parent == tools / "venvs" / ".shared"
    assert (one / "bin" / "python").exists()
    assert all(s.ok for s in tool_status(targets, tools))
    again = install_tools(targets, tools).steps
    assert sorted(again) == ["no npm targets", "one: already installed", "two: already installed"]


def test_leaving_out_names_a_package_or_a_target_and_refuses_a_typo() -> None:
    """``--except`` drops every target of a package, or one target by id; a name that matches
    no pin is an error, not an install of everything. The environment's names
    (``make test``'s) are kept to those the targets pin, as a test's own targets may not."""
    from compare.install._pins import load_pins
    from compare.install._tools import without

    pins = load_pins()
    rust = {p.target for p in pins if p.name == "rust-mcp-filesystem"}
    assert len(rust) >= 2
    kept = {p.target for p in without(pins, frozenset({"rust-mcp-filesystem"}))}
    assert kept == {p.target for p in pins} - rust
    kept = {p.target for p in without(pins, frozenset({"py-sdk"}))}
    assert kept == {p.target for p in pins} - {"py-sdk"}
    with pytest.raises(CompareError, match="leaving out rust-mcp-filesytem: no target"):
        without(pins, frozenset({"rust-mcp-filesytem"}))


def test_an_unknown_name_given_to_the_cli_is_refused_before_any_install(tmp_path: Path) -> None:
    env = {**os.environ, "MCP_COMPARE_TOOLS": str(tmp_path / "tools")}
    env["MCP_COMPARE_BUILD"] = str(tmp_path / "build")
    done = mc("tools", "install", "--except", "no-such-program", env=env)
    assert done.returncode != 0
    assert "leaving out no-such-program: no target or package" in done.stdout + done.stderr
    assert not (tmp_path / "tools" / "node_modules").exists()
