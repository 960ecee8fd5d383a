"""Helpers of the kill tests: start ``mcp-compare`` as a child, signal it, and look at what it
left — processes still alive, files a later stage would read.

A process belongs to a test's run when its environment or command line names the test's own
temporary folder (every cell process carries ``MCP_COMPARE_CELL_DIR`` under the results
folder, every peer names its plan there, mkdocs and installers inherit ``MCP_COMPARE_*``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from compare._paths import PROJECT_ROOT
from compare.judge._verdicts import VERDICTS as EXCHANGE_VERDICTS
from compare.site._matrix import FORMAT as MATRIX_FORMAT

SIGNALS = (signal.SIGKILL, signal.SIGTERM, signal.SIGINT)
#: After a kill, everything of the run must be gone within this bound.
GONE_WITHIN_S = 5.0


def carriers(needle: str) -> list[int]:
    """Live processes (not zombies, not this one) whose environment or command line holds
    ``needle``."""
    mark = needle.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
            if stat[stat.rfind(b")") + 2 :].split()[0] == b"Z":
                continue
        except (OSError, IndexError):
            continue
        for name in ("environ", "cmdline"):
            try:
                if mark in Path(f"/proc/{entry}/{name}").read_bytes():
                    found.append(int(entry))
                    break
            except OSError:
                continue
    return found


def gone_after(needle: str, bound: float = GONE_WITHIN_S) -> tuple[float, list[int]]:
    """Seconds until no process carries ``needle`` (polling), and who was left at the bound."""
    start = time.monotonic()
    while True:
        left = carriers(needle)
        waited = time.monotonic() - start
        if not left or waited > bound:
            return waited, left
        time.sleep(0.02)


def env_for(root: Path, cache: Path, **extra: str) -> dict[str, str]:
    """The environment of an ``mcp-compare`` child working entirely under ``root``."""
    env = dict(os.environ)
    env.pop("MCP_COMPARE_RUN", None)
    env.update(
        PYTHONPATH=str(PROJECT_ROOT),
        MCP_COMPARE_CACHE=str(cache),
        MCP_COMPARE_RESULTS=str(root / "results"),
        MCP_COMPARE_BUILD=str(root / "build"),
        MCP_COMPARE_SITE=str(root / "site"),
    )
    env.update(extra)
    return env


def start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "compare", *args],
            cwd=PROJECT_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


@dataclass
class Tally:
    """What the kills did: tried, survived (all three properties held), and the slowest
    wait for the last process to go."""

    tried: int = 0
    #: Kills that found mcp-compare still running (the rest came after it had finished).
    landed: int = 0
    survived: int = 0
    by_signal: dict[str, int] = field(default_factory=dict)
    slowest_s: float = 0.0
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        signals = ", ".join(f"{k} {v}" for k, v in sorted(self.by_signal.items()))
        return (
            f"kills tried {self.tried} ({self.landed} into a running mcp-compare), survived "
            f"{self.survived} ({signals}); every process of the run gone at most "
            f"{self.slowest_s:.2f} s after its signal"
        )


def kill_and_check(
    proc: subprocess.Popen[bytes], sig: signal.Signals, root: Path, tally: Tally, label: str
) -> None:
    """Send ``sig``, reap the child, then check (a) no process of the run is left after the
    bound and (b) every state file under ``root`` is whole."""
    tally.tried += 1
    tally.by_signal[sig.name] = tally.by_signal.get(sig.name, 0) + 1
    sent = time.monotonic()
    if proc.poll() is None:
        tally.landed += 1
        proc.send_signal(sig)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        tally.problems.append(f"{label}: {sig.name} did not end mcp-compare within 30 s")
        return
    _, left = gone_after(str(root))
    # From the signal to the last process of the run gone (mcp-compare's own exit included).
    tally.slowest_s = max(tally.slowest_s, time.monotonic() - sent)
    problems = [f"{label}: processes left {left}"] if left else []
    problems += [f"{label}: {p}" for p in broken_files(root)]
    tally.problems += problems
    if not problems:
        tally.survived += 1


VERDICTS = set(EXCHANGE_VERDICTS)


def broken_files(root: Path) -> list[str]:
    """Every verdict, stamp, rows, diff, matrix and citations file under ``root`` that does
    not parse or lacks what its readers need (a half-written file would show here)."""
    found = []
    # os.walk, not rglob: the watchdog may still be removing a killed cell's staging folder.
    paths = [Path(d, n) for d, _, names in os.walk(root) for n in names if n.endswith(".json")]
    for path in paths:
        name = path.name
        if not (
            name == "verdict.json"
            or path.parent.name == "stamps"
            or name in {"rows.json", "diff.json", "matrix.json", "citations.json"}
        ):
            continue
        try:
            data = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            continue  # a staging folder removed meanwhile
        except (OSError, ValueError) as err:
            found.append(f"{path}: {err}")
            continue
        # matrix.json is the published file and has its own format number; the rest are 1.
        expected = MATRIX_FORMAT if name == "matrix.json" else 1
        if not isinstance(data, dict) or data.get("format") != expected:
            found.append(f"{path}: not a format-{expected} object")
        elif name == "verdict.json" and (
            data.get("verdict") not in VERDICTS or not data.get("key") or not data.get("target")
        ):
            found.append(f"{path}: verdict incomplete")
        elif path.parent.name == "stamps" and len(str(data.get("inputs", ""))) != 64:
            found.append(f"{path}: stamp incomplete")
    return found


def finished_cells(results: Path) -> dict[str, str]:
    """Cell folder (relative) -> verdict, for every cell in place (staging, ``.old-`` and
    ``error`` cells left out: those are played again)."""
    cells = {}
    for path in results.glob("*/*/*/*/verdict.json"):
        rel = path.parent.relative_to(results)
        if any(p.startswith(".") or ".old-" in p for p in rel.parts):
            continue
        verdict = json.loads(path.read_text("utf-8"))["verdict"]
        if verdict != "error":
            cells[str(rel)] = verdict
    return cells
