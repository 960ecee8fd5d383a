"""Exchange results as the site sees them: each cell's ``verdict.json`` and its transcript.

Which cells exist and which are current comes from ``compare.play._cells.scan_cells``, the reader
the rows stage uses too, and each transcript line from
``compare.judge._transcript.read_records``, the reader the judge uses; both need only the
results folder, so the site can still be rebuilt from one copied from CI. What is the site's
own: the page view of a cell, transcript excerpts capped against floods. A cell whose files are
unreadable or malformed becomes a recorded problem shown on the site, never a traceback and
never a silently missing cell.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare._errors import CompareError
from compare._paths import relative_posix
from compare.exchange._targets import load_targets
from compare.judge._transcript import read_records
from compare.judge._verdict import Check as VerdictCheck
from compare.judge._verdict import Play, Verdict
from compare.play._cells import CellResult, pinned_versions, scan_cells
from compare.site._escape import slug

#: How much of a transcript a page shows: a flooding client must not make a 1 GB page.
MAX_TRANSCRIPT_LINES = 400
MAX_RAW_CHARS = 2000


@dataclass(frozen=True)
class Problem:
    """Something in the inputs the site could not use, shown on the home page."""

    where: str
    what: str


@dataclass(frozen=True)
class Check:
    """One judged check of a cell, as the harness wrote it."""

    id: str
    verdict: str
    expected: str
    observed: str
    reason: str
    evidence: tuple[int, ...]
    refs: tuple[str, ...]
    title: str = ""
    outcome: str = ""


@dataclass
class Cell:
    """One target × variant × scenario × revision result."""

    rel: str  # folder relative to the results root, with forward slashes
    folder: Path
    target: str
    version: str
    variant: str
    scenario: str
    revision: str
    verdict: str
    reason: str
    checks: list[Check]
    data: dict[str, Any]
    current: bool = False
    suffix: str = ""  # set only when two folders would share one page name
    #: The typed verdict (``compare.judge._verdict``); None only for a hand-built cell.
    record: Verdict | None = None

    @property
    def slug(self) -> str:
        """The cell page's file name (without ``.md``): stable for the same cell. Kept once
        made for the suffix it was made with (a render asks for it about 100,000 times)."""
        made = self.__dict__.get("_slug")
        if made is not None and made[0] == self.suffix:
            return str(made[1])
        parts = [self.target, self.version, self.scenario, self.revision]
        if self.variant:
            parts.append(self.variant)
        if self.suffix:
            parts.append(self.suffix)
        text = "--".join(slug(p) for p in parts)
        self.__dict__["_slug"] = (self.suffix, text)
        return text

    @property
    def plays(self) -> tuple[Play, ...]:
        """The plays of a cell played several times (play 1 first); empty when played once."""
        return self.record.plays if self.record is not None else ()

    @property
    def differed(self) -> tuple[str, ...]:
        """The checks whose outcome differed between plays (an unstable cell)."""
        return self.record.differed if self.record is not None else ()

    @property
    def column(self) -> str:
        """The implementation column: target, plus the variant when there is one."""
        return f"{self.target}~{self.variant}" if self.variant else self.target


@dataclass(frozen=True)
class WireLine:
    """One transcript entry, reduced to what a reader needs to see."""

    n: int
    t: float | None
    dir: str
    raw: str
    note: str = ""
    #: In a proxy cell, the leg the line travelled (``host``, ``upstream``, ``upstream#2`` for
    #: a second upstream connection); empty in every other cell.
    leg: str = ""


@dataclass
class Transcript:
    """A cell's wire log, capped so a flood cannot blow up a page."""

    lines: list[WireLine] = field(default_factory=list)
    total: int = 0
    problems: list[str] = field(default_factory=list)
    missing: bool = False


def _str(value: object) -> str:
    return "" if value is None else str(value)


def _check(item: VerdictCheck) -> Check:
    refs = []
    for ref in item.refs:
        if isinstance(ref, dict):
            quote = _str(ref.get("quote"))
            refs.append(_str(ref.get("cite")) + (f" “{quote}”" if quote else ""))
        else:
            refs.append(_str(ref))
    return Check(
        id=item.id,
        verdict=item.verdict,
        expected=item.expected,
        observed=item.observed,
        reason=item.reason,
        evidence=item.evidence,
        refs=tuple(refs),
        title=item.title,
        outcome=_str(item.outcome),
    )


def _site_cell(result: CellResult, root: Path) -> Cell:
    """The site's view of one cell, from the one verdict reader's typed record."""
    record = result.record
    return Cell(
        rel=relative_posix(result.folder, root),
        folder=result.folder,
        target=record.target,
        version=record.target_version,
        variant=record.variant,
        scenario=record.scenario,
        revision=record.revision,
        verdict=record.verdict,
        reason=record.reason,
        checks=[_check(c) for c in record.checks],
        data=record.raw,
        current=result.current,
        record=record,
    )


def _pinned(problems: list[Problem]) -> dict[str, str]:
    """Pinned versions from the target files; unreadable ones are a problem, not a crash."""
    try:
        return pinned_versions(load_targets())
    except CompareError as err:
        problems.append(
            Problem(
                "compare/exchange/targets/",
                f"unreadable target files ({err.message}): the newest version counts as current",
            )
        )
        return {}


def load_cells(results: Path) -> tuple[list[Cell], list[Problem]]:
    """Every cell under ``results``, found and marked current (the pinned version of each
    target) by the exchange's own reader, so the site agrees with the rows."""
    cells: list[Cell] = []
    problems: list[Problem] = []
    scan = scan_cells(results, _pinned(problems))
    bad = [(u.path, u.why) for u in scan.unreadable]
    cells += [_site_cell(result, results) for result in scan.cells]
    for path, why in sorted(bad):
        where = path.relative_to(results).as_posix()
        kind = "unreadable verdict" if path.name == "verdict.json" else "damaged cell file"
        problems.append(Problem(f"results/{where}", f"{kind}: {why}"))
    by_slug: dict[str, list[Cell]] = {}
    for cell in cells:
        by_slug.setdefault(cell.slug, []).append(cell)
    for group in by_slug.values():
        if len(group) > 1:  # e.g. "ts_sdk" and "ts-sdk": keep both, each with its own page
            for cell in group:
                cell.suffix = hashlib.sha256(cell.rel.encode()).hexdigest()[:8]
    return cells, problems


def _entry(obj: dict[str, Any], index: int) -> WireLine:
    n_raw, t_raw = obj.get("n"), obj.get("t")
    n = n_raw if isinstance(n_raw, int) else index
    t = float(t_raw) if isinstance(t_raw, int | float) else None
    direction = _str(obj.get("dir")) or "?"
    notes = []
    if "raw" in obj:
        raw = _str(obj.get("raw"))
    elif "raw_b64" in obj:
        try:
            raw = repr(base64.b64decode(_str(obj["raw_b64"]), validate=True))
        except ValueError:
            raw = _str(obj["raw_b64"])
        notes.append("not valid UTF-8: shown as Python bytes")
    else:
        raw = ""
        notes.append("entry has no raw text")
    if obj.get("truncated"):
        notes.append(f"truncated by the harness; full length {_str(obj.get('bytes'))} bytes")
    if obj.get("parse_error"):
        notes.append(f"not JSON: {_str(obj.get('parse_error'))}")
    if len(raw) > MAX_RAW_CHARS:
        notes.append(f"shown: first {MAX_RAW_CHARS} of {len(raw)} characters")
        raw = raw[:MAX_RAW_CHARS]
    leg = ""
    if isinstance(obj.get("leg"), str) and obj["leg"] in ("host", "upstream"):
        conn = obj.get("conn")
        leg = obj["leg"] + (f"#{conn}" if obj["leg"] == "upstream" and conn != 1 else "")
    return WireLine(
        n=n,
        t=t,
        dir=direction,
        raw=raw,
        note="; ".join(notes),
        leg=leg,
    )


def read_transcript(cell: Cell) -> Transcript:
    """The cell's wire log: the first ``MAX_TRANSCRIPT_LINES`` entries, problems noted."""
    name = (
        cell.data.get("files", {}).get("transcript")
        if isinstance(cell.data.get("files"), dict)
        else None
    )
    path = cell.folder / (name if isinstance(name, str) and "/" not in name else "transcript.jsonl")
    out = Transcript()
    scan = read_records(path, keep=MAX_TRANSCRIPT_LINES)
    if scan.missing is not None:
        out.missing = True
        return out
    out.total = scan.total
    for record in scan.records:
        if record.data is not None:
            out.lines.append(_entry(record.data, record.number))
            continue
        out.problems.append(f"line {record.number}: not a transcript entry ({record.problem})")
        text = record.text[:MAX_RAW_CHARS]
        out.lines.append(
            WireLine(n=record.number, t=None, dir="?", raw=text, note="malformed transcript line")
        )
    return out


def initialize_sent(cell: Cell) -> str | None:
    """The raw ``initialize`` request the client sent in this cell, if the transcript has it."""
    for line in read_transcript(cell).lines:
        if line.dir == "in" and '"initialize"' in line.raw:
            try:
                obj = json.loads(line.raw)
            except (ValueError, RecursionError):  # a client line nested absurdly deep
                continue
            if isinstance(obj, dict) and obj.get("method") == "initialize":
                return line.raw
    return None
