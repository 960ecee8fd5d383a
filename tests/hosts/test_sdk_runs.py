"""The real SDK clients through the harness, once per mechanism (the smoke set).

One run of each SDK target's smoke cells (``tests/smoke.yaml``: answering a server request,
refusing an undeclared one, notifying, an embedded request, a handler's answer, receiving
notifications; each at one revision) feeds every assertion about that target. Invariants
(every planned cell judged, no error verdict, each client ended as its entry says) are
checked in code; what the clients were measured to do is data in
``tests/golden/sdk_runs.json``, compared here and rewritten by ``make golden``. The rest of
what they do at every revision is kept by the golden cells (``tests/test_golden_cells.py``)
and by ``mcp-compare compare --replay``: the suite's cost does not grow with the areas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import _smoke
import pytest
from _golden import GoldenFile

from compare import _paths
from compare._cores import default_jobs
from compare.exchange._targets import load_targets
from compare.judge._transcript import read_transcript
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


def _smoke_cells(target: str) -> tuple[list[Any], str, list[str]]:
    """The target's smoke cells (every variant of each smoke scenario, at its revisions)."""
    cells, commit, known = select(
        targets=[target], scenarios=_smoke.scenarios("client"), revisions=_smoke.revisions("client")
    )
    wanted = _smoke.pairs("client")
    return [c for c in cells if (c.scenario.id, c.revision) in wanted], commit, known


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
                cells, commit, known = _smoke_cells(target)
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
            for c in cells:  # where each cell's files are, for the tests that read them
                runs[target][(c.target.id, c.variant, c.scenario.id, c.revision)]["_folder"] = str(
                    c.folder(settings.results)
                )
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

    def at(variant: str, scenario: str, check: str) -> dict[str, str]:
        return {
            k[2]: outcome(v, check) for k, v in sorted(mine.items()) if k[:2] == (variant, scenario)
        }

    modern: dict[str, dict[str, str]] = {}
    for (variant, scenario, revision), v in sorted(mine.items()):
        if (variant, scenario) != ("roots", "mrtr"):
            continue
        speaks = {"speaks-modern": outcome(v, "speaks-modern")}
        if speaks["speaks-modern"] == "modern":
            speaks |= {c: outcome(v, c) for c in ("retried", "request-state")}
        modern[revision] = speaks
    return {
        "verdicts": {"/".join(k): v["verdict"] for k, v in mine.items()},
        "root_uri_encoding": at("roots", "roots-list", "root-uri-encoding"),
        "undeclared_answer": at("no-roots", "roots-undeclared", "answer"),
        "list_changed": at("roots", "list-changed", "notification"),
        "mrtr": modern,
    }


@pytest.mark.parametrize("target", TARGETS)
def test_every_planned_cell_was_judged(target: str, verdicts: dict[Key, dict[str, Any]]) -> None:
    cells, _commit, _known = _smoke_cells(target)
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


def _messages(verdict: dict[str, Any]) -> list[dict[str, Any]]:
    """What the client sent in one cell, parsed, in wire order (our peer's lines left out)."""
    lines = read_transcript(Path(verdict["_folder"]) / "transcript.jsonl").lines
    return [x.obj for x in lines if x.dir == "in" and isinstance(x.obj, dict)]


def _cell(verdicts: dict[Key, dict[str, Any]], variant: str, scenario: str) -> dict[str, Any]:
    (found,) = [v for k, v in verdicts.items() if k[1:3] == (variant, scenario)]
    return found


@pytest.mark.parametrize("target", TARGETS)
def test_each_variant_declares_roots_as_its_plan_says(
    target: str, verdicts: dict[Key, dict[str, Any]]
) -> None:
    """The host contract for the roots plan (roots declared) and the plan without roots
    (nothing declared, unless the SDK always declares roots: its target's
    ``always_declares``), read from the initialize each cell's client sent."""
    (entry,) = [t for t in load_targets() if t.id == target]
    for variant, scenario in (("roots", "roots-list"), ("no-roots", "roots-undeclared")):
        cell = _cell(verdicts, variant, scenario)
        if cell["verdict"] == "not-run":  # a variant its SDK lacks (mastra 0.14: roots)
            assert "roots" in entry.lacks and variant == "roots", cell["reason"]
            continue
        first = next(m for m in _messages(cell) if m.get("method") == "initialize")
        declared = "roots" in first["params"]["capabilities"]
        want = variant == "roots" or "roots" in entry.always_declares
        assert declared == want, (variant, first["params"]["capabilities"])


@pytest.mark.parametrize("target", TARGETS)
def test_each_listed_tool_is_called_with_empty_arguments(
    target: str, verdicts: dict[Key, dict[str, Any]]
) -> None:
    """The host contract's ``call_tools``: the one tool our peer lists is called with ``{}``,
    at most once a session, in the two cells of the plan without roots (which every host
    takes). A session may end before a slow host gets to its call (roots-undeclared ends on
    its answer), so the call is required of the pair, not of each."""
    per_cell = [
        [
            (m["params"]["name"], m["params"]["arguments"])
            for m in _messages(_cell(verdicts, "no-roots", scenario))
            if m.get("method") == "tools/call"
        ]
        for scenario in ("roots-undeclared", "logging-messages")
    ]
    assert all(calls in ([], [("probe", {})]) for calls in per_cell), per_cell
    assert any(per_cell), "no tools/call in either cell"
