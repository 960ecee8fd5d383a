"""A stage package's public names, each imported from its module when first used (PEP 562).

A stage's ``__init__`` re-exports the few names other stages use. Importing them all at once
made ``import compare.site`` (and so ``mcp-compare --help``, which mounts every stage's
commands) pay for the whole stage: the matrix export, the renderer, GitPython, pydantic, the
models generator. A package keeps its re-exports as plain imports under ``if TYPE_CHECKING:``
(so the type checker, readers and the import-graph test see them as ever) and hands the rest
to :func:`exports`, which reads those same import statements from the package's source and
imports a name's module on the first ``package.name`` or ``from package import name``. The
list of names is written once, in the imports; nothing here can drift from it.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def declared(source: str, package: str) -> dict[str, tuple[str, str]]:
    """``name -> (module, attribute)`` for every ``from … import …`` under a top-level
    ``if TYPE_CHECKING:`` of ``source`` (the ``__init__`` of ``package``)."""
    table: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom):
                continue
            module = statement.module or ""
            if statement.level:
                anchor = package.split(".")[: len(package.split(".")) - (statement.level - 1)]
                module = ".".join([*anchor, module] if module else anchor)
            for alias in statement.names:
                table[alias.asname or alias.name] = (module, alias.name)
    return table


def exports(package: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: each name its ``if
    TYPE_CHECKING:`` block imports is imported from its module on first use, then kept in
    the package like an eager import would keep it."""
    table: dict[str, tuple[str, str]] | None = None

    def names() -> dict[str, tuple[str, str]]:
        nonlocal table
        if table is None:
            init = Path(str(sys.modules[package].__file__))
            table = declared(init.read_text(encoding="utf-8"), package)
        return table

    def __getattr__(name: str) -> Any:
        found = names().get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(found[0]), found[1])
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names()})

    return __getattr__, __dir__
