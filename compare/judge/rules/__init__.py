"""Judge rules: each reads a transcript and names one outcome; the scenario YAML grades it.

A rule returns an outcome name, what it observed and the transcript lines that show it. It
never decides pass or fail itself — that lives in the scenario file beside the spec
references, so a reviewer can see and change a grading without reading code.

One module per responsibility: the cell's context and the registry with its shared gates
(``_context``, ``_registry``, private), then one public module per kind of exchange — the
generic rules a check parameterises (``generic``: request answered, result valid, capability
declared, notification sent), the handshake, roots/list, notifications, 2026-07-28
multi-round-trip requests, servers, their enforcement of roots, proxies, the wire and its
hygiene. The rule modules are found, not listed: every public module of this package is
imported here (``pkgutil``), and each ``@rule`` in it adds to ``RULES``, so a new module of
rules needs no edit here. A module that fails to import stops the judge with its name.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType

from compare._errors import CompareError
from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, RULES, Outcome, Param, Rule, rule


def discover(paths: Iterable[str], package: str) -> tuple[ModuleType, ...]:
    """Import every public module of ``package`` (found on ``paths``), in name order."""
    found = []
    for info in sorted(pkgutil.iter_modules(list(paths)), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        name = f"{package}.{info.name}"
        try:
            found.append(importlib.import_module(name))
        except CompareError:
            raise  # already a clear message (e.g. a rule registered twice)
        except Exception as err:
            raise CompareError(
                f"judge rule module {name} failed to import: {type(err).__name__}: {err}",
                "every public module of the rules package is imported for its @rule"
                f" registrations: fix {info.name}.py (the error above is raised in it)",
            ) from err
    return tuple(found)


#: The rule modules, imported for their registrations (each ``@rule`` adds to ``RULES``).
MODULES = discover(__path__, __name__)

__all__ = ["EARLY", "MODULES", "RULES", "Context", "Outcome", "Param", "Rule", "rule"]
