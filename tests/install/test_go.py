"""The Go builder: real builds of a copy of a shipped host, keyed by its lock, offline when warm.

The builds run the machine's real go command on a copy of ``compare/hosts/mcp-go``
(the smaller of the two Go hosts) in a temporary hosts folder, into a temporary tools folder,
so nothing shipped or installed is touched; the module and build caches are the user's, as in
``tools install``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.install import _go
from compare.install._pins import Pin

SHIPPED = _go.HOSTS / "mcp-go"
PIN = Pin("mcp-go", "go", "github.com/mark3labs/mcp-go", "v1.2.1")

GO_MOD = """module example.com/host

go 1.25.0

require github.com/mark3labs/mcp-go v1.2.1 // the library under test

require (
\tgithub.com/google/uuid v1.6.0 // indirect
\tgolang.org/x/text v0.14.0 // indirect
)
"""


def test_required_reads_single_and_block_requires() -> None:
    assert _go.required(GO_MOD) == {
        "github.com/mark3labs/mcp-go": "v1.2.1",
        "github.com/google/uuid": "v1.6.0",
        "golang.org/x/text": "v0.14.0",
    }


def test_each_shipped_go_host_requires_exactly_its_targets_pin() -> None:
    from compare.install import load_pins

    pins = [p for p in load_pins() if p.registry == "go"]
    assert {p.target for p in pins} >= {"go-sdk", "mcp-go"}
    for pin in pins:
        text = (_go.source_dir(pin.target) / "go.mod").read_text(encoding="utf-8")
        assert _go.required(text)[pin.name] == pin.version
        assert (_go.source_dir(pin.target) / "go.sum").is_file()
        assert pin.spec == f"{pin.name}@{pin.version}"


@pytest.fixture
def hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A hosts folder holding a copy of the shipped mcp-go host, used instead of the shipped one."""
    folder = tmp_path / "hosts"
    shutil.copytree(SHIPPED, folder / "mcp-go")
    monkeypatch.setattr(_go, "HOSTS", folder)
    return folder


def test_a_go_mod_that_does_not_require_the_pin_is_refused(hosts: Path, tmp_path: Path) -> None:
    with pytest.raises(CompareError, match=re.escape("the target pins v1.0.0")) as err:
        _go.install(Pin("mcp-go", "go", PIN.name, "v1.0.0"), tmp_path / "tools")
    assert err.value.hint and "tools lock" in err.value.hint


def test_a_missing_go_sum_says_to_lock(hosts: Path, tmp_path: Path) -> None:
    (hosts / "mcp-go" / "go.sum").unlink()
    with pytest.raises(CompareError, match=re.escape("go.sum is missing")) as err:
        _go.install(PIN, tmp_path / "tools")
    assert err.value.hint and "tools lock" in err.value.hint


def test_not_built_is_not_installed(tmp_path: Path) -> None:
    assert _go.installed_version(tmp_path / "tools", "mcp-go", PIN.name) is None


def test_a_failing_build_is_a_clear_error(hosts: Path, tmp_path: Path) -> None:
    main = hosts / "mcp-go" / "main.go"
    main.write_text(main.read_text(encoding="utf-8") + "\nfunc broken( {\n", encoding="utf-8")
    with pytest.raises(CompareError, match="mcp-go: go build failed"):
        _go.install(PIN, tmp_path / "tools")


@pytest.mark.clients
def test_build_then_skip_then_rebuild_when_a_source_changes(
    hosts: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "tools"
    first = _go.install(PIN, tools)
    assert first.startswith("mcp-go: built github.com/mark3labs/mcp-go@v1.2.1")
    host = _go.binary(tools, "mcp-go")
    done = subprocess.run([str(host)], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode != 0 and "SERVER_COMMAND" in done.stderr  # it is our host
    record = json.loads((tools / "hosts" / "mcp-go" / "build.json").read_text(encoding="utf-8"))
    assert (record["module"], record["version"]) == (PIN.name, PIN.version)
    assert Path(record["dir"], "client", "roots.go").is_file()  # the module cache folder
    assert _go.installed_version(tools, "mcp-go", PIN.name) == "v1.2.1"

    # Same lock, same sources: nothing to do, even with the proxy switched off.
    monkeypatch.setenv("GOPROXY", "off")
    assert _go.install(PIN, tools) == (
        "mcp-go: already installed (host built with github.com/mark3labs/mcp-go@v1.2.1)"
    )

    # A changed host source changes the stamp: rebuilt, still offline (the caches are warm).
    main = hosts / "mcp-go" / "main.go"
    main.write_text(main.read_text(encoding="utf-8") + "\n// changed\n", encoding="utf-8")
    assert _go.install(PIN, tools).startswith("mcp-go: built")
    assert (
        json.loads((tools / "hosts" / "mcp-go" / "build.json").read_text())["stamp"]
        != (record["stamp"])
    )


@pytest.mark.clients
def test_lock_rewrites_go_sum_that_install_then_accepts(hosts: Path, tmp_path: Path) -> None:
    source = hosts / "mcp-go"
    wanted = (source / "go.sum").read_text(encoding="utf-8")
    (source / "go.sum").unlink()
    step = _go.lock(PIN, tmp_path / "tools")
    assert step.startswith("mcp-go: locked github.com/mark3labs/mcp-go@v1.2.1")
    assert (source / "go.sum").read_text(encoding="utf-8") == wanted
    assert _go.install(PIN, tmp_path / "tools").startswith("mcp-go: built")
