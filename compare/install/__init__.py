"""Installs the real clients named by the target files into the project-local tools folder.

npm packages share ``tools/node_modules`` (from the committed ``package-lock.json``); each PyPI
client gets its own venv at ``tools/venvs/<target>/`` (from ``tools/requirements/``; targets with
the same closure link to one shared venv, see ``_pypi``); each
Go client's host program is built into ``tools/hosts/<target>/`` (from its committed
``go.mod``/``go.sum``, see ``_go``), and a crate that is itself the program (a server) goes in
with ``cargo install --locked`` into ``tools/crates/<crate>/`` (see ``_cargo``).
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.install._pins import Pin, load_pins
    from compare.install._pypi import venv_python
    from compare.install._tools import (
        InstallReport,
        ToolStatus,
        check_status,
        install_tools,
        lock_tools,
        tool_status,
    )

__all__ = [
    "InstallReport",
    "Pin",
    "ToolStatus",
    "check_status",
    "install_tools",
    "load_pins",
    "lock_tools",
    "tool_status",
    "venv_python",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
