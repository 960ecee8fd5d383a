"""What the rows stage reads from the stages before it: targets, scenarios, the schema diff.

Each reader tolerates the other stage not having run yet by saying so plainly (an empty
answer plus a reason), because lints must report "cannot check X, because …" rather than
pass silently or crash.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT, build_dir
from compare._yaml import load_yaml
from compare.exchange import load_targets, pinned_versions

EXCHANGE_DIR = PROJECT_ROOT / "compare" / "exchange"


@dataclass
class Known:
    """Names a row may refer to; ``missing`` holds why a list could not be read."""

    targets: dict[str, dict[str, Any]] = field(default_factory=dict)
    scenarios: dict[str, set[str]] = field(default_factory=dict)
    diff: dict[str, Any] | None = None
    missing: dict[str, str] = field(default_factory=dict)
    #: Target id -> pinned version (``compare.exchange.pinned_versions``): which cells are
    #: current. Empty means the newest version found counts, as the exchange reader does.
    pinned: dict[str, str] = field(default_factory=dict)


def _yaml_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load_target_names(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """Target id → its file's content (the id is the ``id`` field, else the file name)."""
    out: dict[str, dict[str, Any]] = {}
    for path in _yaml_files(folder or EXCHANGE_DIR / "targets"):
        data = load_yaml(path)
        if not isinstance(data, dict):
            raise CompareError(f"{path} is not a mapping", "a target file is a YAML mapping")
        if data.get("kind") == "command":
            continue  # the template for a user's own client, not a column of the matrix
        out[str(data.get("id") or data.get("name") or path.stem)] = data
    return out


def _checks(node: Any) -> set[str]:
    """Every check id in a scenario file, wherever its ``checks:`` lists sit."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "checks" and isinstance(value, list):
                found |= {str(c["id"]) for c in value if isinstance(c, dict) and "id" in c}
            found |= _checks(value)
    elif isinstance(node, list):
        for value in node:
            found |= _checks(value)
    return found


def load_scenario_checks(folder: Path | None = None) -> dict[str, set[str]]:
    """Scenario id → its check ids."""
    out: dict[str, set[str]] = {}
    for path in _yaml_files(folder or EXCHANGE_DIR / "scenarios"):
        data = load_yaml(path)
        if not isinstance(data, dict):
            raise CompareError(f"{path} is not a mapping", "a scenario file is a YAML mapping")
        out[str(data.get("id") or data.get("name") or path.stem)] = _checks(data)
    return out


def load_diff(path: Path | None = None) -> dict[str, Any]:
    """``build/diff.json`` as written by ``mcp-compare diff``; checked for the fields we use."""
    where = path or build_dir() / "diff.json"
    try:
        data = json.loads(where.read_text("utf-8"))
    except FileNotFoundError:
        raise CompareError(f"{where} does not exist", "run `mcp-compare diff` first") from None
    except (OSError, ValueError) as err:
        raise CompareError(
            f"{where} is not readable JSON: {err}", "re-run `mcp-compare diff`"
        ) from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("items"), dict)
        or not isinstance(data.get("revisions"), list)
    ):
        raise CompareError(f"{where} lacks `items`/`revisions`", "re-run `mcp-compare diff`")
    return data


def gather(
    targets: Path | None = None, scenarios: Path | None = None, diff: Path | None = None
) -> Known:
    """Read everything a lint or a computation refers to; absences become reasons."""
    known = Known()
    try:
        known.targets = load_target_names(targets)
    except CompareError as err:
        known.missing["targets"] = err.message
    if not known.targets and "targets" not in known.missing:
        known.missing["targets"] = "no target files in compare/exchange/targets/ yet"
    try:  # validated by the exchange's own reader, so rows and site agree on what is current
        known.pinned = pinned_versions(load_targets(targets))
    except CompareError as err:
        known.missing["pinned"] = err.message
    try:
        known.scenarios = load_scenario_checks(scenarios)
    except CompareError as err:
        known.missing["scenarios"] = err.message
    if not known.scenarios and "scenarios" not in known.missing:
        known.missing["scenarios"] = "no scenario files in compare/exchange/scenarios/ yet"
    try:
        known.diff = load_diff(diff)
    except CompareError as err:
        known.missing["diff"] = err.message
    return known
