"""Faults are findings: misbehaving fake clients, end to end through the real harness.

Each fake starts the real peer and misbehaves in one way; each gets a verdict with a reason,
the run neither crashes nor hangs past the bound, and no process of any cell survives it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import load_scenarios
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells
from compare.play._proc import MARKER_ENV

from .fakes import fake_target

KNOWN = revisions()


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _settings(tmp_path: Path) -> RunSettings:
    return RunSettings(results=tmp_path / "results", spec_commit="test", known_revisions=KNOWN)


def _marked_processes(root: Path) -> list[int]:
    """Live processes started for a cell under ``root`` (the harness marks their environment)."""
    return live_processes_with(f"{MARKER_ENV}_DIR={root}")


def live_processes_with(mark: str) -> list[int]:
    """Live (not zombie) processes whose environment holds ``mark``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if mark.encode() in env and b") Z " not in stat:
            found.append(int(entry))
    return found


def _by_check(verdict: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["id"]: c for c in verdict["checks"]}


# mode -> (cell verdict, the check that must name the fault, its outcome). A fault the spec has
# no MUST against (a flood, an oversized line, a crash, an ignored SIGTERM) is recorded as an
# informational finding and leaves the cell's verdict to the checks that have one. The flood is
# of progress notifications for a token no request carried, which wire-progress fails (issue
# 21: it once read pass, noticed only by wire-volume).
FAULTS = {
    "good": ("pass", "root-uri-encoding", "encoded"),
    "garbage": ("fail", "wire-json", "invalid-json"),
    "wrong-ids": ("fail", "wire-ids", "unknown-id"),
    "silent": ("fail", "answered", "silence"),
    "flood": ("fail", "wire-volume", "flood"),
    "big-line": ("pass", "wire-json", "oversized"),
    # the peer never got to ask before the crash: nothing of roots-list was exercised
    "crash": ("not-exercised", "client-exit", "crashed"),
    "hang": ("pass", "client-exit", "ignored-sigterm"),
}


def test_every_fault_is_a_finding(tmp_path: Path) -> None:
    scenario = next(s for s in load_scenarios() if s.id == "roots-list")
    cells = [Cell(fake_target(mode), "default", scenario, "2025-11-25") for mode in FAULTS]
    verdicts = run_cells(cells, _settings(tmp_path), jobs=2)
    assert _marked_processes(tmp_path) == []
    table = {}
    for mode, verdict in zip(FAULTS, verdicts, strict=True):
        _want, check_id, _outcome = FAULTS[mode]
        check = _by_check(verdict)[check_id]
        table[mode] = (verdict["verdict"], check["outcome"])
        assert verdict["reason"], mode
        assert (
            (tmp_path / "results")
            .joinpath(
                f"fake-{mode}",
                verdict["target_version"],
                "roots-list",
                "2025-11-25",
                "verdict.json",
            )
            .is_file()
        )
    assert table == {m: (v, o) for m, (v, _c, o) in FAULTS.items()}
    hang = verdicts[list(FAULTS).index("hang")]
    assert hang["process"]["sigkill"] is True
    assert hang["process"]["leftover_killed"] >= 1  # the grandchild in its own session
    flood = verdicts[list(FAULTS).index("flood")]
    assert _by_check(flood)["answered"]["outcome"] == "result"  # evidence survived the flood
    assert _by_check(flood)["wire-progress"]["outcome"] == "unknown-token"


def test_a_client_that_outlives_the_bound_is_killed(tmp_path: Path) -> None:
    scenario = next(s for s in load_scenarios() if s.id == "roots-list")
    # silent: never answers roots/list, so the peer is still waiting when the bound hits
    target = fake_target("silent", ends="self", timeout_s=3)
    [verdict] = run_cells([Cell(target, "default", scenario, "2025-06-18")], _settings(tmp_path))
    assert verdict["verdict"] == "error"
    assert verdict["reason"].startswith("timed out after 3 s")
    assert verdict["process"]["ended_by"] == "timeout"
    assert verdict["duration_s"] < 3 + 8
    assert _marked_processes(tmp_path) == []
    # the transcript up to the kill is kept and judged
    assert _by_check(verdict)["answered"]["outcome"] == "silence"


def test_a_self_ending_client_that_lingers_is_ended(tmp_path: Path) -> None:
    scenario = next(s for s in load_scenarios() if s.id == "handshake")
    target = fake_target("hang", ends="self", timeout_s=20)
    [verdict] = run_cells([Cell(target, "default", scenario, "2025-06-18")], _settings(tmp_path))
    assert verdict["process"]["ended_by"] == "harness"
    assert _by_check(verdict)["client-exit"]["outcome"] == "ignored-sigterm"
    assert _marked_processes(tmp_path) == []


def test_a_client_that_cannot_start_is_an_error_with_a_reason(tmp_path: Path) -> None:
    from compare.exchange._targets import parse_target

    target = parse_target(
        {
            "id": "missing",
            "name": "missing binary",
            "kind": "command",
            "launch": {"argv": ["/nonexistent/client", "{server}"]},
            "ends": "self",
            "timeout_s": 5,
        },
        Path("missing.yaml"),
    )
    scenario = next(s for s in load_scenarios() if s.id == "handshake")
    [verdict] = run_cells([Cell(target, "default", scenario, "2025-11-25")], _settings(tmp_path))
    assert verdict["verdict"] == "fail"
    version = verdict["target_version"]
    stderr = tmp_path / f"results/missing/{version}/handshake/2025-11-25/client.stderr"
    assert "cannot start" in stderr.read_text()
