"""A lint that no row state in ``rows.json`` contradicts the cells behind it (issue 42).

Each state word promises something about every check behind it (``STATE_PROMISES``): a
reader who sees "ℹ observed" above four "✔ pass" cells has been told two different things.
This check re-reads the evidence instead of trusting the rule that wrote the state: for every
row and run column it opens each ``verdict.json`` the column names, takes the verdicts of the
row's queried checks from it and tests the state's promise against them, worded here from the
promise itself and never through ``_state.graded_state``. So a slip in that rule, a check
whose judgement moved under a row declared informational, or a ``rows.json`` older than its
cells shows up as a sentence naming the row, the column and what the cells say.

How each kind of column is checked:

- a query column (``status_query``) against its cells: each named cell is read, must be the
  row's (target, version, scenario, revision, variant), and must give the per-revision verdict
  ``rows.json`` recorded; all of them together must keep the state's promise, and an error or
  unstable column's "the rest" word must keep its own promise over the other cells. An older
  version's state (``history``) is checked the same way against the cells it names;
- a query column that names no cell reads not run, and the results folder must then hold no
  cell it should have named;
- a derived column (``derive`` in the area file: one observed word picked from probe facts)
  cannot be re-derived here; its cells are checked to be readable, the column's and usable
  (not in error, unstable or not run), which is what the rule reads from;
- any other column (a row with no exchange check, a derived row with no usable cell) must
  read not run and name no cell;
- a cited column (not run, backed by citations) is no claim about cells and is skipped.

One ``verdict.json`` is read once however many rows name it (several rows query the same
scenario), so the whole data set takes a few seconds.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from compare.judge._verdicts import severity
from compare.rows._state import STATE_LABELS, STATE_PROMISES

#: Verdicts that grade: what "supported", "partial" and the rest speak about.
_GRADED = ("pass", "non-strict", "fail")
#: Cell outcomes after which a cell can vouch for nothing.
_DOUBT = ("error", "unstable")
#: A judged state whose promise this module words (see :func:`_keeps`).
_JUDGED = (
    "supported",
    "non-strict",
    "partial",
    "not-supported",
    "observed",
    "not-exercised",
    "not-run",
)


@dataclass(frozen=True)
class Contradiction:
    """One column whose state its cells contradict: which one, and what they say."""

    row: str
    implementation: str
    text: str

    @property
    def sentence(self) -> str:
        return f"{self.row} {self.implementation}: {self.text}"


@dataclass
class Report:
    """What was checked and what was found."""

    found: list[Contradiction] = field(default_factory=list)
    #: Row × run-implementation columns checked, by how (see the module docstring).
    by_cells: int = 0
    by_absence: int = 0
    derived: int = 0
    #: Columns of rows with no query whose state is not a derived word (they read not run).
    unqueried: int = 0
    #: Older versions' states checked against their cells.
    history: int = 0
    #: Cited columns: no claim about cells.
    cited: int = 0
    #: Distinct ``verdict.json`` files read.
    cells: int = 0

    @property
    def columns(self) -> int:
        return self.by_cells + self.by_absence + self.derived + self.unqueried

    def summary(self) -> str:
        """One line for the command's output: the figures, then the verdict."""
        said = (
            f"{self.columns} row columns checked against {self.cells} cells"
            f" ({self.by_cells} against their cells' checks, {self.by_absence} not run with no"
            f" cell, {self.derived} derived, {self.unqueried} with no query and not derived),"
            f" and {self.history} older versions' states"
        )
        if not self.found:
            return f"{said}: no state contradicts its cells"
        return f"{said}: {len(self.found)} state(s) contradict their cells"


@dataclass(frozen=True)
class _Reading:
    """What one cell says for a row: the verdict its worst queried check gives it, the
    verdicts of its queried checks that may speak for the row, and its doubts."""

    verdict: str
    judged: tuple[tuple[str, str], ...]
    doubts: frozenset[str]
    plays: int


class _Cells:
    """Each ``verdict.json`` read once: its object, or why it could not be read."""

    def __init__(self, results: Path) -> None:
        self.results = results
        self._read: dict[Path, dict[str, Any] | str] = {}

    def folder(self, named: str) -> Path:
        """The folder ``rows.json`` names as ``results/<target>/…`` (relative to the results
        folder's parent, or absolute when the results lay elsewhere)."""
        path = PurePosixPath(named)
        if path.is_absolute():
            return Path(named)
        parts = path.parts
        if parts and parts[0] == self.results.name:
            return self.results.joinpath(*parts[1:])
        return self.results.parent / named

    def read(self, folder: Path) -> dict[str, Any] | str:
        if folder not in self._read:
            self._read[folder] = _load(folder / "verdict.json")
        return self._read[folder]

    @property
    def count(self) -> int:
        return len(self._read)


def _load(path: Path) -> dict[str, Any] | str:
    try:
        value = json.loads(path.read_bytes())
    except FileNotFoundError:
        return "it has no verdict.json"
    except (OSError, ValueError) as err:
        return f"its verdict.json cannot be read ({err})"
    if not isinstance(value, dict) or not isinstance(value.get("checks", []), list):
        return "its verdict.json is not a verdict object"
    return value


def _checks(query: dict[str, Any]) -> list[str]:
    check = query.get("check")
    if isinstance(check, list):
        return [str(one) for one in check]
    return [str(check)] if check else []


def _reading(cell: dict[str, Any], checks: list[str]) -> _Reading:
    """The cell read for a row querying ``checks``: a not-run cell speaks for nothing; a cell
    lacking every queried check speaks for nothing unless it ended in doubt; otherwise its
    worst queried check is its verdict, and its queried checks speak unless it is in doubt."""
    said = str(cell.get("verdict"))
    plays = len(cell.get("plays") or []) or 1
    found = [
        (str(c.get("id")), str(c.get("verdict")))
        for c in cell.get("checks") or []
        if isinstance(c, dict) and c.get("id") in checks
    ]
    if said == "not-run":
        return _Reading("not-run", (), frozenset(), plays)
    if not found:
        verdict = said if said in _DOUBT else "not-run"
        return _Reading(verdict, (), frozenset({said}) & set(_DOUBT), plays)
    worst = max((v for _, v in found), key=severity)
    doubts = frozenset({said, worst}) & set(_DOUBT)
    return _Reading(worst, () if doubts else tuple(found), doubts, plays)


def _keeps(state: str, verdicts: Counter[str]) -> bool:
    """Whether the judged check verdicts keep ``state``'s promise (``STATE_PROMISES``)."""
    graded = {v for v in _GRADED if verdicts[v]}
    if state == "supported":
        return graded == {"pass"}
    if state == "non-strict":
        return "non-strict" in graded and "fail" not in graded
    if state == "partial":
        return "fail" in graded and bool(graded & {"pass", "non-strict"})
    if state == "not-supported":
        return graded == {"fail"}
    if state == "observed":
        return not graded and verdicts["informational"] > 0
    if state == "not-exercised":
        return not graded and verdicts["not-exercised"] > 0
    if state == "not-run":
        return not any(verdicts.values())
    return False


def _said(readings: dict[str, _Reading], folder: str) -> str:
    """What the cells say, by check and verdict: ``threshold pass at 2024-11-05, 2025-03-26``."""
    by: dict[tuple[str, str], list[str]] = {}
    for key, reading in readings.items():
        for check, verdict in reading.judged:
            by.setdefault((check, verdict), []).append(key)
        for doubt in sorted(reading.doubts):
            by.setdefault(("the cell", doubt), []).append(key)
        if not reading.judged and not reading.doubts:
            by.setdefault(("the cell", "not run or no such check"), []).append(key)
    parts = [f"{check} {verdict} at {', '.join(keys)}" for (check, verdict), keys in by.items()]
    where = f" (cells under {folder})" if folder else ""
    return "; ".join(parts) + where


def _common(named: list[str]) -> str:
    parents = {str(PurePosixPath(one).parent) for one in named}
    return parents.pop() + "/" if len(parents) == 1 else ""


def _quoted(state: str) -> str:
    return f"“{STATE_LABELS.get(state, state)}”"


class _Checker:
    """Walks the columns, one at a time: the row and column being read are kept here so each
    contradiction is said with them, and the cells are shared so each is read once."""

    def __init__(self, results: Path, broken: list[str]) -> None:
        self.cells = _Cells(results)
        self.report = Report()
        self.broken = [one.split(": ", 1)[0] for one in broken]
        self.row = ""
        self.impl = ""

    def say(self, text: str) -> None:
        self.report.found.append(Contradiction(self.row, self.impl, text))

    def column(self, row: dict[str, Any], impl: str, column: dict[str, Any]) -> None:
        self.row, self.impl = str(row.get("id")), impl
        state = str(column.get("state"))
        query = row.get("status_query")
        if state == "cited":
            self.report.cited += 1
        elif isinstance(query, dict) and query.get("scenario"):
            self.queried(query, column)
            for old in column.get("history") or []:
                self.older(query, column, old)
        elif column.get("facts") is not None or column.get("evidence"):
            self.report.derived += 1
            self.derived(column)
        else:
            self.report.unqueried += 1
            if state != "not-run":
                self.say(
                    f"reads {_quoted(state)} though the row queries no check and names no cell"
                )

    def queried(self, query: dict[str, Any], column: dict[str, Any]) -> None:
        state = str(column.get("state"))
        entries: dict[str, dict[str, Any]] = column.get("revisions") or {}
        if not entries:
            self.report.by_absence += 1
            if state != "not-run":
                self.say(f"reads {_quoted(state)} but names no cell")
            else:
                self.absent(query, column)
            return
        self.report.by_cells += 1
        readings: dict[str, _Reading] = {}
        for key, entry in entries.items():
            reading = self.named(query, column.get("version"), key, str(entry.get("cell")))
            if reading is None:
                continue
            readings[key] = reading
            recorded = entry.get("verdict")
            if recorded != reading.verdict:
                self.say(
                    f"rows.json records {recorded} at {key}, but the cell {entry.get('cell')}"
                    f" gives {reading.verdict} ({_said({key: reading}, '')})"
                )
        if len(readings) == len(entries):
            self.promise(
                state, column, readings, _common([str(e.get("cell")) for e in entries.values()])
            )

    def named(self, query: dict[str, Any], version: Any, key: str, named: str) -> _Reading | None:
        """One named cell, read and identified; None (and a contradiction) when it cannot be."""
        cell = self.cells.read(self.cells.folder(named))
        if isinstance(cell, str):
            self.say(f"its cell {named} cannot be checked: {cell}")
            return None
        revision, _, variant = key.partition("~")
        wanted = {
            "target": self.impl,
            "target_version": version,
            "scenario": query.get("scenario"),
            "revision": revision,
        }
        if variant or query.get("variant"):
            wanted["variant"] = variant or query.get("variant")
        wrong = [f"{k} {cell.get(k)!r}, not {v!r}" for k, v in wanted.items() if cell.get(k) != v]
        allowed = query.get("revisions")
        if allowed and cell.get("revision") not in allowed:
            wrong.append(f"revision {cell.get('revision')!r}, outside {', '.join(allowed)}")
        if wrong:
            self.say(f"the cell named at {key}, {named}, is not this row's: {'; '.join(wrong)}")
            return None
        return _reading(cell, _checks(query))

    def promise(
        self, state: str, column: dict[str, Any], readings: dict[str, _Reading], folder: str
    ) -> None:
        """The state's promise against every named cell's reading."""
        said = _said(readings, folder)
        errors = [k for k, r in readings.items() if "error" in r.doubts]
        unstable = [k for k, r in readings.items() if "unstable" in r.doubts]
        verdicts: Counter[str] = Counter(v for r in readings.values() for _, v in r.judged)
        if state == "error":
            if not errors:
                self.say(f"reads {_quoted(state)}, but no cell behind it ended in error: {said}")
            elif column.get("errors") != len(errors):
                self.say(
                    f"counts {column.get('errors')} cell(s) in error, but {len(errors)} ended"
                    f" in error ({', '.join(errors)})"
                )
        elif state == "unstable":
            if errors or not unstable:
                self.say(f"reads {_quoted(state)}, but {said}")
            elif column.get("unstable") != len(unstable):
                self.say(
                    f"counts {column.get('unstable')} unstable cell(s), but {len(unstable)}"
                    f" are ({', '.join(unstable)})"
                )
            once = [k for k in unstable if readings[k].plays < 2]
            if once:
                self.say(
                    f"reads {_quoted(state)}, but its cell(s) at {', '.join(once)} were played"
                    " once: no outcome could have differed between plays"
                )
        elif state not in _JUDGED:
            self.say(f"reads {state!r}, a state with no promise")
            return
        elif errors or unstable:
            doubt = "ended in error" if errors else "was unstable between plays"
            self.say(
                f"reads {_quoted(state)}, but the cell at {', '.join(errors or unstable)} {doubt}"
                f", so nothing may be claimed: {said}"
            )
            return
        if state in _DOUBT:
            rest = column.get("judged_state")
            if rest in _JUDGED and not _keeps(str(rest), verdicts):
                self.say(
                    f"says the rest of its cells read {_quoted(str(rest))}"
                    f" ({STATE_PROMISES[str(rest)]}), but they say: {said}"
                )
            return
        if not _keeps(state, verdicts):
            self.say(f"reads {_quoted(state)} ({STATE_PROMISES[state]}), but its cells say: {said}")

    def older(self, query: dict[str, Any], column: dict[str, Any], old: dict[str, Any]) -> None:
        """An older version's state against the cells it names (no per-revision record)."""
        version, state = old.get("version"), str(old.get("state"))
        if version == column.get("version"):
            if state != column.get("state"):
                self.say(
                    f"reads {_quoted(str(column.get('state')))} for {version} but its history"
                    f" reads {_quoted(state)} for the same version"
                )
            return
        named = [str(n) for n in old.get("evidence") or []]
        if not named:
            return  # an older version with no cell of this scenario: not run, nothing to read
        self.report.history += 1
        readings: dict[str, _Reading] = {}
        for path in named:
            cell = self.cells.read(self.cells.folder(path))
            if isinstance(cell, str):
                self.say(f"its {version} state cannot be checked: the cell {path}: {cell}")
                return
            key = str(cell.get("revision")) + (
                f"~{cell['variant']}" if cell.get("variant") not in (None, "", "default") else ""
            )
            readings[key] = _reading(cell, _checks(query))
        errors = any("error" in r.doubts for r in readings.values())
        unstable = any("unstable" in r.doubts for r in readings.values())
        verdicts: Counter[str] = Counter(v for r in readings.values() for _, v in r.judged)
        doubt = "error" if errors else "unstable" if unstable else ""
        if doubt != (state if state in _DOUBT else "") or (
            not doubt and not _keeps(state, verdicts)
        ):
            self.say(
                f"its {version} state reads {_quoted(state)}, but its cells say:"
                f" {_said(readings, _common(named))}"
            )

    def absent(self, query: dict[str, Any], column: dict[str, Any]) -> None:
        """A not-run column naming no cell: the results folder must hold none it should name."""
        version, scenario = column.get("version"), query.get("scenario")
        if not version or not isinstance(scenario, str):
            return  # no current version: the rows stage names why, nothing to look for
        folder = self.cells.results / self.impl / str(version) / scenario
        if not folder.is_dir():
            return
        held = []
        for leaf in sorted(folder.iterdir()):
            if leaf.name.startswith(".") or ".old-" in leaf.name:
                continue  # a staging or superseded folder, never a cell
            if not (leaf / "verdict.json").is_file() or self._broken(leaf):
                continue
            cell = self.cells.read(leaf)
            if isinstance(cell, str):
                continue
            if query.get("variant") and cell.get("variant") != query["variant"]:
                continue
            if query.get("revisions") and cell.get("revision") not in query["revisions"]:
                continue
            held.append(leaf.name)
        if held:
            self.say(
                f"reads {_quoted('not-run')} ({column.get('reason')}), but the results hold"
                f" {len(held)} cell(s) for it under {self.impl}/{version}/{scenario}/:"
                f" {', '.join(held)}"
            )

    def _broken(self, leaf: Path) -> bool:
        text = str(leaf)
        return any(one == text or one.startswith(text + "/") for one in self.broken)

    def derived(self, column: dict[str, Any]) -> None:
        """A derived column: its cells readable, the column's, and usable."""
        state, named = str(column.get("state")), [str(n) for n in column.get("evidence") or []]
        if state == "not-run":
            if named:
                self.say(f"reads {_quoted(state)} but names {len(named)} cell(s)")
            return
        if state != "observed":
            self.say(f"reads {_quoted(state)}, but a derived row can only read observed or not run")
            return
        if not named:
            self.say(f"reads {_quoted(state)} but names no cell")
            return
        for path in named:
            cell = self.cells.read(self.cells.folder(path))
            if isinstance(cell, str):
                self.say(f"its cell {path} cannot be checked: {cell}")
            elif cell.get("target") != self.impl or cell.get("target_version") != column.get(
                "version"
            ):
                self.say(f"the cell {path} is {cell.get('target')} {cell.get('target_version')}")
            elif cell.get("verdict") in (*_DOUBT, "not-run"):
                self.say(
                    f"reads {_quoted(state)} from the cell {path}, which is {cell.get('verdict')}"
                    " and can vouch for nothing"
                )


def check(rows_json: Path, results: Path) -> Report:
    """Every run column of ``rows_json`` against the cells under ``results``."""
    document = json.loads(rows_json.read_bytes())
    checker = _Checker(results, [str(b) for b in document.get("broken_cells") or []])
    for area in document.get("areas") or []:
        for row in area.get("rows") or []:
            for impl, column in sorted((row.get("status") or {}).items()):
                checker.column(row, impl, column)
    checker.report.cells = checker.cells.count
    return checker.report


def contradictions(rows_json_path: Path, results_dir: Path) -> list[str]:
    """Each row column whose state its cells contradict, as one readable sentence (empty: none)."""
    return [one.sentence for one in check(rows_json_path, results_dir).found]
