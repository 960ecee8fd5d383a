"""Exchange results as the site sees them: each cell's ``verdict.json`` and its transcript.

Read straight from the files CONTRACTS.md §4 fixes (not through the engine's Python API), so
the site can be rebuilt from a results folder alone — e.g. one copied from CI. A cell whose
files are unreadable or malformed becomes a recorded problem shown on the site, never a
traceback and never a silently missing cell.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare.site._escape import slug

VERDICTS = ("pass", "non-strict", "fail", "informational", "not-run", "error")
#: How much of a transcript a page shows: a flooding client must not make a 1 GB page.
MAX_TRANSCRIPT_LINES = 400
MAX_RAW_CHARS = 2000
MAX_VERDICT_BYTES = 4 * 1024 * 1024
MAX_LINE_BYTES = 1024 * 1024


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

    @property
    def slug(self) -> str:
        """The cell page's file name (without ``.md``): stable for the same cell."""
        parts = [self.target, self.version, self.scenario, self.revision]
        if self.variant:
            parts.append(self.variant)
        if self.suffix:
            parts.append(self.suffix)
        return "--".join(slug(p) for p in parts)

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


@dataclass
class Transcript:
    """A cell's wire log, capped so a flood cannot blow up a page."""

    lines: list[WireLine] = field(default_factory=list)
    total: int = 0
    problems: list[str] = field(default_factory=list)
    missing: bool = False


def _str(value: object) -> str:
    return "" if value is None else str(value)


def _version_key(version: str) -> tuple[tuple[int, str], ...]:
    """Order versions numerically where they are numbers (1.10 after 1.9)."""
    return tuple(
        (int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.\-+]", version) if p
    )


def _check(raw: object) -> Check:
    item = raw if isinstance(raw, dict) else {}
    refs = []
    for ref in item.get("refs") or []:
        if isinstance(ref, dict):
            quote = _str(ref.get("quote"))
            refs.append(_str(ref.get("cite")) + (f" “{quote}”" if quote else ""))
        else:
            refs.append(_str(ref))
    evidence = tuple(e for e in item.get("evidence") or [] if isinstance(e, int))
    return Check(
        id=_str(item.get("id")),
        verdict=_str(item.get("verdict")),
        expected=_str(item.get("expected")),
        observed=_str(item.get("observed")),
        reason=_str(item.get("reason")),
        evidence=evidence,
        refs=tuple(refs),
        title=_str(item.get("title")),
        outcome=_str(item.get("outcome")),
    )


def _load_verdict(path: Path, root: Path) -> Cell:
    """Parse one ``verdict.json``; raises ``ValueError`` with what is wrong."""
    if path.stat().st_size > MAX_VERDICT_BYTES:
        raise ValueError(f"larger than {MAX_VERDICT_BYTES} bytes")
    data = json.loads(path.read_bytes().decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    for key in ("target", "scenario", "revision", "verdict"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ValueError(f"missing or non-string {key!r}")
    if data["verdict"] not in VERDICTS:
        raise ValueError(f"unknown verdict {data['verdict']!r}")
    folder = path.parent
    return Cell(
        rel=folder.relative_to(root).as_posix(),
        folder=folder,
        target=data["target"],
        version=_str(data.get("target_version")) or "unknown",
        variant=_str(data.get("variant")),
        scenario=data["scenario"],
        revision=data["revision"],
        verdict=data["verdict"],
        reason=_str(data.get("reason")),
        checks=[_check(c) for c in data.get("checks") or [] if isinstance(c, dict)],
        data=data,
    )


def load_cells(results: Path) -> tuple[list[Cell], list[Problem]]:
    """Every cell under ``results``; the newest version of each target is marked current."""
    cells: list[Cell] = []
    problems: list[Problem] = []
    if not results.is_dir():
        return cells, problems
    for path in sorted(results.glob("*/*/*/*/verdict.json")):
        where = path.relative_to(results).as_posix()
        try:
            cells.append(_load_verdict(path, results))
        except (OSError, UnicodeDecodeError, ValueError) as err:
            problems.append(Problem(f"results/{where}", f"unreadable verdict: {err}"))
    newest: dict[str, str] = {}
    for cell in cells:
        best = newest.get(cell.target)
        if best is None or _version_key(cell.version) > _version_key(best):
            newest[cell.target] = cell.version
    for cell in cells:
        cell.current = newest[cell.target] == cell.version
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
    return WireLine(
        n=n,
        t=t,
        dir=direction,
        raw=raw,
        note="; ".join(notes),
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
    if not path.is_file():
        out.missing = True
        return out
    with path.open("rb") as handle:
        for index, line in enumerate(handle, start=1):
            out.total += 1
            if len(out.lines) >= MAX_TRANSCRIPT_LINES:
                continue
            try:
                if len(line) > MAX_LINE_BYTES:
                    raise ValueError(f"{len(line)} bytes, over the {MAX_LINE_BYTES}-byte cap")
                obj = json.loads(line.decode("utf-8"))
                if not isinstance(obj, dict):
                    raise ValueError("not an object")
                out.lines.append(_entry(obj, index))
            except (UnicodeDecodeError, ValueError) as err:
                out.problems.append(f"line {index}: not a transcript entry ({err})")
                text = line.decode("utf-8", "replace").rstrip("\n")[:MAX_RAW_CHARS]
                out.lines.append(
                    WireLine(n=index, t=None, dir="?", raw=text, note="malformed transcript line")
                )
    return out


def initialize_sent(cell: Cell) -> str | None:
    """The raw ``initialize`` request the client sent in this cell, if the transcript has it."""
    for line in read_transcript(cell).lines:
        if line.dir == "in" and '"initialize"' in line.raw:
            try:
                obj = json.loads(line.raw)
            except ValueError:
                continue
            if isinstance(obj, dict) and obj.get("method") == "initialize":
                return line.raw
    return None
