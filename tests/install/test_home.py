"""The installer runs npm and pip in a scratch home, so install scripts leave the real one alone."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from compare.exchange._targets import TARGETS_DIR
from compare.install import install_tools, lock_tools, tool_status
from compare.install._home import install_env, scratch_home


def listing(folder: Path) -> list[str]:
    """Every path under ``folder``, relative and sorted (empty when nothing is there)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_env_moves_home_and_xdg_but_points_caches_at_the_real_home(tmp_path: Path) -> None:
    home, tools = tmp_path / "home", tmp_path / "tools"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text("[global]\n", encoding="utf-8")
    (home / ".npmrc").write_text("fund=false\n", encoding="utf-8")
    env = install_env(tools, {"HOME": str(home), "PATH": "/usr/bin"})
    scratch = scratch_home(tools).resolve()
    assert env["HOME"] == str(scratch)
    for name, sub in [
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ]:
        assert env[name] == str(scratch / sub)
        assert (scratch / sub).is_dir()
    assert env["npm_config_cache"] == str(home / ".npm")
    assert env["PIP_CACHE_DIR"] == str(home / ".cache" / "pip")
    assert env["npm_config_userconfig"] == str(home / ".npmrc")
    assert env["PIP_CONFIG_FILE"] == str(home / ".config" / "pip" / "pip.conf")
    assert env["PATH"] == "/usr/bin"
    assert listing(home) == [".config", ".config/pip", ".config/pip/pip.conf", ".npmrc"]


def test_env_keeps_what_the_user_set(tmp_path: Path) -> None:
    base = {
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "NPM_CONFIG_CACHE": str(tmp_path / "npm-cache"),
        "PIP_CONFIG_FILE": os.devnull,
    }
    env = install_env(tmp_path / "tools", base)
    assert "npm_config_cache" not in env and env["NPM_CONFIG_CACHE"] == base["NPM_CONFIG_CACHE"]
    assert env["PIP_CACHE_DIR"] == str(tmp_path / "xdg-cache" / "pip")
    assert env["PIP_CONFIG_FILE"] == os.devnull
    assert "npm_config_userconfig" not in env  # no ~/.npmrc to hand over
    assert env["XDG_CACHE_HOME"] == str(scratch_home(tmp_path / "tools").resolve() / ".cache")


def test_a_cache_named_in_npmrc_is_left_to_npm(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".npmrc").write_text("cache = /somewhere/else\n", encoding="utf-8")
    env = install_env(tmp_path / "tools", {"HOME": str(home)})
    assert "npm_config_cache" not in env
    assert env["npm_config_userconfig"] == str(home / ".npmrc")


@pytest.mark.clients
def test_real_npm_install_leaves_a_decoy_home_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """opencode-ai's postinstall writes its folders into the scratch home, not into HOME.

    The caches are set to the user's usual ones (warm, so the test stays quick); the decoy
    home must then gain nothing at all, while the scratch home shows the script did run.
    """
    real_home = Path.home()
    targets = tmp_path / "targets"
    targets.mkdir()
    shutil.copy(TARGETS_DIR / "opencode.yaml", targets / "opencode.yaml")
    decoy, tools = tmp_path / "decoy-home", tmp_path / "tools"
    decoy.mkdir()
    monkeypatch.setenv("HOME", str(decoy))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("npm_config_cache", str(real_home / ".npm"))
    monkeypatch.setenv("PIP_CACHE_DIR", str(real_home / ".cache" / "pip"))
    if (real_home / ".npmrc").is_file():
        monkeypatch.setenv("npm_config_userconfig", str(real_home / ".npmrc"))

    lock_tools(targets, tools)  # npm install: resolves, runs the postinstall
    shutil.rmtree(tools / "node_modules")
    report = install_tools(targets, tools)  # npm ci from that lock: runs it again
    assert report.steps == ["npm: installed from package-lock.json"]
    [status] = tool_status(targets, tools)
    assert status.ok, status

    assert listing(decoy) == []
    scratch = scratch_home(tools)
    made = {p for p in listing(scratch) if p.endswith("/opencode")}
    # The postinstall really ran under the scratch home (else this test proves nothing).
    assert made, f"opencode's postinstall left nothing in {scratch}: {listing(scratch)}"
    assert made <= {
        ".config/opencode",
        ".local/share/opencode",
        ".local/state/opencode",
        ".cache/opencode",
    }
