"""Every citation of a run in place, verified: the records ``build/citations.json`` holds.

A record is a citation string (from an area file, or a scenario check's ``refs``) with where it
sits and the verifier's result (``compare.cite``). Why moved fails a check too: a moved
citation still points readers at the wrong line, and the repair is one command (``cite
--fix``), so CI should not let it through; ``--allow-moved`` exists for a reviewer who wants
the other failures first. An upstream repository that is not reachable is not a failure (it
is shown as "not verified: source unavailable"), but a spec file or an installed package that
cannot be read is one: those are verifiable offline by design, so their absence means a step
was skipped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare._paths import PROJECT_ROOT
from compare.cite import STATUSES, Result

FORMAT = 1


def display_path(path: Path) -> str:
    """``path`` relative to the checkout when it is inside it (as a reader finds the file)."""
    try:
        return str(path.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


@dataclass
class Checked:
    """One citation in place, verified (or unparseable: ``error`` set, ``result`` None)."""

    file: str
    row: str
    field: str
    ref: str
    context: str | None
    result: Result | None
    error: str | None = None
    #: ``area`` (a row's citation), ``sentence`` (a named sentence at one revision, in
    #: scenarios/_sentences.yaml: ``check`` is its name) or ``scenario`` (a literal ref).
    origin: str = "area"
    scenario: str | None = None
    check: str | None = None
    ref_index: int | None = None

    @property
    def status(self) -> str:
        # A citation rejected before or beside verification (unparseable, or a scenario quote
        # that is a token, not a clause) counts as a mismatch: the claim is not supported.
        if self.error is not None or self.result is None:
            return "mismatch"
        return self.result.status

    @property
    def message(self) -> str:
        """Why it was rejected, else what the verifier found."""
        if self.error is not None:
            return self.error
        return self.result.message if self.result else ""

    @property
    def failing(self) -> bool:
        """Whether this citation makes ``cite --check`` fail (moved is judged separately)."""
        return failing(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        out: dict[str, Any] = {
            "file": self.file,
            "row": self.row,
            "field": self.field,
            "ref": self.ref,
            "status": self.status,
            "message": self.message,
            "context": self.context,
            "origin": self.origin,
        }
        if self.origin == "scenario":
            out |= {"scenario": self.scenario, "check": self.check, "ref_index": self.ref_index}
        if self.origin == "sentence":
            out |= {"sentence": self.check}
        if r is not None:
            c = r.citation
            out |= {
                "kind": c.kind,
                "path": c.path,
                "start": c.start,
                "end": c.end,
                "quote": c.quote,
                "found_at": r.found_at,
                "provenance": r.provenance,
                "link": r.link,
                "offline": r.offline,
                "open_question": r.open_question,
            }
        return out


def failing(record: dict[str, Any]) -> bool:
    """Whether one ``citations.json`` record fails ``cite --check`` (moved is judged apart)."""
    status = record.get("status")
    return status in {"mismatch", "ambiguous"} or (
        status == "unavailable" and bool(record.get("offline"))
    )


def document_failed(document: dict[str, Any], allow_moved: bool = False) -> bool:
    """Whether a ``citations.json`` document fails the check: what ``cite --check`` exits on."""
    records = document.get("citations") or []
    if any(failing(r) for r in records):
        return True
    return not allow_moved and any(r.get("status") == "moved" for r in records)


@dataclass
class Report:
    """All citations checked, with the tally by status.

    ``skipped`` names area files that could not be read (the rows lints report them); a report
    with skipped files is incomplete, so it is never reused in place of a fresh check.
    """

    checked: list[Checked] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def tally(self) -> dict[str, int]:
        counts = Counter(c.status for c in self.checked)
        return {status: counts.get(status, 0) for status in STATUSES}

    def failed(self, allow_moved: bool = False) -> bool:
        return document_failed(self.as_dict(), allow_moved)

    def verified_in(self, path: Path) -> dict[str, Result | None]:
        """Citation string -> result for one area file (None: it does not parse)."""
        file = display_path(path)
        out: dict[str, Result | None] = {}
        for c in self.checked:
            if c.origin == "area" and c.file == file:
                out.setdefault(c.ref, c.result)
        return out

    def as_dict(self, inputs: str | None = None) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "inputs": inputs,
            "tally": self.tally(),
            "warnings": self.warnings,
            "citations": [c.as_dict() for c in self.checked],
        }
