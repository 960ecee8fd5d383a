"""What the rows stage reads from the stages before it: targets, scenarios, the schema diff.

Targets and scenarios are read by the exchange's own loaders (``load_targets``,
``load_scenarios``), never by opening their YAML here, so both stages see the same files.

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
from compare.diff import diff_shape
from compare.exchange._scenarios import common_checks, load_scenarios
from compare.exchange._targets import load_targets
from compare.play._cells import pinned_versions
from compare.rows._derive import write_operations
from compare.rows._implementations import Registry, load_registry

#: The exchange stage's folder (its data files are read only through its loaders above).
EXCHANGE_DIR = PROJECT_ROOT / "compare" / "exchange"


@dataclass
class Known:
    """Names a row may refer to; ``missing`` holds why a list could not be read."""

    targets: dict[str, dict[str, Any]] = field(default_factory=dict)
    scenarios: dict[str, set[str]] = field(default_factory=dict)
    diff: dict[str, Any] | None = None
    missing: dict[str, str] = field(default_factory=dict)
    #: Target id -> pinned version (``compare.play._cells.pinned_versions``): which cells are
    #: current. Empty means the newest version found counts, as the exchange reader does.
    pinned: dict[str, str] = field(default_factory=dict)
    #: Scenario id -> check id -> the grades its outcomes can give (common checks included),
    #: so a lint can tell a row whose checks can never fail.
    grades: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    #: Scenario id -> check id -> the outcome names the judge can give it, so a fact the row
    #: prose renders from the cells (``_facts``) can only name an outcome that exists.
    outcomes: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    #: The implementations registry (cited columns, declared once for every area); None
    #: until :func:`gather` reads it (an unreadable registry is an error, not a reason).
    registry: Registry | None = None
    #: Scenario id -> the probe operations its data marks ``writes`` (derived rows tell
    #: read-like probes from writes by them).
    write_ops: dict[str, set[str]] = field(default_factory=dict)

    def implementations(self) -> Registry:
        """The registry :func:`gather` read, or the default file's when built by hand."""
        return self.registry if self.registry is not None else load_registry()


def load_target_names(folder: Path | None = None) -> dict[str, dict[str, Any]]:
    """Target id → its file's content, read and validated by the exchange's own loader; the
    ``command`` and ``server-command`` templates (a user's own client or server, not columns
    of the matrix) are left out."""
    return {t.id: t.raw for t in load_targets(folder) if t.kind != "command" and not t.is_template}


def load_scenario_checks(folder: Path | None = None) -> dict[str, set[str]]:
    """Scenario id → its check ids, the common checks of its side (``_wire*.yaml``) among them,
    as in a cell's verdict, so a row can ask how clients keep the base protocol in a given
    scenario (the same reading as :func:`load_check_grades`)."""
    return {sid: set(grades) for sid, grades in load_check_grades(folder).items()}


def load_check_grades(folder: Path | None = None) -> dict[str, dict[str, set[str]]]:
    """Scenario id → check id → the verdicts its outcomes can give, from the exchange's own
    loader; a scenario's common checks (``_wire*.yaml``) are among its checks, as in a cell."""
    out: dict[str, dict[str, set[str]]] = {}
    for scenario in load_scenarios(folder):
        checks = [*scenario.checks, *common_checks(scenario.side)]
        out[scenario.id] = {
            c.id: {str(o.get("verdict")) for o in c.outcomes.values()} for c in checks
        }
    return out


def load_check_outcomes(folder: Path | None = None) -> dict[str, dict[str, set[str]]]:
    """Scenario id → check id → the outcome names it grades (common checks included)."""
    return {
        scenario.id: {
            c.id: set(c.outcomes) for c in [*scenario.checks, *common_checks(scenario.side)]
        }
        for scenario in load_scenarios(folder)
    }


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
    if not isinstance(data, dict):
        raise CompareError(f"{where} is not a JSON object", "re-run `mcp-compare diff`")
    wrong = diff_shape(data)
    if wrong:
        raise CompareError(f"{where} has an unexpected shape: {wrong}", "re-run `mcp-compare diff`")
    return data


def gather(
    targets: Path | None = None, scenarios: Path | None = None, diff: Path | None = None
) -> Known:
    """Read everything a lint or a computation refers to; absences become reasons."""
    known = Known()
    try:  # the exchange's own reader, so rows and site agree on what is current
        found = load_targets(targets)
    except CompareError as err:
        known.missing["targets"] = known.missing["pinned"] = err.message
    else:
        known.targets = {t.id: t.raw for t in found if t.kind != "command" and not t.is_template}
        known.pinned = pinned_versions(found)
    if not known.targets and "targets" not in known.missing:
        known.missing["targets"] = "no target files in compare/exchange/targets/ yet"
    try:
        known.scenarios = load_scenario_checks(scenarios)
        known.grades = load_check_grades(scenarios)
        known.outcomes = load_check_outcomes(scenarios)
        known.write_ops = write_operations(load_scenarios(scenarios))
    except CompareError as err:
        known.missing["scenarios"] = err.message
    if not known.scenarios and "scenarios" not in known.missing:
        known.missing["scenarios"] = "no scenario files in compare/exchange/scenarios/ yet"
    try:
        known.diff = load_diff(diff)
    except CompareError as err:
        known.missing["diff"] = err.message
    known.registry = load_registry()
    return known
