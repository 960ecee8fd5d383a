"""A command imports what it uses: ``mcp-compare --help`` mounts every stage's commands
without importing any stage's implementation, and a stage package imports a module of its
own only when one of its names is used (``compare._lazy``).

Each check runs in a fresh interpreter, since this test process has long imported
everything. What is measured is which modules load, never how long they take (``bench/cli.py``
times the command line).
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare import _lazy
from compare._paths import PROJECT_ROOT

#: The stage packages whose public names are imported on first use.
LAZY = ("cite", "diff", "install", "models", "pin", "pipeline", "rows", "site")
#: Libraries no stage's command line needs until a command runs.
HEAVY = ("git", "pydantic", "jsonschema", "ruamel", "jinja2", "datamodel_code_generator", "mkdocs")


def _modules_after(code: str) -> list[str]:
    """The modules loaded once ``code`` has run in a fresh interpreter on this checkout."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def _allowed_for_help(module: str) -> bool:
    """A module ``--help`` may load: the top-level command line, the shared helpers, a stage
    package (its ``__init__``, which imports nothing of the stage) and a stage's command
    module."""
    parts = module.split(".")
    if parts[0] != "compare" or len(parts) == 1:
        return True
    if len(parts) == 2:
        return True  # compare.cli, compare._console, compare.site (a package), …
    return parts[-1] == "cli"


def test_help_mounts_every_command_without_importing_a_stage() -> None:
    loaded = _modules_after(
        "import sys\nsys.argv = ['mcp-compare', '--help']\n"
        "from compare import cli\ncli._register_stages()\n"
        "names = {c.name for c in cli.app.registered_commands}"
        " | {g.name for g in cli.app.registered_groups}\n"
        "assert {'pin', 'models', 'diff', 'tools', 'run', 'merge', 'peer', 'rows', 'cite',"
        " 'render', 'site', 'export', 'compare'} <= names, names"
    )
    assert [m for m in loaded if not _allowed_for_help(m)] == []
    assert [m for m in loaded if m.split(".")[0] in HEAVY] == []
    # Plain help: typer's boxed one would load the Markdown parser on every --help.
    assert [m for m in loaded if m in ("typer.rich_utils", "rich.markdown")] == []
    # Every stage's command module was mounted.
    assert {f"compare.{s}.cli" for s in (*LAZY, "exchange")} <= set(loaded)


def test_a_stage_package_imports_a_module_of_its_own_only_when_a_name_is_used() -> None:
    loaded = _modules_after(
        "import compare.site, compare.pin\n"
        "import sys\nbefore = sorted(m for m in sys.modules if m.startswith('compare.site.'))\n"
        "assert before == [], before\n"
        "from compare.site import esc\nassert esc('<') != '<'"
    )
    assert "compare.site._escape" in loaded
    assert "compare.site._render" not in loaded  # nothing else of the stage came with it
    assert not [m for m in loaded if m.startswith("compare.pin.")]


@pytest.mark.parametrize("stage", LAZY)
def test_each_public_name_of_a_stage_is_the_one_its_module_defines(stage: str) -> None:
    package = importlib.import_module(f"compare.{stage}")
    source = Path(str(package.__file__)).read_text(encoding="utf-8")
    declared = _lazy.declared(source, package.__name__)
    # The names the package imports for the type checker are exactly its public ones.
    assert sorted(declared) == sorted(package.__all__)
    for name, (module, attribute) in declared.items():
        assert getattr(package, name) is getattr(importlib.import_module(module), attribute)
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        package.not_a_name  # noqa: B018 - the attribute access is the test


def test_declared_reads_type_checking_imports_relative_ones_included() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import typing\n"
        "if TYPE_CHECKING:\n"
        "    from compare.x._a import one, two as deux\n"
        "    from ._b import three\n"
        "    from . import _c\n"
        "if typing.TYPE_CHECKING:\n"
        "    from compare.y import four\n"
        "if not TYPE_CHECKING:\n"
        "    from compare.z import ignored\n"
    )
    assert _lazy.declared(source, "compare.x") == {
        "one": ("compare.x._a", "one"),
        "deux": ("compare.x._a", "two"),
        "three": ("compare.x._b", "three"),
        "_c": ("compare.x", "_c"),
        "four": ("compare.y", "four"),
    }


def test_what_a_cell_reads_before_its_client_starts_leaves_pydantic_for_later() -> None:
    # `run` reads the scenario's checks (the schema index of the revision among them) before
    # the client starts; pydantic and the models load on a thread while the client runs
    # (compare.judge._validate.warm), so they must not be needed before.
    loaded = _modules_after(
        "from compare.play._run import select\n"
        "cells, _, _ = select(['ts-sdk'], ['handshake'], ['2025-11-25'], 'roots')\n"
        "assert len(cells) == 1, cells"
    )
    assert "compare.play._run" in loaded and "compare.models._load" in loaded
    assert [m for m in loaded if m.split(".")[0] == "pydantic"] == []
