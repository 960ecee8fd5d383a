"""One reader, one order, one set of symbols: the copies that used to drift are gone.

Built from crafted transcripts: the judge and the site once disagreed on what a damaged line
is (the site showed a record without ``n`` as a wire line numbered by its position; the judge
dropped it as damage), because each parsed ``transcript.jsonl`` itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from compare.judge._transcript import read_records, read_transcript
from compare.judge._verdicts import SEVERITY, VERDICT_SYMBOLS, VERDICTS, severity, worst
from compare.play._run import SYMBOLS as RUN_SYMBOLS
from compare.rows._state import STATE_PROMISES, STATE_SYMBOLS
from compare.site._symbols import SYMBOLS as SITE_SYMBOLS

GOOD = {"n": 1, "t": 0.1, "dir": "in", "raw": '{"jsonrpc":"2.0","method":"x"}'}


def _write(tmp_path: Path, lines: list[bytes]) -> Path:
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_a_record_without_n_is_damage_for_every_reader(tmp_path: Path) -> None:
    no_n = json.dumps({"t": 0.2, "dir": "in", "raw": "{}"}).encode()
    path = _write(tmp_path, [json.dumps(GOOD).encode(), no_n, b"[1]", b"\xff"])
    scan = read_records(path)
    assert [r.number for r in scan.records if r.data is None] == [2, 3, 4]
    assert "integer n" in scan.records[1].problem
    assert scan.records[1].text == no_n.decode()  # shown as it is on the site
    tx = read_transcript(path)
    assert [x.n for x in tx.lines] == [1]
    assert tx.damage == [f"transcript line {n} is not a record" for n in (2, 3, 4)]


def test_reading_the_head_of_a_flood_still_counts_every_line(tmp_path: Path) -> None:
    path = _write(tmp_path, [json.dumps({**GOOD, "n": i}).encode() for i in range(1, 51)])
    scan = read_records(path, keep=10)
    assert scan.total == 50 and len(scan.records) == 10 and scan.missing is None
    assert read_records(tmp_path / "none.jsonl").missing


def test_one_severity_order() -> None:
    assert set(SEVERITY) == set(VERDICTS) - {"not-run"}
    ranked = sorted(SEVERITY, key=severity)
    assert ranked == [
        "informational",
        "not-exercised",
        "pass",
        "non-strict",
        "fail",
        "unstable",
        "error",
    ]
    assert worst(["pass", "informational", "non-strict"]) == "non-strict"
    assert worst(["informational"]) == "informational"
    import compare.rows._compute as compute

    assert not hasattr(compute, "_SEVERITY")


def test_one_set_of_verdict_symbols_and_one_of_state_symbols() -> None:
    assert set(VERDICT_SYMBOLS) == set(VERDICTS)
    assert SITE_SYMBOLS["verdict"] == VERDICT_SYMBOLS
    assert {v: sym for v, (sym, _) in VERDICT_SYMBOLS.items()} == RUN_SYMBOLS
    assert set(STATE_SYMBOLS) == set(STATE_PROMISES)
    for state, symbol in STATE_SYMBOLS.items():
        assert SITE_SYMBOLS["status"][state] == (symbol, STATE_PROMISES[state])
