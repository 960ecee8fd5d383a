"""rust-mcp-filesystem's findings, read from its golden cells: its real recordings, judged again.

The tests do not install or play rust-mcp-filesystem (``make test`` leaves it out, see the
Makefile): no mechanism of ours is its alone, since the reference file server answers roots
and takes the file probes the same way (``tests/play/test_real_servers.py`` plays that one).
What is its own — it asks for roots only with ``--enable-roots``, then drops our
percent-encoded roots and keeps the folder it was started with — is asserted here line by line
on its recordings in ``tests/golden/cells.tar.xz``, each judged again with the current rules,
so a rule that stops reading those lines the same way fails here as it would on a live play.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from golden_cells import unpack

from compare.judge._transcript import read_transcript
from compare.play._harness import RunSettings, run_cells
from compare.play._run import select

ROOTS = "rust-mcp-filesystem-roots"
NO_ROOTS = "rust-mcp-filesystem-no-roots"
#: The recordings read here, each in the golden set (``tests/golden/cells.json``).
CELLS = {
    (ROOTS, "server-enforcement", "2025-03-26"),
    (ROOTS, "server-symlink-swap", "2025-03-26"),
    (NO_ROOTS, "server-refresh-silent", "2025-03-26"),
}


@pytest.fixture(scope="module")
def golden_run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The cells above unpacked and judged again; (target, scenario, revision) -> verdict."""
    results = tmp_path_factory.mktemp("golden-rust") / "results"
    unpack(results)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        cells, commit, known = select(targets=[ROOTS, NO_ROOTS])
        chosen = [c for c in cells if (c.target.id, c.scenario.id, c.revision) in CELLS]
        verdicts = run_cells(chosen, RunSettings(results, commit, known, rejudge=True))
    by = {(v["target"], v["scenario"], v["revision"]): v for v in verdicts}
    return {"results": results, "by": by, "cells": {c.target.id: c for c in chosen}}


def _verdict(run: dict[str, Any], key: tuple[str, str, str]) -> dict[str, Any]:
    v: dict[str, Any] = run["by"][key]
    assert v.get("rejudged_at"), (key, v.get("reason"))  # judged again, not the stored file
    return v


def _cell(run: dict[str, Any], key: tuple[str, str, str]) -> Path:
    target, scenario, revision = key
    version = _verdict(run, key)["target_version"]
    return Path(run["results"]) / target / version / scenario / revision


def _check(v: dict[str, Any], check: str) -> dict[str, Any]:
    return next(c for c in v["checks"] if c["id"] == check)


def test_every_cell_read_here_is_in_the_golden_set(golden_run: dict[str, Any]) -> None:
    assert set(golden_run["by"]) == CELLS


def test_it_drops_percent_encoded_roots_and_keeps_its_start_up_folder(
    golden_run: dict[str, Any],
) -> None:
    """With --enable-roots it asks, gets our roots (each URI percent-encoded, as the
    workspace's name needs), and its file tools still reach every place outside them: its own
    stderr says it skipped the roots as invalid and kept its command-line folder. So the root
    beside its start-up folder is refused while the same tools work inside that folder: one
    finding (it adopted no root), and every place outside the roots reads "not tested". The
    outcomes rest on that order: answer first, probes after."""
    key = (ROOTS, "server-enforcement", "2025-03-26")
    v, cell = _verdict(golden_run, key), _cell(golden_run, key)
    tx = read_transcript(cell / "transcript.jsonl")
    ask = next(x for x in tx.incoming() if x.method == "roots/list")
    answer = next(x for x in tx.lines if x.dir == "out" and x.obj.get("id") == ask.obj["id"])
    uris = [r["uri"] for r in answer.obj["result"]["roots"]]
    assert len(uris) == 4 and all("/web%20%23staging%20%C3%A9" in u for u in uris)
    probes = [p for p in v["probes"] if p["expect"] == "refused"]
    assert probes and all(p["result"] == "allowed" for p in probes)
    assert all(min(p["evidence"]) > answer.n for p in probes)
    beside = [p for p in v["probes"] if p["place"] == "adopted"]
    assert beside and all(p["result"] == "refused" for p in beside)
    assert (_check(v, "adopted")["outcome"], _check(v, "adopted")["verdict"]) == (
        "not-adopted",
        "non-strict",
    )
    for place in ("outside", "sibling-prefix", "traversal", "symlink-escape", "case-variant"):
        assert (_check(v, place)["outcome"], _check(v, place)["verdict"]) == (
            "not-adopted",
            "not-exercised",
        ), place
    assert v["verdict"] == "non-strict"
    stderr = (cell / "server.stderr").read_text(encoding="utf-8")
    assert "skipped 4 invalid roots" in stderr and "passed from command-line will be used" in stderr


def test_the_derived_row_reads_it_as_adopting_no_root(golden_run: dict[str, Any]) -> None:
    """ROOT-20 computed from that very recording."""
    from compare import _paths
    from compare._yaml import load_yaml
    from compare.rows._cells import read_cells
    from compare.rows._context import gather
    from compare.rows._derive import derived_column

    area = load_yaml(_paths.PROJECT_ROOT / "compare" / "rows" / "areas" / "roots.yaml")
    derive = next(r for r in area["rows"] if r["id"] == "ROOT-20")["status"]["derive"]
    cells, writes = read_cells(Path(golden_run["results"])), gather().write_ops
    version = _verdict(golden_run, (ROOTS, "server-enforcement", "2025-03-26"))["target_version"]
    word = derived_column(derive, ROOTS, version, cells, writes, str)["value"]
    assert word == "adopts-none"


def test_its_start_up_folder_is_reached_directly_with_no_race(golden_run: dict[str, Any]) -> None:
    """The swap check counts the reads that came back from outside the roots from the raw
    answers (the outside folder's marker): all of them, as its start-up folder holds both."""
    key = (ROOTS, "server-symlink-swap", "2025-03-26")
    v = _verdict(golden_run, key)
    tx = read_transcript(_cell(golden_run, key) / "transcript.jsonl")
    races = [note for _n, note in tx.notes if note.get("event") == "race"]
    assert len(races) == 40
    answers = [tx.by_n(r["response"]) for r in races if r.get("response")]
    outside = sum("place: secret" in str(x.raw) for x in answers if x is not None)
    swap = _check(v, "swap")
    assert swap["outcome"] == "direct" and f"{outside} of 40" in swap["observed"] and outside


def test_without_enable_roots_it_never_asks(golden_run: dict[str, Any]) -> None:
    """``never-asked`` and ``not-asked-again`` rest on the transcript holding no roots/list
    from the server, though our client declared roots and sent list_changed; so whether it
    narrows to roots is not tested, never a finding."""
    key = (NO_ROOTS, "server-refresh-silent", "2025-03-26")
    v = _verdict(golden_run, key)
    assert _check(v, "refresh")["outcome"] == "not-asked-again"
    assert (_check(v, "adopted")["outcome"], _check(v, "adopted")["verdict"]) == (
        "never-asked",
        "not-exercised",
    )
    tx = read_transcript(_cell(golden_run, key) / "transcript.jsonl")
    assert not any(x.method == "roots/list" for x in tx.incoming())
    init = next(x for x in tx.lines if x.dir == "out" and x.method == "initialize")
    assert init.obj["params"]["capabilities"]["roots"] == {"listChanged": True}
    assert any(x.method == "notifications/roots/list_changed" for x in tx.lines if x.dir == "out")
