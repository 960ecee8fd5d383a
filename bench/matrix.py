"""The whole matrix's wall time next to the bound of issue 11, target 3, and next to the
scheduling before issue 26 (target 2: at most half its wall time, at equal verdicts).

    .venv/bin/python bench/matrix.py [--targets ts-sdk,py-sdk] [--scenarios handshake]
                                     [--revisions 2025-11-25] [--jobs N] [--identity]
                                     [--before]

Runs the selected cells (default: every target × scenario × revision) with ``--force`` into a
temporary results folder, ``--jobs`` as ``mcp-compare run`` has it (four cells in flight per
core, as many starting at once as there are cores), and prints one JSON object:

- ``wall_s``: that run's wall time;
- ``bound_s`` = 1.2 × (sum over the cells that ran of the cell's bare client time) / cores,
  where a cell's bare client time is its target's bare time plus its scenario's absence
  windows (``definition`` in the output says exactly how each is measured);
- ``ratio`` = wall / bound (target: at most 1);
- ``cpu_s``: the CPU the run used, this process and the cells' processes alike, and
  ``cpu_floor_s`` = cpu_s / cores, below which no schedule can bring the wall time;
- with ``--before``, the same cells first played one per core (``--jobs`` = the cores: no
  more cells in flight than cores, as every run was before issue 26), that run's wall time,
  the ratio of the two and whether every cell got the same key and verdict;
- with ``--identity``, the same cells again with ``--jobs 1``, and whether every cell got the
  same key and verdict (and the serial wall time).

A target's bare time is measured once per run of this script (median of ``--runs``, default
3). Prints figures only; nothing here asserts a time. The full matrix takes minutes: try a
subset first with ``--targets`` / ``--scenarios``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from harness_overhead import INIT, TRIVIAL, _median

from compare._cores import default_jobs, usable_cores
from compare._paths import tools_dir
from compare.exchange._host_plan import write_host_plan
from compare.exchange._scenarios import Scenario
from compare.exchange._targets import Expansion, Target
from compare.play._cellenv import cell_env as _env
from compare.play._cellenv import write_files as _write_files
from compare.play._cells import Cell
from compare.play._harness import HOSTS_DIR, WORKSPACE_NAME
from compare.play._proc import run_process
from compare.play._run import run, select

DEFINITION = {
    "bare_client_time": (
        "target bare time + the scenario's absence windows. Client targets: the client "
        "launched exactly as its target file says (argv, env, files, setup commands, "
        "isolated HOME, as the harness does) with bench/trivial_server.py as its stdio server "
        "instead of our peer; timed from launch until the client exits (or, for a client the "
        "harness ends, until the trivial server has finished the handshake and tools/list). "
        "Server and proxy targets: the target's own launch line (a proxy's upstream is the "
        "trivial server) driven by a minimal stdio client (initialize, "
        "notifications/initialized, tools/list, close stdin), timed until the process exits "
        "(killed 10 s after stdin closed). Median of --runs, measured once per target."
    ),
    "absence_windows": (
        "sum of observe_s over the scenario's steps (for a proxy scenario the larger of its "
        "host steps' and upstream_steps' sums, which run at the same time): waits that are "
        "data in the scenario, where an absence must be observed; they cannot be shortened."
    ),
    "bound": "1.2 × sum over cells run (verdict not not-run) of bare client time / cores",
}

#: Writes a file once the trivial server has returned (the handshake and tools/list are done).
_NOTIFY = (
    "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__'); "
    "open(sys.argv[2], 'w').close()"
)


def absence_s(scenario: Scenario) -> float:
    """The scenario's declared absence windows (``observe_s``), in seconds."""

    def total(steps: Any) -> float:
        return sum(float(s.get("observe_s", 0)) for s in steps or [] if isinstance(s, dict))

    return max(total(scenario.steps), total(scenario.raw.get("upstream_steps")))


def _folders(tmp: Path) -> tuple[Path, Path, Path]:
    home, workspace, control = tmp / "home", tmp / WORKSPACE_NAME, tmp / "control"
    for folder in (home, workspace, control, tmp / "tmp", tmp / "run", tmp / "out"):
        folder.mkdir(parents=True, exist_ok=True)
    return home, workspace, control


def _expansion(target: Target, tmp: Path, server_argv: list[str]) -> Expansion:
    home, workspace, control = _folders(tmp)
    variant = "roots" if "roots" in target.variants else next(iter(target.variants), "")
    return Expansion(
        server_argv=server_argv,
        workspace=workspace,
        home=home,
        tools=tools_dir(),
        hosts=HOSTS_DIR,
        control=control,
        cell=tmp / "out",
        host_plan=write_host_plan(target.variants, variant, tmp / "out", workspace, control),
    )


def _bare_client_once(target: Target) -> float:
    """One bare run of a client target against the trivial server (see DEFINITION)."""
    token = "mcpc-" + secrets.token_hex(8)
    tmp = Path(tempfile.mkdtemp(prefix=f"{token}-"))
    try:
        done = tmp / "trivial.done"
        server = [sys.executable, "-I", "-S", "-c", _NOTIFY, str(TRIVIAL), str(done)]
        exp = _expansion(target, tmp, server)
        env = _env(target, exp, token, tmp, tools_dir())
        _write_files(target, exp)
        out = tmp / "out"
        start = time.perf_counter()
        for template in target.setup:
            run_process(
                exp.argv(template),
                cwd=exp.workspace,
                env=env,
                stdout=out / "setup.stdout",
                stderr=out / "setup.stderr",
                timeout_s=target.timeout_s,
                markers=[token],
                should_end=lambda: False,
                ends_self=True,
            )
        run_process(
            exp.argv(target.argv),
            cwd=exp.workspace,
            env=env,
            stdout=out / "client.stdout",
            stderr=out / "client.stderr",
            timeout_s=target.timeout_s,
            markers=[token],
            should_end=done.exists,
            ends_self=target.ends == "self",
        )
        return time.perf_counter() - start
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _message(method: str, rid: int | None = None, params: Any = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if rid is not None:
        msg["id"] = rid
    if params is not None:
        msg["params"] = params
    return json.dumps(msg).encode() + b"\n"


def _bare_server_once(target: Target) -> float:
    """One bare handshake of a minimal client with a server (or a proxy to the trivial
    server), from launch until the process exits after stdin is closed."""
    tmp = Path(tempfile.mkdtemp(prefix="mcpc-bare-"))
    try:
        trivial = [sys.executable, "-I", "-S", str(TRIVIAL)]
        exp = _expansion(target, tmp, trivial if target.side == "proxy" else [])
        env = _env(target, exp, "mcpc-bare", tmp, tools_dir())
        _write_files(target, exp)
        start = time.perf_counter()
        proc = subprocess.Popen(
            exp.argv(target.argv),
            cwd=exp.workspace,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert proc.stdin and proc.stdout
        stdin, stdout = proc.stdin, proc.stdout

        def talk() -> None:
            def until(rid: int) -> None:
                for line in stdout:  # skip the server's own requests and notifications
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(msg, dict) and msg.get("id") == rid and "method" not in msg:
                        return

            stdin.write(INIT.encode() + b"\n")
            stdin.flush()
            until(0)
            stdin.write(_message("notifications/initialized") + _message("tools/list", 1, {}))
            stdin.flush()
            until(1)
            stdin.close()

        talker = threading.Thread(target=talk, daemon=True)
        talker.start()
        talker.join(timeout=target.timeout_s)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        return time.perf_counter() - start
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bare_s(target: Target, runs: int) -> float:
    """The target's bare time: median of ``runs`` (see DEFINITION)."""
    once = _bare_client_once if target.side == "client" else _bare_server_once
    return _median([once(target) for _ in range(runs)])


def _identity(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> dict[str, Any]:
    def facts(v: dict[str, Any]) -> tuple[Any, ...]:
        return (v.get("target"), v.get("variant"), v.get("scenario"), v.get("revision"))

    a = {facts(v): (v.get("key"), v.get("verdict")) for v in first}
    b = {facts(v): (v.get("key"), v.get("verdict")) for v in second}
    differ = sorted(" ".join(map(str, k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    return {"same": not differ, "compared": len(a), "differing": differ}


def _cpu_s() -> float:
    """User and system CPU seconds so far of this process and of its waited-for children
    (a cell's client, and through it the peer and whatever else it started and reaped)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", help="comma-separated target ids (default: all)")
    parser.add_argument("--scenarios", help="comma-separated scenario ids (default: all)")
    parser.add_argument("--revisions", help="comma-separated revisions (default: all pinned)")
    parser.add_argument("--jobs", type=int, default=None, help="default: run's (4 per core)")
    parser.add_argument(
        "--before",
        action="store_true",
        help="also play the cells one per core (the scheduling before issue 26) and compare",
    )
    parser.add_argument("--runs", type=int, default=3, help="bare runs per target (median)")
    parser.add_argument("--identity", action="store_true", help="also run serially, compare")
    args = parser.parse_args()

    def split(text: str | None) -> list[str] | None:
        return [p for p in text.split(",") if p] if text else None

    cells, commit, known = select(split(args.targets), split(args.scenarios), split(args.revisions))
    cores = usable_cores()
    jobs = args.jobs or default_jobs()
    with tempfile.TemporaryDirectory(prefix="mcpc-matrix-") as tmp_name:
        tmp = Path(tmp_name)
        before: dict[str, Any] | None = None
        if args.before:
            start, cpu = time.perf_counter(), _cpu_s()
            old = run(cells, commit, known, results=tmp / "before", jobs=cores, force=True)
            before = {
                "jobs": cores,
                "wall_s": round(time.perf_counter() - start, 3),
                "cpu_s": round(_cpu_s() - cpu, 1),
            }
        start, cpu = time.perf_counter(), _cpu_s()
        verdicts = run(cells, commit, known, results=tmp / "parallel", jobs=jobs, force=True)
        wall = time.perf_counter() - start
        cpu_s = _cpu_s() - cpu
        if before is not None:
            before |= _identity(old, verdicts) | {
                "ratio": round(wall / before["wall_s"], 3) if before["wall_s"] else None,
                "target_ratio": 0.5,
            }
        identity: dict[str, Any] | None = None
        if args.identity:
            start = time.perf_counter()
            serial = run(cells, commit, known, results=tmp / "serial", jobs=1, force=True)
            identity = _identity(verdicts, serial) | {
                "serial_wall_s": round(time.perf_counter() - start, 3)
            }
    ran: list[Cell] = [
        c for c, v in zip(cells, verdicts, strict=True) if v.get("verdict") != "not-run"
    ]
    bare = {t.id: bare_s(t, args.runs) for t in {c.target.id: c.target for c in ran}.values()}
    absence = {s.id: absence_s(s) for s in {c.scenario.id: c.scenario for c in ran}.values()}
    work = sum(bare[c.target.id] + absence[c.scenario.id] for c in ran)
    bound = 1.2 * work / cores
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    print(
        json.dumps(
            {
                "benchmark": "full matrix vs 1.2 × sum(bare client time) / cores (issue 11.3)",
                "selection": {
                    "targets": split(args.targets) or "all",
                    "scenarios": split(args.scenarios) or "all",
                    "revisions": split(args.revisions) or "all",
                },
                "cores": cores,
                "jobs": jobs,
                "cells": len(cells),
                "cells_run": len(ran),
                "verdicts": dict(sorted(counts.items())),
                "wall_s": round(wall, 3),
                # user + system CPU of this process and every process of the cells: no
                # schedule on these cores can end sooner than cpu_s / cores
                "cpu_s": round(cpu_s, 1),
                "cpu_floor_s": round(cpu_s / cores, 1),
                "bound_s": round(bound, 3),
                "ratio": round(wall / bound, 3) if bound else None,
                "sum_bare_client_s": round(work, 3),
                "target_bare_s": {k: round(v, 3) for k, v in sorted(bare.items())},
                "scenario_absence_s": dict(sorted(absence.items())),
                "identity": identity,
                "one_cell_per_core": before,
                "definition": DEFINITION,
            },
            indent=2,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
