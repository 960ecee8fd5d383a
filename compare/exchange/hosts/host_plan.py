"""Reading the host plan, for the Python host programs (``py_sdk_host.py``, ``fastmcp_host.py``).

The contract is ``README.md`` beside this file. Both hosts run in their target's own venv
(``tools/venvs/<id>``), which has ``jsonschema`` because the SDK itself depends on it; the
plan is checked against ``host-plan.schema.json`` here, the same file the harness checks the
plan it writes against, so the shape is said once. Standard library otherwise: it must not
change what the SDK puts on the wire.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

SCHEMA = Path(__file__).resolve().parent / "host-plan.schema.json"
#: The contract's exit code for a malformed plan or command line. (Exit 3, a feature the SDK
#: lacks, is never needed here: both Python SDKs register roots, elicitation and sampling.)
BAD_PLAN = 2


def refuse(host: str, message: str) -> NoReturn:
    """A malformed plan or command line: one line on stderr, exit 2."""
    print(f"{host}: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(BAD_PLAN)


def read_plan(argv: list[str], host: str) -> tuple[dict[str, Any], list[str]]:
    """``--plan PATH -- SERVER_COMMAND...`` -> (the checked plan, the server's command)."""
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        refuse(host, 'usage: --plan PATH -- SERVER_COMMAND... (missing "-- SERVER_COMMAND...")')
    cut = argv.index("--")
    own, server = argv[:cut], argv[cut + 1 :]
    if len(own) != 2 or own[0] != "--plan":
        refuse(host, f"usage: --plan PATH -- SERVER_COMMAND... (got {' '.join(own) or 'nothing'})")
    try:
        plan = json.loads(Path(own[1]).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        refuse(host, f"cannot read the plan {own[1]}: {err}")
    import jsonschema  # the SDK's own dependency (see the module docstring)

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(plan),
        key=lambda e: list(map(str, e.absolute_path)),
    )
    if errors:
        where = ".".join(str(p) for p in errors[0].absolute_path) or "(top level)"
        refuse(host, f"malformed plan {own[1]}: key {where}: {errors[0].message}")
    return plan, server


def options(plan: dict[str, Any], host: str, known: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """The plan's ``options``, each a name this host knows with one of its values."""
    out: dict[str, str] = {}
    for name, value in plan["options"].items():
        if name not in known or value not in known[name]:
            refuse(host, f"unknown option {name}={value!r} (known: {known or 'none'})")
        out[name] = value
    return out


@dataclass
class Changes:
    """The plan's ``roots.changes``: each fires once, when ``<control>/<signal>`` appears."""

    control: Path
    pending: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, plan: dict[str, Any]) -> Changes:
        roots = plan["features"].get("roots") or {}
        return cls(Path(plan["control"]), list(roots.get("changes", [])))

    def due(self) -> list[dict[str, Any]]:
        """The changes whose signal file has appeared since the last call (polled ~50 ms)."""
        fired = [c for c in self.pending if (self.control / c["signal"]).exists()]
        self.pending = [c for c in self.pending if c not in fired]
        return fired


def add_folders(change: dict[str, Any], as_root: Callable[[Path], Any]) -> list[Any]:
    """Create each folder of one change (mkdir -p) and turn it into a root with ``as_root``."""
    added = []
    for folder in change["add_folders"]:
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        added.append(as_root(path))
    return added
