"""A client that is missing or does not start fails the suite with a message saying which one.

These inject the faults with stand-in files (the real clients cannot be made to fail on
demand); the real install and start are what ``cli_tools`` does for every other test here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import CLI_BINS, _require_clients


def _bin(tools: Path, relative: str, body: str) -> None:
    path = tools / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n", encoding="utf-8")
    path.chmod(0o755)


def test_a_missing_client_fails_naming_it(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    with pytest.raises(pytest.fail.Exception, match=r"claude-code: .*/\.bin/claude is missing"):
        _require_clients(tools, tmp_path)


def test_a_client_that_does_not_start_fails_with_its_output(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    for relative in set(CLI_BINS.values()):
        _bin(tools, relative, "echo ok")
    _bin(tools, CLI_BINS["codex"], "echo 'cannot load the native binary' >&2; exit 3")
    with pytest.raises(
        pytest.fail.Exception, match=r"codex: `codex --version` exited 3: cannot load the native"
    ):
        _require_clients(tools, tmp_path)


def test_started_clients_pass_the_check(tmp_path: Path) -> None:
    """The control case: the check itself does not fail on clients that start."""
    tools = tmp_path / "tools"
    for relative in set(CLI_BINS.values()):
        _bin(tools, relative, "echo 1.0.0")
    _require_clients(tools, tmp_path)
