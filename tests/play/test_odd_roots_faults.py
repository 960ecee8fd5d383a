"""The odd-roots, symlink-swap and enforcement scenarios against a fake file server, end to
end through the real harness, one way of using roots per mode; and the derived "how a server
uses roots" word computed from those very cells.

Each fake (``fakes/fake_file_server.py``) does one thing with the roots it is given, so each
outcome below rests on a behaviour we know: an ``enforce`` server opens the path it checked,
a ``toctou`` one checks, pauses and opens the path again by name (a swapped link gets
through), ``reads-only`` forgets writes, ``default-folder`` asks and lets everything through,
``ignore`` never asks. A fake peer is for fault injection only; the real servers' cells are
in ``test_real_servers.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare._yaml import load_yaml
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import Target, parse_target
from compare.judge._transcript import read_transcript
from compare.play._cells import Cell
from compare.play._harness import RunSettings, run_cells
from compare.rows._cells import read_cells
from compare.rows._context import gather
from compare.rows._derive import derived_column

from .test_faults import _marked_processes

FAKE = Path(__file__).resolve().parent / "fakes" / "fake_file_server.py"
REVISION = "2025-06-18"


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _target(mode: str) -> Target:
    data = {
        "id": f"fake-files-{mode}",
        "name": f"fake file server ({mode})",
        "kind": "server",
        "launch": {"argv": [sys.executable, str(FAKE), "--mode", mode]},
        "ends": "self",
        "timeout_s": 40,
    }
    return parse_target(data, Path(f"fake-files-{mode}.yaml"))


def _run(results: Path, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
    scenarios = {s.id: s for s in load_scenarios()}
    cells = [Cell(_target(m), "default", scenarios[s], REVISION) for m, s in pairs]
    settings = RunSettings(results, spec_commit="test", known_revisions=revisions())
    verdicts = run_cells(cells, settings, jobs=1)
    assert _marked_processes(results) == []
    return {(v["target"].removeprefix("fake-files-"), v["scenario"]): v for v in verdicts}


def _outcomes(v: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {c["id"]: (c["verdict"], c["outcome"]) for c in v["checks"]}


@pytest.fixture(scope="module")
def run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    results = tmp_path_factory.mktemp("odd-roots") / "results"
    pairs = [
        ("enforce", "server-symlink-swap"),
        ("toctou", "server-symlink-swap"),
        ("enforce", "server-odd-roots"),
        ("default-folder", "server-odd-roots"),
        ("ignore", "server-odd-roots"),
        *[
            (mode, "server-enforcement")
            for mode in ("enforce", "reads-only", "default-folder", "ignore")
        ],
    ]
    by = _run(results, pairs)
    mp.undo()
    return {"results": results, "by": by}


def test_a_server_that_opens_what_it_checked_is_not_reached(run: dict[str, Any]) -> None:
    v = run["by"][("enforce", "server-symlink-swap")]
    got = _outcomes(v)
    assert got["secret"] == ("pass", "refused")
    assert got["swap"] == ("pass", "not-reached")
    swap = next(c for c in v["checks"] if c["id"] == "swap")
    assert swap["observed"].startswith("not reached in 40 attempts")
    assert got["fixture"] == ("informational", "intact")  # the link points inside again afterwards


def test_a_check_then_open_by_name_server_is_reached_on_the_raw_bytes(
    run: dict[str, Any],
) -> None:
    """Every line the non-strict verdict cites is the request or the answer of a raced read,
    and each cited answer holds the outside folder's marker as written on the wire."""
    v = run["by"][("toctou", "server-symlink-swap")]
    got = _outcomes(v)
    assert got["swap"] == ("non-strict", "reached") and v["verdict"] == "non-strict"
    assert got["secret"] == (
        "pass",
        "refused",
    )  # the static read is refused: only the race gets out
    swap = next(c for c in v["checks"] if c["id"] == "swap")
    cell = run["results"] / "fake-files-toctou" / "unversioned" / "server-symlink-swap" / REVISION
    tx = read_transcript(cell / "transcript.jsonl")
    cited = [tx.by_n(n) for n in swap["evidence"]]
    answers = [x for x in cited if x is not None and x.dir == "in"]
    assert answers and all("place: secret" in str(x.raw) for x in answers)
    assert any(
        "server-respect-root-boundaries" in str(r) or "SHOULD" in str(r) for r in swap["refs"]
    )


def test_odd_roots_against_an_enforcing_server(run: dict[str, Any]) -> None:
    got = _outcomes(run["by"][("enforce", "server-odd-roots")])
    assert got["in-root"] == ("informational", "allowed")  # a baseline: it cannot fail
    assert got["file-root"] == ("informational", "allowed")  # a file root admits itself
    assert got["file-parent"] == ("pass", "refused")  # but not the folder around it
    assert got["created"] == ("informational", "allowed")  # the missing root, once made
    for check in ("missing-outside", "created-outside", "removed-outside", "recreated-outside"):
        assert got[check] == ("pass", "refused"), check
    assert got["recreated"] == ("informational", "allowed")
    assert got["fixture"] == ("informational", "intact")  # our own fs steps are not strays


def test_odd_roots_against_servers_that_let_everything_through(run: dict[str, Any]) -> None:
    widened = _outcomes(run["by"][("default-folder", "server-odd-roots")])
    assert widened["missing-outside"] == ("non-strict", "allowed")
    # reached only as everything outside the roots is: graded once, at missing-outside
    assert widened["file-parent"] == ("informational", "follows")
    never = _outcomes(run["by"][("ignore", "server-odd-roots")])
    assert never["missing-outside"] == ("not-exercised", "never-asked")
    assert never["removed-outside"] == ("not-exercised", "never-asked")


def test_fs_steps_are_recorded_and_stay_in_the_workspace(run: dict[str, Any]) -> None:
    cell = run["results"] / "fake-files-enforce" / "unversioned" / "server-odd-roots" / REVISION
    tx = read_transcript(cell / "transcript.jsonl")
    fs = [note for _n, note in tx.notes if note.get("event") == "fs"]
    assert [(n["op"], n["path"], n["done"]) for n in fs] == [
        ("mkdir", "later", True),
        ("remove", "gone", True),
        ("mkdir", "gone", True),
    ]


@pytest.mark.parametrize(
    ("mode", "value"),
    [
        ("enforce", "enforces"),
        ("reads-only", "reads-not-writes"),
        ("default-folder", "default-folder"),
        ("ignore", "ignores"),
    ],
)
def test_the_derived_row_reads_each_way_of_using_roots(
    run: dict[str, Any], mode: str, value: str
) -> None:
    """ROOT-20's own data (its categories and conditions), applied to the fakes' real cells."""
    derive = _root20()["status"]["derive"]
    known = gather()
    cells = read_cells(run["results"])
    target = f"fake-files-{mode}"
    column = derived_column(derive, target, "unversioned", cells, known.write_ops, str)
    assert (column["state"], column["value"]) == ("observed", value), column["reason"]
    assert column["evidence"] and all("server-enforcement" in e for e in column["evidence"])


def _root20() -> dict[str, Any]:
    area = load_yaml(Path(__file__).resolve().parents[2] / "compare/rows/areas/roots.yaml")
    return next(r for r in area["rows"] if r["id"] == "ROOT-20")
