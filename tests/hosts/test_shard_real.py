"""``--jobs 2`` and ``--shard I/N`` + ``merge`` against real SDK clients (issue 11): the
verdicts are the serial run's, whatever the split. The fake-client twin is
``tests/play/test_shard.py``; this one proves it with real processes, whose timing varies."""

from __future__ import annotations

from pathlib import Path

import pytest
from play._same import tree_facts

from compare.play._cells import Cell
from compare.play._merge import merge
from compare.play._run import run, select
from compare.play._shard import shard_cells

pytestmark = pytest.mark.clients


def test_parallel_and_sharded_runs_of_real_clients_match_the_serial_run(
    pinned_spec: Path, tools: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    # handshake is played at both revisions; mrtr is not run before 2026-07-28.
    cells, commit, known = select(
        ["ts-sdk", "py-sdk"], ["handshake", "mrtr"], ["2025-06-18", "2025-11-25"]
    )
    assert any(c.not_run_reason() for c in cells) and any(not c.not_run_reason() for c in cells)

    def play(part: list[Cell], folder: Path, jobs: int) -> None:
        run(part, commit, known, results=folder, jobs=jobs, tools=tools, force=True)

    play(cells, tmp_path / "serial", 1)
    play(cells, tmp_path / "parallel", 2)
    shards = [tmp_path / "shard-1", tmp_path / "shard-2"]
    for i, folder in enumerate(shards, start=1):
        play(shard_cells(cells, i, 2), folder, 1)
    merge(shards, tmp_path / "merged")

    serial = tree_facts(tmp_path / "serial")
    assert len(serial) == len(cells)
    assert "error" not in {f["verdict"] for f in serial.values()}
    assert tree_facts(tmp_path / "parallel") == serial
    assert tree_facts(tmp_path / "merged") == serial
