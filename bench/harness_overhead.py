"""How much the harness costs per cell, and how fast the peer starts.

    .venv/bin/python bench/harness_overhead.py [--runs N] [--target ts-sdk]

Measures, each as the median of N runs:

1. a bare ``python -I -S -c pass``, and the peer started the same way until it exits on
   end of input (start-up cost of the peer itself);
2. the peer's time to answer ``initialize`` from process start, next to the trivial server's;
3. the same SDK host program doing its bare handshake against ``bench/trivial_server.py``
   (no harness, no peer, no judging), launched exactly as the target file says;
4. one ``handshake`` cell of that target through the harness (``run_cells``, with --force):
   the cell's wall time, and what the harness adds on top of (3).

Prints figures only; nothing here asserts a time (speed is measured, not tested).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Measure this checkout's code: run as a script, sys.path starts at bench/, and the venv's
# editable install may point at another checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from compare._paths import tools_dir
from compare.exchange._host_plan import write_host_plan
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import Expansion, Target, load_targets
from compare.models import first_modern
from compare.pin import load_pins
from compare.play._cells import Cell
from compare.play._harness import HOSTS_DIR, WORKSPACE_NAME, RunSettings, peer_argv, run_cells

HERE = Path(__file__).resolve().parent
TRIVIAL = HERE / "trivial_server.py"
INIT = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
)


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _time(argv: list[str], data: bytes = b"", cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=data, capture_output=True, cwd=cwd, timeout=120, check=False)
    return time.perf_counter() - start


def _first_reply(argv: list[str]) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    proc.stdin.write(INIT.encode() + b"\n")
    proc.stdin.flush()
    proc.stdout.readline()
    elapsed = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(timeout=30)
    return elapsed


def _peer_plan(folder: Path) -> Path:
    plan = folder / "plan.json"
    plan.write_text(
        json.dumps(
            {
                "revision": "2025-11-25",
                "answer_revision": "2025-11-25",
                # the era boundary the harness writes into every plan (the peer refuses one
                # without it)
                "first_modern": first_modern(list(load_pins().revision_names)),
                # waits (bounded) for a notification the bench never sends: ends on end of input
                "steps": [{"await": "notifications/initialized", "timeout_s": 10}],
                "control": str(folder / "control"),
                "linger_s": 0,
            }
        ),
        encoding="utf-8",
    )
    return plan


def bare_handshake(target: Target, tmp: Path) -> Callable[[], float]:
    """A timer of ``target``'s SDK host doing its bare handshake against the trivial server,
    launched exactly as the target file says (no harness, no peer, no judging); ``tmp`` holds
    its workspace, home and plan."""
    trivial_argv = [sys.executable, "-I", "-S", str(TRIVIAL)]
    workspace = tmp / WORKSPACE_NAME
    workspace.mkdir()
    (tmp / "home").mkdir()
    exp = Expansion(
        server_argv=trivial_argv,
        workspace=workspace,
        home=tmp / "home",
        tools=tools_dir(),
        hosts=HOSTS_DIR,
        control=tmp / "control",
        cell=tmp,
        host_plan=write_host_plan(target.variants, "roots", tmp, workspace, tmp / "control"),
    )
    host_argv = exp.argv(target.argv)
    env = {**os.environ, **{k: exp.text(v) for k, v in target.env.items()}}

    def bare_host() -> float:
        start = time.perf_counter()
        subprocess.run(host_argv, cwd=workspace, env=env, capture_output=True, timeout=120)
        return time.perf_counter() - start

    return bare_host


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--target", default="ts-sdk")
    args = parser.parse_args()
    runs = args.runs
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        plan = _peer_plan(tmp)
        bare = _median([_time([sys.executable, "-I", "-S", "-c", "pass"]) for _ in range(runs)])
        peer = _median([_time(peer_argv(plan)) for _ in range(runs)])
        peer_init = _median([_first_reply(peer_argv(plan)) for _ in range(runs)])
        trivial_argv = [sys.executable, "-I", "-S", str(TRIVIAL)]
        trivial_init = _median([_first_reply(trivial_argv) for _ in range(runs)])
        print(f"python -I -S -c pass            {bare * 1000:8.1f} ms")
        extra = (peer - bare) * 1000
        print(f"peer start to exit (no input)   {peer * 1000:8.1f} ms  (+{extra:.1f} ms)")
        print(f"peer: initialize answered after {peer_init * 1000:8.1f} ms")
        print(f"trivial server: same            {trivial_init * 1000:8.1f} ms")

        target = next((t for t in load_targets() if t.id == args.target), None)
        if target is None or not (tools_dir() / "node_modules").exists():
            print(
                f"host baseline: not run, because target {args.target} or tools/ is missing "
                "(run: mcp-compare tools install)"
            )
            return
        bare_host = bare_handshake(target, tmp)
        host = _median([bare_host() for _ in range(runs)])
        pins = load_pins()
        scenario = next(s for s in load_scenarios() if s.id == "handshake")
        variant = "roots" if "roots" in target.variants else "default"
        cell = Cell(target, variant, scenario, "2025-11-25")
        settings = RunSettings(tmp / "results", pins.commit, list(pins.revision_names), force=True)
        walls, clients = [], []
        for _ in range(runs):
            start = time.perf_counter()
            [verdict] = run_cells([cell], settings)
            walls.append(time.perf_counter() - start)
            clients.append(float((verdict.get("process") or {}).get("client_s", 0.0)))
        wall, client = _median(walls), _median(clients)
        print(
            f"{target.id} {target.version} bare handshake vs trivial server {host * 1000:8.1f} ms"
        )
        print(
            f"{target.id} handshake cell through the harness   {wall * 1000:8.1f} ms"
            f"  (client process {client * 1000:.1f} ms; verdict {verdict['verdict']})"
        )
        print(
            f"harness overhead per cell                       {(wall - host) * 1000:8.1f} ms"
            f"  (of which outside the client process {(wall - client) * 1000:.1f} ms)"
        )


if __name__ == "__main__":
    main()
