"""The scenarios' spec references as citation strings, each with its place.

A check's ``refs`` entry keeps the location (``cite: path:line``) apart from the words it
rests on (``quote:``); joined, they are the house citation form ``path:line “quote”`` that
the rows' citations use, so one verifier (``compare.cite``) checks both. This stage owns the
scenario files, so it is the one that reads them — through the same loader the judge uses, so
a ref is read exactly as a verdict shows it — and hands each ref over with where it sits
(scenario, check, index), for ``build/citations.json`` and for a reader who must edit it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compare.exchange._scenarios import COMMON_FILES, SCENARIOS_DIR, common_checks, load_scenarios


@dataclass(frozen=True)
class ScenarioRef:
    """One ``refs`` entry of one check: the file, scenario, check and index it sits at."""

    file: Path
    scenario: str
    check: str
    index: int
    cite: str
    quote: str | None

    @property
    def ref(self) -> str:
        """The citation string: ``path:line “quote”`` (the bare location without a quote)."""
        return self.cite.strip() if self.quote is None else f"{self.cite.strip()} “{self.quote}”"

    @property
    def place(self) -> str:
        """Where to find it, in the words a reader searches the file with."""
        return f"scenario {self.scenario}, check {self.check}, refs[{self.index}] ({self.cite})"


def scenario_refs(directory: Path | None = None) -> list[ScenarioRef]:
    """Every ref of every scenario in ``directory`` (default: the shipped scenarios).

    The common wire checks (``_wire.yaml``, ``_wire-server.yaml``) belong to the shipped
    scenarios, so they are included only when the shipped folder is read. A scenario that
    does not load is a ``CompareError`` from the loader, as it is for a run.
    """
    shipped = directory is None or directory.resolve() == SCENARIOS_DIR.resolve()
    found = [(s.path, s.id, c) for s in load_scenarios(directory) for c in s.checks]
    if shipped:
        for side, path in COMMON_FILES.items():
            found += [(path, path.stem, c) for c in common_checks(side)]
    return [
        ScenarioRef(path, sid, check.id, j, str(ref["cite"]), ref.get("quote"))
        for path, sid, check in found
        for j, ref in enumerate(check.refs)
    ]


def scenario_files(directory: Path | None = None) -> list[Path]:
    """The files :func:`scenario_refs` reads for ``directory``: what a record of their
    verified refs depends on (the ``_wire*.yaml`` files only with the shipped folder)."""
    folder = directory or SCENARIOS_DIR
    files = sorted(folder.glob("[!_]*.yaml")) if folder.is_dir() else []
    shipped = folder.resolve() == SCENARIOS_DIR.resolve()
    return [*files, *COMMON_FILES.values()] if shipped else files
