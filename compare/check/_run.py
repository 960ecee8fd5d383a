"""One check from start to end: choose the program's cells, play them into the check's own
folder, read them with the rows' rules, write the four reports, and decide the exit status.

The folder is ``checks/<name>/`` by default (``MCP_COMPARE_CHECKS`` moves ``checks/``), and
``results/`` inside it holds the cells: never the published ``results/``, so nothing a check
plays can reach the matrix or stop the next ``make compare``, and a second check of the same
program reuses what has not changed, as a matrix run does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compare._atomic import write_bytes, write_json, write_text
from compare._errors import CompareError
from compare._paths import build_dir, checks_dir, relative_posix, results_dir
from compare._yaml import load_yaml
from compare.check import _html, _junit, _terminal
from compare.check._beside import default_beside, published
from compare.check._report import THRESHOLDS, build, stray_findings, validate
from compare.check._rows import Program, checked_areas, readers, row_scenario
from compare.pin import release_order
from compare.rows._cells import Cells
from compare.rows._load import area_files

#: A played fail, non-strict or unstable cell is played until it has this many plays, as in
#: ``make compare``: a finding in a report is one that holds.
SETTLE = 3


@dataclass(frozen=True)
class Request:
    """What the user asked for on the command line."""

    client: str | None = None
    server: str | None = None
    name: str | None = None
    out: Path | None = None
    areas: tuple[str, ...] = ()
    scenarios: tuple[str, ...] = ()
    revisions: tuple[str, ...] = ()
    beside: tuple[str, ...] = ()
    fail_on: str = "fail"
    jobs: int | None = None
    repeat: int = 1


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "program"


def _default_name(command: str) -> str:
    """The program's name when none is given: its command's base name (``npx -y pkg`` and
    ``python -m mod`` name the package or module), or a URL's address."""
    if "://" in command:  # a server given by its URL: where it listens
        return command.split("://", 1)[1].strip().rstrip("/") or "server"
    words = command.split()
    for i, word in enumerate(words[:-1]):
        if word in ("-m", "-y", "--yes", "exec", "run") and not words[i + 1].startswith("-"):
            return Path(words[i + 1]).name
    first = re.sub(r"^\{(?:node_bin|own_bin|python):([^}]+)\}$", r"\1", words[0]) if words else ""
    return Path(first).name if first else "program"


def _scenarios_of(areas: tuple[str, ...], directory: Path | None = None) -> list[str]:
    """Every scenario a row of these areas reads (a derived row: both it names)."""
    files = [load_yaml(path) for path in area_files(directory)]
    known = {area.get("area") for area in files}
    unknown = sorted(set(areas) - known)
    if unknown:
        raise CompareError(
            f"unknown area: {', '.join(unknown)}", f"known areas: {', '.join(sorted(known))}"
        )
    out: set[str] = set()
    for area in files:
        if area.get("area") not in areas:
            continue
        for row in area.get("rows") or []:
            scenario = row_scenario(row)
            if scenario:
                out.add(scenario)
            derive = (row.get("status") or {}).get("derive") or {}
            several = ((derive.get("from") or {}).get("several") or {}).get("scenario")
            if several:
                out.add(str(several))
    return sorted(out)


def _folder(request: Request, name: str) -> Path:
    out = (request.out or checks_dir() / _slug(name)).absolute()
    published_results = results_dir().absolute()
    if out == published_results or published_results in out.parents:
        raise CompareError(
            f"--out {out} is inside the published results folder",
            "a check keeps its cells apart from the matrix: choose another folder",
        )
    return out


@dataclass(frozen=True)
class Plan:
    """What a request comes to: the program, its folder and the cells to play."""

    program: Program
    out: Path
    cells: list[Any]
    commit: str
    known_revisions: list[str]
    sides: dict[str, str]
    write_ops: dict[str, set[str]]


def plan(request: Request) -> Plan:
    """Check the request and choose its cells (nothing is played or written yet)."""
    from compare.exchange._scenarios import load_scenarios
    from compare.play._run import select
    from compare.rows._derive import write_operations

    if (request.client is None) == (request.server is None):
        raise CompareError(
            "say what to check: --client COMMAND or --server COMMAND (one of them)",
            "e.g. mcp-compare check --server 'python my_server.py'",
        )
    if request.fail_on not in THRESHOLDS:
        raise CompareError(
            f"--fail-on {request.fail_on}: not a threshold", f"one of {', '.join(THRESHOLDS)}"
        )
    _pinned()
    side = "server" if request.server is not None else "client"
    command = str(request.server if side == "server" else request.client)
    target = "server-command" if side == "server" else "command"
    name = request.name or _default_name(command)
    out = _folder(request, name)
    wanted = list(request.scenarios) or (_scenarios_of(request.areas) if request.areas else [])
    all_scenarios = load_scenarios()
    sides = {s.id: s.side for s in all_scenarios}
    if wanted:
        wanted = [s for s in wanted if sides.get(s, side) == side]
        if not wanted:
            raise CompareError(
                f"no {side} scenario in that selection", f"a {side} plays {side} scenarios"
            )
    cells, commit, known_revisions = select(
        [target], wanted or None, list(request.revisions) or None, None, command
    )
    if not cells:
        raise CompareError(
            f"nothing to play for a {side}", "widen --area, --scenario or --revision"
        )
    version = cells[0].target.version
    program = Program(target=target, version=version, side=side, name=name, command=command)
    return Plan(
        program, out, cells, commit, known_revisions, sides, write_operations(all_scenarios)
    )


def _play(chosen: Plan, request: Request) -> list[dict[str, Any]]:
    """Play the cells into the check's folder, with the run's own progress line on stderr
    (a whole side is a few hundred exchanges)."""
    from compare._cores import default_jobs
    from compare._progress import CellProgress
    from compare.play._run import run as play
    from compare.play._shard import declared_waits

    weights = {c.label: 1.0 + declared_waits(c) for c in chosen.cells}
    with CellProgress(len(chosen.cells), sys.stderr, weights=weights) as progress:
        return play(
            chosen.cells,
            chosen.commit,
            chosen.known_revisions,
            results=chosen.out / "results",
            jobs=default_jobs() if request.jobs is None else request.jobs,
            repeat=request.repeat,
            settle=SETTLE,
            on_done=progress.on_done,
        )


def _selected(chosen: Plan) -> Cells:
    """The cells of this selection as stored: cells an earlier, wider check of the same
    command left in the folder do not speak for this report."""
    from compare.rows._cells import read_cells

    read = read_cells(chosen.out / "results")
    wanted = {(c.scenario.id, c.revision) for c in chosen.cells}
    version = chosen.program.version
    return Cells(
        cells=[
            c for c in read.cells
            if c.target == chosen.program.target and c.version == version
            and (c.scenario, c.revision) in wanted
        ],
        broken=read.broken,
    )  # fmt: skip


def _pinned() -> None:
    """The pinned spec files in the cache, verified (fetched from ``MCP_COMPARE_SPEC``, the
    upstream repository or ``../shared/mcp-spec`` when missing, as ``make compare`` does):
    the judge reads its sentences there, and a user who only ran ``make venv`` has none."""
    from compare.pin import load_pins, verify

    verify(load_pins(), None, lambda message: print(message, file=sys.stderr))


def check(request: Request) -> tuple[int, str, dict[str, Any]]:
    """Play and report; returns (exit status, terminal summary, report)."""
    from compare.play._run import errors

    chosen = plan(request)
    verdicts = _play(chosen, request)
    program, results = chosen.program, chosen.out / "results"
    cells = _selected(chosen)
    played = {c.scenario.id for c in chosen.cells}
    areas = checked_areas(program, cells, results, chosen.sides, chosen.write_ops, played)
    wanted = list(request.beside) or default_beside(program.side)
    report = build(
        program=program,
        areas=areas,
        other=stray_findings(program, cells, results, areas),
        read_by=readers(chosen.sides, program.side),
        verdicts=verdicts,
        errors=errors(verdicts),
        beside=published(build_dir() / "rows.json", wanted),
        spec_commit=chosen.commit,
        revisions=sorted({c.revision for c in chosen.cells}, key=release_order),
        checked_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        threshold=request.fail_on,
    )
    return _write(report, chosen, cells)


def _write(report: dict[str, Any], chosen: Plan, cells: Cells) -> tuple[int, str, dict[str, Any]]:
    """Write the four reports beside the results (each atomically); returns the exit status,
    the terminal summary and the report."""
    out, results = chosen.out, chosen.out / "results"
    files = {"html": "report.html", "json": "report.json", "junit": "junit.xml"}
    files["summary"] = "summary.txt"
    report["files"] = files | {"results": "results"}
    problems = validate(report)
    if problems:  # ours, not the user's: say so plainly rather than write a bad report
        raise CompareError(f"the check's report does not fit its schema: {problems[0]}", None)
    stderr = "server.stderr" if chosen.program.side == "server" else "client.stderr"
    listed = [
        {
            "folder": relative_posix(c.path, results),
            "scenario": c.scenario,
            "revision": c.revision,
            "verdict": c.verdict,
            "reason": c.reason,
            "stderr": stderr,
        }
        for c in sorted(cells.cells, key=lambda c: (c.scenario, release_order(c.revision)))
    ]
    write_json(out / files["json"], report)
    write_text(out / files["html"], _html.html(report, results, listed))
    write_bytes(out / files["junit"], _junit.junit(report))
    shown = {kind: str(out / file) for kind, file in files.items()}
    text = _terminal.summary(report, shown)
    write_text(out / files["summary"], text + "\n")
    return (1 if report["result"]["outcome"] == "fail" else 0), text, report
