"""The Maven host builder: what it refuses before running Maven, and what it does with the
java-sdk host ``make tools`` built for real."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from compare import _paths
from compare._errors import CompareError
from compare.install import _maven
from compare.install._pins import Pin

SHIPPED = _maven.HOSTS_SRC / "java-sdk"
PIN = Pin("java-sdk", "maven", "io.modelcontextprotocol.sdk:mcp", "2.2.0")


def copy_host(tmp_path: Path) -> Path:
    """A copy of the shipped java-sdk host sources under ``<tmp>/src/java-sdk``."""
    root = tmp_path / "src"
    shutil.copytree(SHIPPED, root / "java-sdk")
    return root


def test_the_shipped_pom_pins_what_the_target_pins() -> None:
    assert _maven.pom_pins(SHIPPED / "pom.xml")[PIN.name] == PIN.version
    lock = _maven.read_lock(SHIPPED / _maven.LOCK_NAME)
    assert f"mcp-core-{PIN.version}.jar" in lock
    assert all(len(digest) == 64 for digest in lock.values())


def test_a_pom_at_another_version_is_refused(tmp_path: Path) -> None:
    root = copy_host(tmp_path)
    with pytest.raises(CompareError, match=re.escape(f"pins {PIN.name} at 2.2.0")):
        _maven.install(Pin(PIN.target, "maven", PIN.name, "9.9.9"), tmp_path / "tools", root)


def test_a_name_that_is_not_group_artifact_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="not group:artifact"):
        _maven.install(Pin("java-sdk", "maven", "mcp", "2.2.0"), tmp_path, copy_host(tmp_path))


def test_a_missing_lock_says_to_lock(tmp_path: Path) -> None:
    root = copy_host(tmp_path)
    (root / "java-sdk" / _maven.LOCK_NAME).unlink()
    with pytest.raises(CompareError, match=re.escape("deps.lock is missing")) as err:
        _maven.install(PIN, tmp_path / "tools", root)
    assert "tools lock" in (err.value.hint or "")


def test_an_unreadable_pom_is_a_clear_error(tmp_path: Path) -> None:
    root = copy_host(tmp_path)
    (root / "java-sdk" / "pom.xml").write_text("<project>", encoding="utf-8")
    with pytest.raises(CompareError, match="cannot read"):
        _maven.install(PIN, tmp_path / "tools", root)


def test_installed_version_reads_the_stamp(tmp_path: Path) -> None:
    assert _maven.installed_version(tmp_path, "java-sdk") is None
    stamp = _maven.host_dir(tmp_path, "java-sdk") / _maven.STAMP
    stamp.parent.mkdir(parents=True)
    stamp.write_text(json.dumps({"version": "2.2.0"}), encoding="utf-8")
    assert _maven.installed_version(tmp_path, "java-sdk") == "2.2.0"
    stamp.write_text("not json", encoding="utf-8")
    assert _maven.installed_version(tmp_path, "java-sdk") is None


@pytest.mark.clients
def test_build_checks_the_lock_then_skips_when_nothing_changed(tmp_path: Path) -> None:
    """The host ``make tools`` built with Maven (a real build, which every test of the Java
    host runs), copied into a private tools folder: it runs, an install with nothing changed
    leaves it as it is, and a lock naming another jar hash is refused rather than rebuilt.
    Copying instead of building again spares a JVM build of half a minute of CPU."""
    root, tools = copy_host(tmp_path), tmp_path / "tools"
    built = _maven.host_dir(_paths.tools_dir(), "java-sdk")
    shutil.copytree(built, _maven.host_dir(tools, "java-sdk"), symlinks=True)
    host = _maven.host_dir(tools, "java-sdk") / "bin" / "host"
    done = subprocess.run([str(host)], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0 and "SERVER_COMMAND" in done.stderr
    stamp = (_maven.host_dir(tools, "java-sdk") / "bin" / "host").stat().st_mtime_ns
    again = _maven.install(PIN, tools, root)
    assert again == f"java-sdk: already installed (host built with {PIN.name}@{PIN.version})"
    assert (_maven.host_dir(tools, "java-sdk") / "bin" / "host").stat().st_mtime_ns == stamp
    # A lock that names another jar hash is a mismatch, not a silent rebuild.
    lock = root / "java-sdk" / _maven.LOCK_NAME
    text = lock.read_text(encoding="utf-8")
    lock.write_text(text.replace("mcp-core-2.2.0.jar 9", "mcp-core-2.2.0.jar 0"), "utf-8")
    with pytest.raises(CompareError, match="differ from"):
        _maven.install(PIN, tools, root)
