"""Cells: target × variant × scenario × revision, where each one's results live, and reading
them back for the later stages.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare.exchange._scenarios import Scenario
from compare.exchange._targets import COMMAND_SLOT, Target

#: Bumped when the harness changes how a cell is played; invalidates cached cells.
HARNESS_VERSION = "1"
HERE = Path(__file__).resolve().parent
_PEER_SOURCE = HERE / "peer.py"
#: The code that turns a transcript into checks: a change here means re-judging, not re-running.
JUDGE_SOURCES = (
    "_judge.py",
    "_rules.py",
    "_uri.py",
    "_validate.py",
    "_transcript.py",
    "_scenarios.py",
)
#: Scenario keys that only grade (checks) or describe; every other key shapes the peer's play.
_JUDGE_ONLY_KEYS = frozenset({"checks", "title", "description"})


def harness_version() -> str:
    """The version plus the peer's source hash: a changed peer plays differently."""
    peer = hashlib.sha256(_PEER_SOURCE.read_bytes()).hexdigest()[:16]
    return f"{HARNESS_VERSION}+peer.{peer}"


def judge_version() -> str:
    """sha256 over the judging code, so an edited rule re-judges every cached cell."""
    digest = hashlib.sha256()
    for name in JUDGE_SOURCES:
        digest.update(name.encode() + b"\0" + (HERE / name).read_bytes())
    return digest.hexdigest()


def _digest(material: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


DEFAULT_VARIANT = "default"


@dataclass(frozen=True)
class Cell:
    target: Target
    variant: str
    scenario: Scenario
    revision: str

    @property
    def label(self) -> str:
        variant = "" if self.variant == DEFAULT_VARIANT else f"~{self.variant}"
        return f"{self.target.id}{variant} {self.scenario.id} {self.revision}"

    def folder(self, results: Path) -> Path:
        leaf = (
            self.revision if self.variant == DEFAULT_VARIANT else f"{self.revision}~{self.variant}"
        )
        return results / self.target.id / self.target.version / self.scenario.id / leaf

    def play_key(self) -> str:
        """What the client and the peer did: target entry, peer, harness and scenario steps.

        A change here re-runs the client; a change only in the judge does not (see key).
        """
        steps = {k: v for k, v in self.scenario.raw.items() if k not in _JUDGE_ONLY_KEYS}
        return _digest(
            {
                "target": self.target.entry_hash,
                "harness": harness_version(),
                "steps": steps,
                "revision": self.revision,
                "variant": self.variant,
            }
        )

    def judge_key(self, spec_commit: str) -> str:
        """What judged it: spec commit (the models), scenario file with the common checks,
        and the judging code."""
        return _digest(
            {
                "spec_commit": spec_commit,
                "scenario": self.scenario.file_hash,
                "judge": judge_version(),
            }
        )

    def key(self, spec_commit: str) -> str:
        """What produced this cell: a changed input means the cached verdict is stale."""
        return _digest({"play": self.play_key(), "judge": self.judge_key(spec_commit)})

    def not_run_reason(self) -> str | None:
        """Why this cell cannot be played, phrased "not run, because …"; None when it can."""
        t, s = self.target, self.scenario
        if t.kind == "cited":
            return "not run, because this implementation is cited, not run (no runnable package)"
        if not s.plays(self.revision):
            until = s.revisions.get("until") or "the latest"
            return f"not run, because {s.id} applies to revisions {s.revisions['from']} … {until}"
        if "can_change_roots" in s.requires and not t.can_change_roots:
            return f"not run, because {t.name} cannot add a root while connected"
        if s.id in t.not_run:
            reason = " ".join(t.not_run[s.id].split())
            return reason if reason.startswith("not run") else f"not run, because {reason}"
        return None


def plan_cells(
    targets: list[Target],
    scenarios: list[Scenario],
    revisions: list[str],
    variant: str | None = None,
) -> list[Cell]:
    """Every cell of the selection; a scenario limited to some variants skips the others.

    A target without variants plays every scenario once (variant ``default``).
    """
    cells: list[Cell] = []
    for target in targets:
        if target.kind == "command" and target.argv == [COMMAND_SLOT]:
            continue  # the generic template needs --command
        for name in target.variant_names():
            if variant is not None and name != variant and name != DEFAULT_VARIANT:
                continue
            for scenario in scenarios:
                if target.variants and scenario.variants and name not in scenario.variants:
                    continue
                for revision in revisions:
                    cells.append(Cell(target, name, scenario, revision))
    return cells


@dataclass(frozen=True)
class CellResult:
    """One ``verdict.json`` as read back; ``current`` marks the newest version of its target."""

    path: Path
    verdict: dict[str, Any]
    current: bool

    @property
    def target(self) -> str:
        return str(self.verdict.get("target"))

    @property
    def version(self) -> str:
        return str(self.verdict.get("target_version"))


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.+-]", version))


def load_cells(results: Path, pinned: dict[str, str] | None = None) -> list[CellResult]:
    """Every readable ``verdict.json`` under ``results``; damaged ones are skipped, not raised.

    Older versions' folders stay as history. ``current`` marks, per target, the version in
    ``pinned`` (target id -> pinned version, e.g. from ``load_targets()``) when given, else
    the newest version found — a pinned downgrade must not leave the newer cells current.
    """
    found: list[tuple[Path, dict[str, Any]]] = []
    for path in sorted(results.glob("*/*/*/*/verdict.json")):
        if any(part.startswith(".") or ".old-" in part for part in path.parts[-5:-1]):
            continue  # a staging or superseded folder left by an interrupted run
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(value, dict) and value.get("format") == 1:
            found.append((path, value))
    newest: dict[str, str] = {}
    for _, v in found:
        target, version = str(v.get("target")), str(v.get("target_version"))
        if target not in newest or _version_key(version) > _version_key(newest[target]):
            newest[target] = version
    newest.update(pinned or {})
    return [
        CellResult(p, v, newest.get(str(v.get("target"))) == str(v.get("target_version")))
        for p, v in found
    ]
