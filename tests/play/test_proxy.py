"""Merging a proxy cell's recordings: by each recorder's own clock, damage named, not fatal."""

from __future__ import annotations

import json
from pathlib import Path

from compare.judge._transcript import read_records
from compare.play._proxy import merge_legs


def _leg(path: Path, clock: float | None, lines: list[tuple[float, str, str]]) -> None:
    start = {"event": "start"} if clock is None else {"event": "start", "clock": clock}
    records = [{"n": 1, "t": 0.0, "dir": "note", "raw": json.dumps(start)}]
    records += [{"n": i, "t": t, "dir": d, "raw": raw} for i, (t, d, raw) in enumerate(lines, 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_lines_are_ordered_by_absolute_time_and_keep_their_leg(tmp_path: Path) -> None:
    _leg(tmp_path / "host.jsonl", 10.0, [(1.0, "out", '{"a":1}')])
    _leg(tmp_path / "upstream-5.jsonl", 10.5, [(0.1, "in", '{"b":2}')])
    records = [r.data for r in read_records(merge_legs(tmp_path)).records]
    assert all(r is not None for r in records)
    wire = [r for r in records if r and r["dir"] != "note"]
    assert [(r["leg"], r["raw"], r["t"]) for r in wire] == [
        ("upstream", '{"b":2}', 0.6),
        ("host", '{"a":1}', 1.0),
    ]
    assert [r["n"] for r in records if r] == list(range(1, len(records) + 1))
    assert wire[0]["leg_n"] == 2 and wire[0]["conn"] == 1


def test_a_damaged_or_clockless_recording_is_merged_and_named(tmp_path: Path) -> None:
    _leg(tmp_path / "host.jsonl", 10.0, [(1.0, "out", "{}")])
    _leg(tmp_path / "upstream-7.jsonl", None, [(0.2, "in", "{}")])
    with (tmp_path / "upstream-7.jsonl").open("a", encoding="utf-8") as fh:
        fh.write('{"torn": \n')
    first = read_records(merge_legs(tmp_path)).records[0].data
    assert first is not None
    legs = json.loads(first["raw"])["legs"]
    up = next(leg for leg in legs if leg["leg"] == "upstream")
    assert up["clock"] is None and "not a record" in up["problem"]
