"""A stored cell damaged after it was written (truncated, a byte flipped, replaced by JSON of
the wrong shape, deleted) is detected, named in one line, and rebuilt — never reused.

The fake client plays the cells (fast); each damage is followed by a plain run, which must
say which file is damaged and rebuild the cell to the same outcome it had.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import load_scenarios
from compare.play._cells import Cell, scan_cells
from compare.play._harness import RunSettings, run_cells
from compare.play._integrity import inspect, seal_of
from compare.play._merge import merge
from compare.rows._cells import read_cells
from compare.site._cells import load_cells as site_cells

from .fakes import fake_target

KNOWN = revisions()


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _cell() -> Cell:
    scenario = next(s for s in load_scenarios() if s.id == "roots-list")
    return Cell(fake_target("good"), "default", scenario, "2025-06-18")


def _settings(tmp_path: Path, **kw: bool) -> RunSettings:
    return RunSettings(tmp_path / "results", "test-commit", KNOWN, **kw)


def _outcomes(verdict: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What a rebuilt cell must agree on (timings and transcript clocks differ per play)."""
    return [(c["id"], c["verdict"], c["outcome"]) for c in verdict["checks"]]


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    if not data:
        pytest.skip(f"{path.name} is empty here: nothing to truncate")
    path.write_bytes(data[: len(data) // 2])


def _flip(path: Path) -> None:
    """One bit: the size stays, only the hash can tell (an empty file gains a byte)."""
    data = bytearray(path.read_bytes() or b"\0")
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _wrong_shape(path: Path) -> None:
    path.write_text('[{"valid": "json", "wrong": "shape"}]\n', encoding="utf-8")


def _delete(path: Path) -> None:
    path.unlink()


DAMAGES: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "byte-flipped": _flip,
    "wrong-shape": _wrong_shape,
    "deleted": _delete,
}
#: Every file the fake client's cell writes besides its verdict.
CELL_FILES = (
    "transcript.jsonl",
    "plan.json",
    "client.stdout",
    "client.stderr",
    "done.json",
    "process.json",
)


@pytest.fixture(scope="module")
def played(
    tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path
) -> tuple[Path, dict[str, Any]]:
    """One played cell, copied by each test (playing costs a client run)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    try:
        root = tmp_path_factory.mktemp("played")
        [first] = run_cells([_cell()], _settings(root))
    finally:
        mp.undo()
    assert first["verdict"] == "pass", first["reason"]
    return root, first


def _copy(played: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    root, first = played
    shutil.copytree(root / "results", tmp_path / "results")
    return _cell().folder(tmp_path / "results"), first


def test_a_stored_cell_records_and_seals_what_it_wrote(
    played: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, first = _copy(played, tmp_path)
    stored = json.loads((folder / "verdict.json").read_text(encoding="utf-8"))
    assert set(stored["written"]) >= set(CELL_FILES)
    for name, record in stored["written"].items():
        assert record["bytes"] == (folder / name).stat().st_size
    assert stored["seal"] == seal_of(stored)
    [again] = run_cells([_cell()], _settings(tmp_path))
    assert again["cached"] is True and again["seal"] == first["seal"]


#: Which damage each cell file gets: every damage on the transcript, and each other file one
#: damage, every kind used (the client's output files are empty here, so they are not the
#: ones truncated). A damage is told apart by the file's size and hash against the verdict's
#: record whatever the file, so this covers each file and each damage without playing all
#: 24 pairs (each plays the cell again).
DAMAGED_FILES = [
    *(("transcript.jsonl", kind) for kind in sorted(DAMAGES)),
    ("plan.json", "wrong-shape"),
    ("client.stdout", "byte-flipped"),
    ("client.stderr", "deleted"),
    ("done.json", "truncated"),
    ("process.json", "wrong-shape"),
]


@pytest.mark.parametrize(("name", "damage"), DAMAGED_FILES)
def test_a_damaged_cell_file_is_named_and_the_cell_played_again(
    played: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    damage: str,
) -> None:
    folder, first = _copy(played, tmp_path)
    DAMAGES[damage](folder / name)
    [again] = run_cells([_cell()], _settings(tmp_path))
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1, said
    assert said[0].startswith(f"{folder / name} "), said
    assert said[0].endswith("; playing the cell again"), said
    assert not again.get("cached") and "rejudged_at" not in again
    assert again["started_at"] >= first["started_at"]
    assert _outcomes(again) == _outcomes(first) and again["verdict"] == first["verdict"]
    assert not inspect(folder).damage  # rebuilt and sealed again
    [third] = run_cells([_cell()], _settings(tmp_path))
    assert third["cached"] is True and capsys.readouterr().err == ""


def _edit_verdict(path: Path) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    value["verdict"], value["reason"] = "fail", "hand-edited"
    path.write_text(json.dumps(value), encoding="utf-8")


@pytest.mark.parametrize(
    ("damage", "then"),
    [
        ("truncated", "playing the cell again"),
        ("wrong-shape", "playing the cell again"),
        ("deleted", None),  # no verdict: nothing to report, the cell is simply played
        ("hand-edited", "judging the stored transcript again"),
    ],
)
def test_a_damaged_verdict_is_named_and_rebuilt(
    played: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: str,
    then: str | None,
) -> None:
    folder, first = _copy(played, tmp_path)
    path = folder / "verdict.json"
    (_edit_verdict if damage == "hand-edited" else DAMAGES[damage])(path)
    [again] = run_cells([_cell()], _settings(tmp_path))
    said = capsys.readouterr().err.strip()
    if then is None:
        assert said == ""
    else:
        assert said.startswith(f"{path} "), said
        assert said.endswith(then), said
    assert not again.get("cached")
    assert _outcomes(again) == _outcomes(first) and again["verdict"] == "pass"
    if damage == "hand-edited":  # judged from the intact files: the play's facts are the first's
        assert "rejudged_at" in again
        assert (again["process"], again["started_at"]) == (first["process"], first["started_at"])
        assert again["written"] == first["written"]
    assert not inspect(folder).damage


def test_a_flipped_byte_in_the_verdict_is_caught(
    played: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whichever byte: either the JSON breaks or the seal no longer holds."""
    folder, first = _copy(played, tmp_path)
    path = folder / "verdict.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"pass"', '"pasS"', 1), encoding="utf-8")
    [again] = run_cells([_cell()], _settings(tmp_path))
    assert (
        "verdict.json was changed after it was written (seal mismatch)" in capsys.readouterr().err
    )
    assert again["verdict"] == "pass" and _outcomes(again) == _outcomes(first)


def test_rejudge_refuses_damaged_files_and_writes_nothing(
    played: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, _first = _copy(played, tmp_path)
    _flip(folder / "transcript.jsonl")
    before = (folder / "verdict.json").read_bytes()
    [again] = run_cells([_cell()], _settings(tmp_path, rejudge=True))
    assert again["verdict"] == "error" and "transcript.jsonl was changed" in again["reason"]
    assert "not judged again" in capsys.readouterr().err
    assert (folder / "verdict.json").read_bytes() == before


def test_an_unsealed_older_cell_is_judged_again_quietly(
    played: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, first = _copy(played, tmp_path)
    path = folder / "verdict.json"
    old = json.loads(path.read_text(encoding="utf-8"))
    for name in ("seal", "written"):
        del old[name]
    path.write_text(json.dumps(old), encoding="utf-8")
    [again] = run_cells([_cell()], _settings(tmp_path))
    assert capsys.readouterr().err == ""
    assert "rejudged_at" in again and again["started_at"] == first["started_at"]
    assert _outcomes(again) == _outcomes(first) and not inspect(folder).damage


def test_later_stages_name_the_damaged_file(
    played: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    folder, _first = _copy(played, tmp_path)
    _truncate(folder / "transcript.jsonl")
    scan = scan_cells(tmp_path / "results")
    assert scan.cells == []
    [bad] = scan.unreadable
    assert bad.path == folder / "transcript.jsonl" and "changed after it was written" in bad.why
    [line] = read_cells(tmp_path / "results").broken
    assert line.startswith(f"{folder / 'transcript.jsonl'}: ")
    cells, problems = site_cells(tmp_path / "results")
    assert cells == [] and [p.where for p in problems][-1].endswith("/transcript.jsonl")
    assert problems[-1].what.startswith("damaged cell file: was changed after it was written")


def test_merge_refuses_a_damaged_source_cell(
    played: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    from compare._errors import CompareError

    folder, _first = _copy(played, tmp_path)
    _delete(folder / "client.stdout")
    with pytest.raises(CompareError, match=r"client\.stdout is missing"):
        merge([tmp_path / "results"], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


@pytest.fixture
def _fresh_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A record of intact cells of this test's own, read afresh (as by a new command)."""
    from compare.play import _integrity

    monkeypatch.setenv("MCP_COMPARE_YAML_CACHE", str(tmp_path / "yaml"))
    monkeypatch.setattr(_integrity, "_INTACT", None)
    monkeypatch.setattr(_integrity, "_INTACT_SEEN", set())
    monkeypatch.setattr(_integrity, "_INTACT_NEW", set())
    return _integrity.intact_path()


def _new_command() -> None:
    """Forget what this process read of the record, as the next command would not know it."""
    from compare.play import _integrity

    _integrity._INTACT = None


def _signatures(record: Path) -> list[str]:
    if not record.is_file():
        return []
    listed: list[str] = json.loads(record.read_text(encoding="utf-8"))["intact"]
    return listed


def test_a_settled_intact_cell_is_not_hashed_again_by_the_next_command(
    played: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    _fresh_record: Path,
) -> None:
    from compare.play import _integrity

    monkeypatch.setattr(_integrity, "_SETTLED_NS", -(10**12))  # every file counts as settled
    folder, _first = _copy(played, tmp_path)
    assert len(scan_cells(tmp_path / "results").cells) == 1
    assert len(_signatures(_fresh_record)) == 1
    _new_command()

    def no_hashing(*_args: object) -> str:
        raise AssertionError("a vouched-for cell was hashed again")

    with monkeypatch.context() as m:
        m.setattr(_integrity, "seal_of", no_hashing)
        m.setattr(_integrity, "_sha256", no_hashing)
        assert len(scan_cells(tmp_path / "results").cells) == 1
    # A later write to one of its files is a new signature: checked in full, and caught.
    # (Later than the clock tick of the copy: within it the times may not move, which is why
    # a real command vouches only for settled cells; this test set that rule aside.)
    time.sleep(0.05)
    _flip(folder / "transcript.jsonl")
    _new_command()
    scan = scan_cells(tmp_path / "results")
    assert scan.cells == [] and "sha256 mismatch" in scan.unreadable[0].why


def test_a_cell_written_a_moment_ago_is_checked_every_time(
    played: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    _fresh_record: Path,
) -> None:
    """Within the clock tick of its last write a file can change and keep its times: a fresh
    cell is not vouched for until it settles."""
    from compare.play import _integrity

    # "A moment ago" is a day here: on a loaded machine the copy and the scan below can be
    # more than the real two seconds apart, and then the copy has settled (a CI run saw it).
    monkeypatch.setattr(_integrity, "_SETTLED_NS", 86_400 * 10**9)
    _copy(played, tmp_path)  # the copy's status-change times are now
    assert len(scan_cells(tmp_path / "results").cells) == 1
    assert _signatures(_fresh_record) == []


@pytest.mark.parametrize("garbage", [b"", b"\xff\xfe not json", b'{"format": 1, "intact": 7}'])
def test_an_unreadable_record_of_intact_cells_means_checking_everything(
    played: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    _fresh_record: Path,
    garbage: bytes,
) -> None:
    from compare.play import _integrity

    monkeypatch.setattr(_integrity, "_SETTLED_NS", -(10**12))
    _copy(played, tmp_path)
    _fresh_record.parent.mkdir(parents=True, exist_ok=True)
    _fresh_record.write_bytes(garbage)
    hashed: list[str] = []
    real = _integrity._sha256
    monkeypatch.setattr(_integrity, "_sha256", lambda p: hashed.append(p.name) or real(p))
    assert len(scan_cells(tmp_path / "results").cells) == 1
    assert set(hashed) >= set(CELL_FILES)  # checked in full
    assert len(_signatures(_fresh_record)) == 1  # and the record written anew
