"""Wire hygiene faults played for real: fakes that answer twice, answer what was never asked,
reuse a pending request id, answer a notification or send stray progress, each against our
real scripted ends through the real harness (client, server, and a proxy on each leg).

Each case asserts the hygiene check's outcome, its grade and, for a proxy, the leg its
evidence travelled, read back from the cell's own transcript.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import Target, parse_target
from compare.judge._transcript import read_transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells

from .fakes import fake_target
from .test_faults import _marked_processes
from .test_server_faults import server_target

KNOWN = revisions()
FAKE_PROXY = Path(__file__).resolve().parent / "fakes" / "fake_proxy.py"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def proxy_target(mode: str) -> Target:
    data = {
        "id": f"fake-proxy-{mode}",
        "name": f"fake proxy ({mode})",
        "kind": "proxy",
        "launch": {
            "argv": [sys.executable, str(FAKE_PROXY), "--mode", mode, "--", "{server_argv}"]
        },
        "ends": "self",
        "timeout_s": 60,
    }
    return parse_target(data, Path(f"fake-proxy-{mode}.yaml"))


# (side, mode, scenario, revision) -> (check, outcome, verdict, leg of the evidence)
CASES: dict[tuple[str, str, str, str], tuple[str, str, str, str | None]] = {
    ("client", "double-answer", "roots-list", "2025-11-25"): (
        "wire-ids", "answered-twice", "informational", None),
    ("client", "reuse-id", "roots-list", "2025-11-25"): (
        "wire-request-ids", "reused-while-pending", "fail", None),
    ("client", "answer-notifications", "unknown-notification", "2025-11-25"): (
        "wire-notification-reply", "replied", "fail", None),
    ("client", "stray-progress", "roots-list", "2025-06-18"): (
        "wire-progress", "unknown-token", "fail", None),
    ("client", "modern-answer", "mrtr", "2026-07-28"): (
        "wire-client-responses", "responses", "fail", None),
    ("server", "double-answer", "server-notification-reply", "2025-06-18"): (
        "wire-ids", "answered-twice", "informational", None),
    ("server", "reuse-id", "server-notification-reply", "2025-06-18"): (
        "wire-request-ids", "reused-while-pending", "fail", None),
    ("server", "reply", "server-notification-reply", "2025-03-26"): (
        "wire-notification-reply", "replied", "fail", None),
    ("server", "stray-progress", "server-notification-reply", "2025-06-18"): (
        "wire-progress", "unknown-token", "fail", None),
    ("proxy", "double-answer", "relay-roots", "2025-11-25"): (
        "wire-ids", "answered-twice", "informational", "upstream"),
    ("proxy", "double-answer-host", "relay-roots", "2025-11-25"): (
        "wire-ids", "answered-twice", "informational", "host"),
    ("proxy", "stray-answer-host", "relay-roots", "2025-11-25"): (
        "wire-ids", "unknown-id", "fail", "host"),
    ("proxy", "reuse-id", "relay-roots", "2025-11-25"): (
        "wire-request-ids", "reused-while-pending", "fail", "upstream"),
    ("proxy", "answer-notifications", "relay-roots", "2024-11-05"): (
        "wire-notification-reply", "replied", "fail", "host"),
    ("proxy", "stray-progress", "relay-roots", "2025-11-25"): (
        "wire-progress", "unknown-token", "fail", "upstream"),
}  # fmt: skip

#: What a well-behaved proxy reads on every hygiene check (both legs number from their start).
CLEAN = {
    "wire-ids": "matched",
    "wire-request-ids": "unique",
    "wire-notification-reply": "no-reply",
    "wire-progress": "no-progress",
}


def _target(side: str, mode: str) -> Target:
    if side == "client":
        return fake_target(mode)
    return server_target(mode) if side == "server" else proxy_target(mode)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path) -> dict[str, Any]:
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    results = tmp_path_factory.mktemp("hygiene") / "results"
    scenarios = {s.id: s for s in load_scenarios()}
    keys = [*CASES, ("proxy", "good", "relay-roots", "2025-11-25")]
    cells = [Cell(_target(side, m), "default", scenarios[s], r) for side, m, s, r in keys]
    settings = RunSettings(results, spec_commit="test", known_revisions=KNOWN)
    verdicts = run_cells(cells, settings, jobs=2)
    mp.undo()
    return {
        "results": results,
        "leftovers": _marked_processes(results),
        "by": dict(zip(keys, verdicts, strict=True)),
    }


def _check(verdict: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in verdict["checks"] if c["id"] == check)


def test_no_process_survives(played: dict[str, Any]) -> None:
    assert played["leftovers"] == []


@pytest.mark.parametrize("key", list(CASES), ids=lambda k: "-".join(k[:2]) if k else "")
def test_fault_is_named(played: dict[str, Any], key: tuple[str, str, str, str]) -> None:
    verdict = played["by"][key]
    check_id, outcome, grade, leg = CASES[key]
    got = _check(verdict, check_id)
    # The fake writes both requests with one id in one write, before any answer; our
    # recorder notes each line as it takes it, so our answer to the first may be recorded
    # before the second arrives. That reads "reused-after-answer", which these revisions
    # (2024-11-05 to 2025-11-25) forbid with the same MUST, so the grade must be the same.
    seen = (
        {"reused-while-pending", "reused-after-answer"}
        if outcome == "reused-while-pending"
        else {outcome}
    )
    assert got["outcome"] in seen and got["verdict"] == grade, got["reason"]
    if grade == "fail":
        assert verdict["verdict"] == "fail"
        assert any("MUST" in r["quote"] for r in got["refs"])
    folder = Path(played["results"]) / verdict["target"] / verdict["target_version"]
    tx = read_transcript(folder / key[2] / key[3] / "transcript.jsonl")
    shown = [x for n in got["evidence"] if (x := tx.by_n(n)) is not None]
    assert shown and all(x.dir == "in" for x in shown)  # the fake's own lines
    assert {x.leg for x in shown} == {leg}


def test_a_faithful_relay_is_clean_on_both_legs(played: dict[str, Any]) -> None:
    verdict = played["by"][("proxy", "good", "relay-roots", "2025-11-25")]
    assert {k: _check(verdict, k)["outcome"] for k in CLEAN} == CLEAN
    folder = Path(played["results"]) / verdict["target"] / verdict["target_version"]
    tx = read_transcript(folder / "relay-roots" / "2025-11-25" / "transcript.jsonl")
    legs = {(x.leg, x.dir) for x in tx.lines if x.is_response}
    # answers travelled both ways on both legs, so "matched" was earned, not vacuous
    assert legs >= {("host", "in"), ("host", "out"), ("upstream", "in"), ("upstream", "out")}
    assert _check(verdict, "asks")["outcome"] == "relayed"
