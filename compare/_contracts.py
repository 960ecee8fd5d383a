"""The files one stage writes and another reads, each with the JSON Schema that fixes its shape.

A stage can be rebuilt, re-run or replaced alone only while the files it hands on keep their
shape, and prose about a format drifts from the code that writes it. So every such file is
named here once, with its writer, its readers and its schema (kept beside the module that
writes it); the contract tests validate a real produced file against each schema and show
that a mutated one fails, and the maintainers' pages of the site list this table and publish
the schemas. A new file handed between stages is a new entry here, in the same commit as its
writer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare._paths import PROJECT_ROOT


@dataclass(frozen=True)
class Contract:
    """One file handed between stages (or between our processes within one)."""

    #: A short name, also the published schema's file name (``<name>.schema.json``).
    name: str
    #: Where the file lives, as a reader of the docs would look for it.
    where: str
    #: The stage or command that writes it.
    writer: str
    #: Who reads it back.
    readers: str
    #: The schema, relative to the checkout.
    schema: str
    #: ``json`` (one document), ``jsonl`` (one document per line), ``toml`` or ``yaml``
    #: (parsed, then validated as JSON).
    form: str = "json"
    #: ``data`` for a file maintainers write by hand (targets, scenarios, areas): its schema is
    #: checked by the loader; ``output`` for a file a stage produces.
    kind: str = "output"

    @property
    def schema_path(self) -> Path:
        return PROJECT_ROOT / self.schema

    def load_schema(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.schema_path.read_text(encoding="utf-8"))
        return value

    @property
    def title(self) -> str:
        return str(self.load_schema().get("title") or self.name)

    @property
    def description(self) -> str:
        return str(self.load_schema().get("description") or "")


#: In pipeline order: pin, models, diff, run (play, judge), rows, cite, site, and the tools.
CONTRACTS: tuple[Contract, ...] = (
    Contract(
        "revisions",
        "schemas/revisions.toml",
        "pin add, pin add-file, pin bump",
        "every stage (through compare.pin)",
        "compare/pin/revisions.schema.json",
        form="toml",
        kind="data",
    ),
    Contract(
        "diff",
        "build/diff.json",
        "diff",
        "rows, render",
        "compare/diff/diff.schema.json",
    ),
    Contract(
        "target",
        "compare/exchange/targets/<id>.yaml",
        "maintainers",
        "run (the play), rows, site",
        "compare/exchange/target.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "scenario",
        "compare/exchange/scenarios/<id>.yaml",
        "maintainers",
        "run (the play and the judge), rows, site",
        "compare/exchange/scenario.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "gates",
        "compare/exchange/scenarios/_gates.yaml",
        "maintainers",
        "the scenario loader",
        "compare/exchange/gates.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "operations",
        "compare/exchange/scenarios/_operations.yaml",
        "maintainers",
        "the scenario loader",
        "compare/exchange/operations.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "sentences",
        "compare/exchange/scenarios/_sentences.yaml",
        "maintainers; cite --fix rewrites moved lines",
        "the scenario loader, cite --check",
        "compare/exchange/sentences.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "plan",
        "results/<cell>/plan.json, upstream-plan.json",
        "run (the play), before the implementation starts",
        "the peer, the scripted client, the judge",
        "compare/play/plan.schema.json",
    ),
    Contract(
        "host-plan",
        "results/<cell>/host-plan.json",
        "run (the play), before an SDK host program starts",
        "the SDK host programs (what to declare and how to answer)",
        "compare/hosts/host-plan.schema.json",
    ),
    Contract(
        "host-session",
        "results/<cell>/host-session.jsonl",
        "the SDK host programs (kept in the cell by the play)",
        "the judge (rule host-step; each check says what it read)",
        "compare/hosts/host-session.schema.json",
        form="jsonl",
    ),
    Contract(
        "transcript",
        "results/<cell>/transcript.jsonl",
        "the peer and the scripted client (merged by the play for a proxy cell)",
        "the judge, the site's wire log",
        "compare/peer/transcript.schema.json",
        form="jsonl",
    ),
    Contract(
        "done",
        "results/<cell>/done.json",
        "the peer and the scripted client",
        "the play (ends the implementation), the judge",
        "compare/peer/done.schema.json",
    ),
    Contract(
        "process",
        "results/<cell>/process.json",
        "run (the play)",
        "the judge (a damaged verdict judged again)",
        "compare/play/process.schema.json",
    ),
    Contract(
        "verdict",
        "results/<cell>/verdict.json",
        "run (the judge, sealed by the play)",
        "run's cache, merge, rows, site (through one reader)",
        "compare/judge/verdict.schema.json",
    ),
    Contract(
        "variants",
        "compare/hosts/variants.yaml",
        "maintainers",
        "the target loader (host-plan fragments a target's variants name)",
        "compare/hosts/variants.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "area",
        "compare/rows/areas/<area>.yaml",
        "maintainers",
        "pin add, diff, rows, site",
        "compare/rows/area.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "implementations",
        "compare/rows/implementations.yaml",
        "maintainers",
        "rows",
        "compare/rows/implementations.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "rows",
        "build/rows.json",
        "rows",
        "render, export",
        "compare/rows/rows.schema.json",
    ),
    Contract(
        "citations",
        "build/citations.json",
        "rows, rows --lint, cite --check",
        "cite --check (reused while its inputs hold), render, export",
        "compare/rows/citations.schema.json",
    ),
    Contract(
        "matrix",
        "build/matrix.json, build/previous/matrix.json",
        "export",
        "render (what changed since the last run), anyone downloading the data",
        "compare/site/matrix.schema.json",
    ),
    Contract(
        "stamp",
        "build/stamps/<stage>.json",
        "compare, tools install (after a stage succeeded)",
        "compare, tools install (to skip an unchanged stage)",
        "compare/stamp.schema.json",
    ),
    Contract(
        "check-report",
        "checks/<name>/report.json",
        "check",
        "CI jobs and anyone checking their own client or server",
        "compare/check/check-report.schema.json",
    ),
    Contract(
        "check-beside",
        "compare/check/beside.yaml",
        "maintainers",
        "check (the published columns a report shows beside the checked program)",
        "compare/check/check-beside.schema.json",
        form="yaml",
        kind="data",
    ),
    Contract(
        "go-build",
        "tools/hosts/<id>/build.json",
        "tools install (a Go host program)",
        "tools install (to skip an unchanged build), the citation verifier",
        "compare/install/go-build.schema.json",
    ),
)


def contract(name: str) -> Contract:
    """The contract called ``name`` (a KeyError names an unknown one)."""
    for entry in CONTRACTS:
        if entry.name == name:
            return entry
    raise KeyError(name)
