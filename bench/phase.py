"""Run one part of ``make test`` and record how long it took (read by ``bench/ci.py``).

    python bench/phase.py NAME -- COMMAND [ARG ...]

Runs COMMAND, then appends one JSON line ``{"phase", "seconds", "cpu_s", "exit"}`` to the
file named by ``MCP_COMPARE_PHASES`` (default ``build/phases.jsonl``) and exits with
COMMAND's code. The figures are also printed, so CI's log shows what each part cost.
Standard library only: it runs before anything is installed. Nothing asserts a time.

``cpu_s`` is the user plus system time of COMMAND and every descendant that was waited for
(``getrusage(RUSAGE_CHILDREN)``; a daemon that outlives its parent is not counted, so it is
a lower bound). Divided by the cores, it is the least wall time the part can take without
doing less work: what tells a scheduling gain from one that needs the work itself cut.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: phase.py NAME -- COMMAND [ARG ...]", file=sys.stderr)
        return 2
    name, command = argv[0], argv[2:]
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        code = subprocess.call(command)
    except OSError as err:
        print(f"phase {name}: cannot run {command[0]}: {err}", file=sys.stderr)
        code = 127
    seconds = round(time.monotonic() - start, 1)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    cpu_s = round(cpu, 1)
    out = Path(os.environ.get("MCP_COMPARE_PHASES") or ROOT / "build" / "phases.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"phase": name, "seconds": seconds, "cpu_s": cpu_s, "exit": code}) + "\n"
    # One write of one short line in append mode: parts that run side by side do not
    # interleave their records.
    with out.open("a", encoding="utf-8") as handle:
        handle.write(line)
    print(f"phase {name}: {seconds} s, {cpu_s} s of CPU (exit {code})", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
