"""Proxy cells: the harness plays both ends, and the two recordings become one transcript.

A proxy is a server to its host and a client to the servers behind it, so one cell needs both
of our scripted ends: the scripted client (``peer/client``) as the host above the proxy, and
the peer (``peer``) as the upstream server below it. The scripted client starts the proxy's
launch line, in which ``{server}`` / ``{server_argv}`` is the peer's command; the proxy starts
the peer (once, or once per session or request: each start records into its own file).

Each recorder writes its own file with times on its own monotonic clock and notes that clock's
start in its first record; :func:`merge_legs` puts every line of every file into
``transcript.jsonl`` in time order, marking the leg it travelled (``host`` or ``upstream``)
and which upstream connection it belongs to, so a relay (or its absence) reads line by line.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from compare import _atomic
from compare.exchange._targets import Expansion, Target
from compare.play._cells import Cell
from compare.play._server_plan import server_plan

#: File names inside a proxy cell's folder.
HOST_TRANSCRIPT = "host.jsonl"
UPSTREAM_PLAN = "upstream-plan.json"
UPSTREAM_GLOB = "upstream-*.jsonl"
PROXY_STDERR = "proxy.stderr"
#: The upstream peer's own output, when our client starts it (a proxy that connects over HTTP).
UPSTREAM_STDERR = "upstream.stderr"
#: What a server played over HTTP asked to listen on (the loopback preload's record).
LISTEN_LOG = "listen.jsonl"
#: How long the upstream peer keeps serving after its steps, at most: it must not leave
#: before the host is done, and the host ends the proxy (and so the peer) when it is.
UPSTREAM_LINGER_S = 30.0


def free_port() -> int:
    """A port nothing listens on now, on 127.0.0.1 (the kernel's pick; the socket is closed
    again, so the program told to listen there can bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def proxy_ports(target: Target) -> dict[str, Any]:
    """The placeholders of a proxy's (or an HTTP server's) HTTP ends: ``port`` (where it
    listens for our host) and ``upstream_url`` (where our peer listens for it); none for a
    stdio end."""
    out: dict[str, Any] = {}
    if target.external:  # already listening where its URL says
        out["port"] = int(urlsplit(str(target.transports["host_url"])).port or 0)
    elif target.transports["host"] != "stdio":
        out["port"] = free_port()
    kind = target.transports["upstream"]
    if kind != "stdio":
        out["upstream_url"] = f"http://127.0.0.1:{free_port()}/{'sse' if kind == 'sse' else 'mcp'}"
    return out


def http_end(cell: Cell, exp: Expansion) -> dict[str, Any] | None:
    """How the scripted client reaches a proxy or a server that listens over HTTP (the plan's
    ``transport``); None over stdio. The target is started with ``{port}`` filled in, and
    the client waits until something accepts there on 127.0.0.1 before it sends anything."""
    ends = cell.target.transports
    if ends["host"] == "stdio":
        return None
    get_stream = cell.scenario.raw.get("host_get_stream", ends.get("get_stream", True))
    end = {
        "kind": ends["host"],
        "url": exp.text(str(ends["host_url"])),
        "port": exp.port,
        "get_stream": bool(get_stream),
        "ready_timeout_s": 20,
    }
    if cell.target.external:  # not ours: nothing to start or end; where it listens, it chose
        end["external"] = True
    return end


def host_plan(
    cell: Cell, exp: Expansion, wire_version: str, first_modern: str | None, peer_plan: Path
) -> dict[str, Any]:
    """The scripted client's plan: a server plan whose server is the proxy's launch line;
    over HTTP also how to reach the proxy (``transport``) and the upstream peer it must start
    first (``upstream``)."""
    plan = server_plan(cell, exp, wire_version, first_modern)
    # A chain of gateways takes a few seconds to start before it can answer initialize.
    plan.update(side="host", transcript=HOST_TRANSCRIPT, server_stderr=PROXY_STDERR)
    plan["init_timeout_s"] = 20
    ends = cell.target.transports
    transport = http_end(cell, exp)
    if transport is not None:
        plan["transport"] = transport
    if ends["upstream"] != "stdio":
        plan["upstream"] = {
            "kind": ends["upstream"],
            "argv": list(exp.server_argv),
            "port": int(urlsplit(exp.upstream_url).port or 0),
            "stderr": str(peer_plan.parent / UPSTREAM_STDERR),
            "ready_timeout_s": 10,
        }
    return plan


def upstream_plan(base: dict[str, Any], cell: Cell, exp: Expansion) -> dict[str, Any]:
    """The peer's plan behind the proxy, from a client cell's plan (``base``): the scenario's
    ``upstream_steps`` instead of its host steps, one file pair per start, and a linger long
    enough that the peer outlives its steps until the proxy is ended. Behind a proxy that
    connects over HTTP, ``transport`` says where the peer listens."""
    steps = list(cell.scenario.raw.get("upstream_steps") or [])
    bound = sum(float(s.get("timeout_s", 10)) + float(s.get("observe_s", 0)) for s in steps)
    kind = cell.target.transports["upstream"]
    transport = None
    if kind != "stdio":
        url = urlsplit(exp.upstream_url)
        transport = {"kind": kind, "port": url.port, "path": url.path}
    return {
        **base,
        "transport": transport,
        "steps": steps,
        "transcript": "upstream-{pid}.jsonl",
        "done": "upstream-{pid}.done.json",
        "per_process_files": True,
        "linger_s": UPSTREAM_LINGER_S,
        "hard_deadline_s": min(cell.target.timeout_s, bound + UPSTREAM_LINGER_S) + 5,
    }


def read_recording(path: Path) -> tuple[list[dict[str, Any]], float | None, str | None]:
    """A recorder's records, its clock start (from its start note) and why it is unusable."""
    records: list[dict[str, Any]] = []
    clock: float | None = None
    problem: str | None = None
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict) or not isinstance(rec.get("t"), int | float):
                raise ValueError("not a record")
        except ValueError:
            problem = problem or f"{path.name} line {number} is not a record (not merged)"
            continue
        if clock is None and rec.get("dir") == "note" and isinstance(rec.get("raw"), str):
            try:
                note = json.loads(rec["raw"])
            except ValueError:
                note = {}
            if isinstance(note, dict) and isinstance(note.get("clock"), int | float):
                clock = float(note["clock"])
        records.append(rec)
    return records, clock, problem


def renumber_note(raw: Any, order: int, renumber: dict[tuple[int, int], int]) -> Any:
    """A note's own line references (``n``, ``evidence``) in the merged numbering, so step
    evidence and failed writes point at the merged lines; the leg's numbers stay in ``leg_n``."""
    try:
        note = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return raw
    if not isinstance(note, dict):
        return raw
    for key in ("n", "evidence"):
        value = note.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and (order, value) in renumber:
            note[key] = renumber[(order, value)]
    return json.dumps(note, ensure_ascii=False)


def merge_legs(folder: Path) -> Path:
    """Write ``transcript.jsonl`` from the host's and every upstream recording, by time.

    Each record keeps its fields and gains ``leg`` (``host`` | ``upstream``), ``conn`` (the
    upstream start it came from, 1 for the first; 1 on the host leg) and ``leg_n`` (its number
    in its own file); ``n`` and ``t`` are renumbered and re-based on the earliest clock, and a
    note's own references to its leg's lines (``n``, ``evidence``) are renumbered with them. A
    first note (``event: legs``) names the files merged; a recording without a clock start keeps
    its own times and the note says so (``clock: null``).
    """
    Leg = tuple[str, int, Path, list[dict[str, Any]], float | None, str | None]
    items: list[Leg] = []
    host = folder / HOST_TRANSCRIPT
    if host.is_file():
        items.append(("host", 1, host, *read_recording(host)))
    ups = [(path, *read_recording(path)) for path in sorted(folder.glob(UPSTREAM_GLOB))]
    ups.sort(key=lambda u: (u[2] is None, u[2] or 0.0, u[0].name))  # by start, clockless last
    for conn, (path, records, clock, problem) in enumerate(ups, start=1):
        items.append(("upstream", conn, path, records, clock, problem))
    clocks = [clock for *_, clock, _ in items if clock is not None]
    base = min(clocks) if clocks else 0.0
    merged: list[tuple[float, int, int, dict[str, Any]]] = []
    summary = []
    for order, (leg, conn, path, records, clock, problem) in enumerate(items):
        offset = (clock - base) if clock is not None else 0.0
        summary.append(
            {"leg": leg, "conn": conn, "file": path.name, "records": len(records),
             "clock": clock, "problem": problem}
        )  # fmt: skip
        for rec in records:
            t = float(rec["t"]) + offset
            merged.append((t, order, int(rec.get("n", 0) or 0), {**rec, "leg": leg, "conn": conn}))
    merged.sort(key=lambda item: (item[0], item[1], item[2]))
    head = {"event": "legs", "clock": base, "legs": summary}
    first = {"n": 1, "t": 0.0, "dir": "note", "leg": "harness", "conn": 0, "leg_n": 0}
    first["raw"] = json.dumps(head, ensure_ascii=False)
    lines = [json.dumps(first, ensure_ascii=False)]
    renumber = {(order, leg_n): index for index, (_, order, leg_n, _) in enumerate(merged, 2)}
    for index, (t, order, leg_n, rec) in enumerate(merged, start=2):
        rec = {**rec, "n": index, "t": round(t, 6), "leg_n": leg_n}
        if rec.get("dir") == "note":
            rec["raw"] = renumber_note(rec.get("raw"), order, renumber)
        lines.append(json.dumps(rec, ensure_ascii=False))
    out = folder / "transcript.jsonl"
    _atomic.write_text(out, "\n".join(lines) + "\n")
    return out
