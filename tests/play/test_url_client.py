"""A client that connects to a URL: our peer's records of the process and of each session
become the cell's one transcript, in time order, and the first session's account its
done.json, with every line reference following the renumbering (crafted records)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compare.play._url_client import merge_sessions


def _record(path: Path, clock: float, lines: list[tuple[float, str, dict[str, Any]]]) -> None:
    start = {"n": 1, "t": 0.0, "dir": "note", "raw": json.dumps({"event": "start", "clock": clock})}
    records = [start]
    for n, (t, direction, body) in enumerate(lines, start=2):
        records.append({"n": n, "t": t, "dir": direction, "raw": json.dumps(body)})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_the_sessions_merge_by_time_and_references_follow(tmp_path: Path) -> None:
    _record(tmp_path / "peer.jsonl", 100.0, [(0.1, "note", {"event": "http-listening"})])
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
    _record(tmp_path / "peer-s1.jsonl", 100.5, [(0.0, "in", init),
                                                (1.0, "note", {"event": "x", "n": 2})])  # fmt: skip
    _record(tmp_path / "peer-s2.jsonl", 101.0, [(0.2, "in", {**init, "id": 2})])
    step = {"index": 0, "outcome": "ok", "step": {"await": "initialize"}, "evidence": 2}
    (tmp_path / "peer-s1.done.json").write_text(
        json.dumps({"reason": "steps complete", "steps": [step], "t": 1.0}), encoding="utf-8"
    )
    merge_sessions(tmp_path)
    lines = [json.loads(x) for x in (tmp_path / "transcript.jsonl").read_text().splitlines()]
    assert [r["n"] for r in lines] == list(range(1, len(lines) + 1))
    assert [r["t"] for r in lines] == sorted(r["t"] for r in lines)
    ins = [r for r in lines if r["dir"] == "in"]
    assert [json.loads(r["raw"])["id"] for r in ins] == [1, 2]  # s1 at 100.5, s2 at 101.2
    first_in = ins[0]["n"]
    note = next(json.loads(r["raw"]) for r in lines if '"x"' in r["raw"])
    assert note["n"] == first_in  # the note's own reference, renumbered
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["sessions"] == 2 and done["steps"][0]["evidence"] == first_in


def test_a_client_that_never_connected_leaves_the_process_account(tmp_path: Path) -> None:
    _record(tmp_path / "peer.jsonl", 5.0, [(0.1, "note", {"event": "http-listening"})])
    (tmp_path / "peer.done.json").write_text(
        json.dumps({"reason": "received SIGTERM", "sessions": 0, "steps": [], "t": 3.0})
    )
    merge_sessions(tmp_path)
    done = json.loads((tmp_path / "done.json").read_text())
    assert done["sessions"] == 0 and done["reason"] == "received SIGTERM"
    assert len((tmp_path / "transcript.jsonl").read_text().splitlines()) == 2
