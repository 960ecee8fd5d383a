"""Every scenario against the real SDK clients, through the harness, with the verdicts.

One run of each SDK target's cells (its variants × every scenario × every revision) feeds
every assertion about that target. Invariants (every planned cell judged, no error verdict,
each client ended as its entry says) are checked in code; what the clients were measured to
do — every cell's verdict and the outcomes behind the interesting ones — is data in
``tests/golden/sdk_runs.json``, compared here and rewritten by ``make golden``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _golden import GoldenFile
from _revisions import after_initialize, initialize_era

from compare import _paths
from compare._cores import default_jobs
from compare.exchange._targets import load_targets
from compare.play._harness import RunSettings, run_cells
from compare.play._run import select

pytestmark = pytest.mark.clients

TARGETS = [
    "ts-sdk",
    "py-sdk",
    "fastmcp",
    "go-sdk",
    "mcp-go",
    "rust-sdk",
    "java-sdk",
    "kotlin-sdk",
    "pydantic-ai",
    "mastra",
    "mastra-v1",
    "mcp-use-py",
    "mcp-use-ts",
    "mcp-agent",
]
Key = tuple[str, str, str, str]  # target, variant, scenario, revision


@pytest.fixture(scope="module")
def played(
    pinned_spec: Path, tools: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], dict[Key, dict[str, Any]]]]:
    """``played(target)``: every cell of one target (each variant × scenario × revision),
    played through the harness on first use and kept for the module's other tests. Each
    target's tests are one group (``tests/_groups.py``), so the targets' runs go to different
    pytest-xdist workers and each worker plays only the targets it was handed."""
    runs: dict[str, dict[Key, dict[str, Any]]] = {}

    def play(target: str) -> dict[Key, dict[str, Any]]:
        if target not in runs:
            with pytest.MonkeyPatch.context() as patch:
                patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
                cells, commit, known = select(targets=[target])
                settings = RunSettings(
                    tmp_path_factory.mktemp(f"sdk-results-{target}"),
                    commit,
                    known,
                    tools=_paths.tools_dir(),
                )
                found = run_cells(cells, settings, jobs=default_jobs())
            runs[target] = {
                (v["target"], v["variant"], v["scenario"], v["revision"]): v for v in found
            }
        return runs[target]

    yield play


@pytest.fixture
def verdicts(
    target: str, played: Callable[[str], dict[Key, dict[str, Any]]]
) -> dict[Key, dict[str, Any]]:
    """The cells of the test's target."""
    return played(target)


def outcome(verdict: dict[str, Any], check: str) -> str:
    """A check's outcome; a cell not run (its variant needs a feature the target lacks, as
    mastra lacks roots) has none, and reads ``not-run``."""
    if verdict["verdict"] == "not-run":
        return "not-run"
    return str(next(c["outcome"] for c in verdict["checks"] if c["id"] == check))


def measured(target: str, verdicts: dict[Key, dict[str, Any]]) -> dict[str, Any]:
    """What ``target`` did, as kept in ``tests/golden/sdk_runs.json``."""
    mine = {k[1:]: v for k, v in verdicts.items() if k[0] == target}
    modern: dict[str, dict[str, str]] = {}
    for revision in after_initialize():
        v = mine[("roots", "mrtr", revision)]
        speaks = {"speaks-modern": outcome(v, "speaks-modern")}
        if speaks["speaks-modern"] == "modern":
            speaks |= {c: outcome(v, c) for c in ("retried", "request-state")}
        modern[revision] = speaks
    return {
        "verdicts": {"/".join(k): v["verdict"] for k, v in mine.items()},
        "root_uri_encoding": {
            r: outcome(mine[("roots", "roots-list", r)], "root-uri-encoding")
            for r in initialize_era()
        },
        "undeclared_answer": {
            r: outcome(mine[("no-roots", "roots-undeclared", r)], "answer")
            for r in initialize_era()
        },
        "list_changed": {
            r: outcome(mine[("roots", "list-changed", r)], "notification") for r in initialize_era()
        },
        "mrtr": modern,
    }


@pytest.mark.parametrize("target", TARGETS)
def test_every_planned_cell_was_judged(target: str, verdicts: dict[Key, dict[str, Any]]) -> None:
    cells, _commit, _known = select(targets=[target])
    planned = {(c.target.id, c.variant, c.scenario.id, c.revision) for c in cells}
    assert set(verdicts) == planned
    assert [k for k, v in verdicts.items() if v["verdict"] == "error"] == []


@pytest.mark.parametrize("target", TARGETS)
def test_measured_behaviour_matches_golden(
    target: str, verdicts: dict[Key, dict[str, Any]], golden: Callable[[str], GoldenFile]
) -> None:
    """Every cell's verdict and the outcomes behind them, as recorded."""
    golden("sdk_runs").expect(target, measured(target, verdicts))


@pytest.mark.parametrize("target", TARGETS)
def test_clients_end_as_their_entry_says(target: str, verdicts: dict[Key, dict[str, Any]]) -> None:
    (entry,) = [t for t in load_targets() if t.id == target]
    ran = [v for k, v in verdicts.items() if k[0] == target and v["verdict"] != "not-run"]
    assert ran
    # A client measured to stay now and then after the peer closed says so in its entry
    # (``lingers_why``); only then may the harness end it, and the cell must say "lingered".
    may_linger = "lingers_why" in entry.raw
    lingered = [
        v
        for k, v in verdicts.items()
        if k[0] == target and may_linger and v["verdict"] != "not-run"
        if v["process"]["ended_by"] == "harness"
    ]
    for v in lingered:  # the cell says so: its exit check reads lingered, not a clean end
        assert {c["outcome"] for c in v["checks"] if c["id"] == "client-exit"} == {"lingered"}
    other = sorted(
        "/".join(k[1:]) + f" ended by {v['process']['ended_by']}"
        for k, v in verdicts.items()
        if k[0] == target and v["verdict"] != "not-run" and v["process"]["ended_by"] != entry.ends
        if not any(v is x for x in lingered)
    )
    assert other == [], f"{target} should end by {entry.ends}"
    if entry.ends == "self":
        # A variant that measures a start failure (fastmcp refusing its documented roots form)
        # exits non-zero on purpose, before a byte, and is judged as that finding.
        measured = set(entry.raw.get("start_failure_findings") or [])
        plain = [
            v for v in ran if v["variant"] not in measured and not any(v is x for x in lingered)
        ]
        assert {v["process"]["exit_code"] for v in plain} == {0}
        for v in ran:
            if v["variant"] in measured:
                assert v["process"]["exit_code"] != 0, v.get("cell", v)
                outcomes = {c["outcome"] for c in v["checks"]}
                assert "exited-before-initialize" in outcomes
