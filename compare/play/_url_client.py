"""A client that connects to a URL (``{url}`` in its launch line) instead of starting our
server: the harness starts the peer first, serving Streamable HTTP at 127.0.0.1 only, hands
the client its URL, and ends the peer once the client is done.

Over HTTP the peer keeps a record per session (a client may open more than one) beside the
process's own (where it listened, requests of no session). :func:`merge_sessions` puts them
into the cell's one ``transcript.jsonl``, in time order, and the first session's account of
its steps into ``done.json``, so the judge reads the cell as it reads a client on stdio.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from compare import _atomic
from compare.play._proxy import free_port, read_recording, renumber_note

#: The peer process's own record and account; each session's are ``peer-s<N>.*`` beside them.
PEER_RECORD = "peer.jsonl"
PEER_DONE = "peer.done.json"
PEER_STDERR = "peer.stderr"
#: How long the peer may take to listen, and to leave once asked to.
READY_S = 10.0
STOP_S = 5.0


def _listening(port: int, proc: subprocess.Popen[bytes], within: float) -> bool:
    """Whether something accepts on 127.0.0.1:``port`` before ``within`` seconds pass (or
    the peer exits)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        with socket.socket() as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (each session writes its account), then SIGKILL if it is still there."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(STOP_S)


@contextlib.contextmanager
def serving(
    plan: dict[str, Any], stage: Path, argv_of: Callable[[Path], list[str]]
) -> Iterator[str]:
    """Run the peer of ``plan`` over Streamable HTTP for the length of the block; yields the
    URL the client is handed. ``argv_of(plan_path)`` is how the peer is started.

    The peer's plan lies in a folder of its own, named by nothing of the cell's: the harness
    ends whatever names the stage or the cell's token once a setup command or the client is
    gone, and the peer must outlive both to write its account (it is ended here, by
    ``_stop``). Its records go into ``stage``."""
    own = Path(tempfile.mkdtemp(prefix="mcpc-peer-"))
    try:
        yield from _serve(plan, stage, own, argv_of)
    finally:
        shutil.rmtree(own, ignore_errors=True)


def _serve(
    plan: dict[str, Any], stage: Path, folder: Path, argv_of: Callable[[Path], list[str]]
) -> Iterator[str]:
    port = free_port()
    # a scenario may ask our end for a JSON answer, the legacy transport at the same URL, or a
    # session that ends after the handshake (``peer_http``)
    transport = {"kind": "http", "port": port, "path": "/mcp", **(plan.get("peer_http") or {})}
    # the peer writes its account once every session is played, and keeps serving (a
    # client's DELETE may come after) until ``_stop`` ends it
    served = {**plan, "transport": transport, "serve_after_done": True}
    served.update(transcript=str(stage / PEER_RECORD), done=str(stage / PEER_DONE))
    path = folder / "peer-plan.json"
    _atomic.write_json(path, served)
    # the judge's copy says how the exchange travelled (the refs of one transport's page)
    _atomic.write_json(stage / "plan.json", {**plan, "transport": served["transport"]})
    with open(stage / PEER_STDERR, "wb") as err:
        proc = subprocess.Popen(
            argv_of(path),
            stdin=subprocess.DEVNULL,
            stdout=err,
            stderr=err,
            start_new_session=True,
        )
    try:
        if not _listening(port, proc, READY_S):
            raise RuntimeError(f"our peer did not listen on 127.0.0.1:{port} in {READY_S:g} s")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        _stop(proc)


def _session_files(stage: Path) -> list[Path]:
    """The sessions' records, in the order they were opened."""
    found = [p for p in stage.glob("peer-s*.jsonl") if p.stem[len("peer-s") :].isdigit()]
    return sorted(found, key=lambda p: int(p.stem[len("peer-s") :]))


def merge_sessions(stage: Path) -> Path:
    """Write ``transcript.jsonl`` (every record of the process and its sessions, by time,
    numbered afresh) and ``done.json`` (the first session's account, with how many sessions
    there were); returns the transcript's path."""
    items = [stage / PEER_RECORD, *_session_files(stage)]
    clocks: list[float] = []
    legs: list[tuple[list[dict[str, Any]], float | None]] = []
    problems: list[str] = []
    for path in items:
        if not path.is_file():
            continue
        records, clock, problem = read_recording(path)
        legs.append((records, clock))
        if clock is not None:
            clocks.append(clock)
        if problem:
            problems.append(problem)
    base = min(clocks) if clocks else 0.0
    merged: list[tuple[float, int, int, dict[str, Any]]] = []
    for order, (records, clock) in enumerate(legs):
        offset = (clock - base) if clock is not None else 0.0
        for rec in records:
            merged.append((float(rec["t"]) + offset, order, int(rec.get("n", 0) or 0), rec))
    merged.sort(key=lambda item: (item[0], item[1], item[2]))
    # a note's references to its own file's lines, and the accounts' evidence, follow them
    renumber = {(order, n): index for index, (_, order, n, _) in enumerate(merged, start=1)}
    lines = []
    first = 1 if (stage / PEER_RECORD).is_file() else 0  # the order of the first session
    for index, (t, order, _n, rec) in enumerate(merged, start=1):
        rec = {**rec, "n": index, "t": round(t, 6)}
        if order >= first and rec.get("dir") != "note":
            rec["session"] = order - first + 1  # whose ids these are (hygiene pairs per session)
        if rec.get("dir") == "note":
            rec["raw"] = renumber_note(rec.get("raw"), order, renumber)
        lines.append(json.dumps(rec, ensure_ascii=False))
    out = stage / "transcript.jsonl"
    _atomic.write_text(out, "\n".join(lines) + ("\n" if lines else ""))
    sessions = _session_files(stage)
    done = _first_done(stage, sessions)
    for step in done.get("steps") or []:
        if isinstance(step, dict) and isinstance(step.get("evidence"), int):
            step["evidence"] = renumber.get((first, step["evidence"]), step["evidence"])
    done["sessions"] = len(sessions)
    if problems:
        done["unmerged"] = problems
    _atomic.write_json(stage / "done.json", done)
    return out


def _first_done(stage: Path, sessions: list[Path]) -> dict[str, Any]:
    """The first session's account of its steps; the process's when no session was opened
    (the client never connected)."""
    for path in [*(s.with_name(s.stem + ".done.json") for s in sessions[:1]), stage / PEER_DONE]:
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(value, dict):
            return value
    return {"reason": "our peer wrote no account", "steps": [], "t": 0.0}
