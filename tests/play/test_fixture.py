"""The probe fixture: what the harness creates for enforcement probes, and how it is hashed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.peer.client._probes import fill, place_values, snapshot, tool_for
from compare.play._fixture import (
    FILES,
    beside,
    build_fixture,
    build_sources,
    file_marker,
    folder_files,
    folder_marker,
    not_created,
    probe_places,
)

SPEC = {
    "folders": ["app", "outside", "linked"],
    "links": {"app/link-out": "../outside", "link-root": "linked"},
}


def test_folders_get_their_files_and_links_point_where_written(tmp_path: Path) -> None:
    build_fixture(SPEC, tmp_path)
    for folder in SPEC["folders"]:
        names = {p.name for p in (tmp_path / folder).iterdir() if not p.is_symlink()}
        assert names == set(FILES)
    assert os.readlink(tmp_path / "app" / "link-out") == "../outside"
    linked = (tmp_path / "linked" / "canary.txt").resolve()
    assert (tmp_path / "link-root" / "canary.txt").resolve() == linked


def test_folder_files_land_in_every_folder_with_the_place_named(tmp_path: Path) -> None:
    spec = {**SPEC, "folder_files": {"pkg/sub/package.json": '{"place": "{place}"}'}}
    build_fixture(spec, tmp_path)
    for folder in SPEC["folders"]:
        text = (tmp_path / folder / "pkg" / "sub" / "package.json").read_text(encoding="utf-8")
        assert text == '{"place": "' + folder + '"}'  # only {place} is replaced, braces kept
    # a link is made after the files, so a link-root holds the files of the folder it names
    assert (tmp_path / "link-root" / "pkg" / "sub" / "package.json").exists()


@pytest.mark.parametrize("bad", ["/etc/x", "../escape", "pkg/../../x"])
def test_a_folder_file_leaving_its_folder_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(CompareError, match="inside the workspace"):
        build_fixture({"folders": ["app"], "folder_files": {bad: "x"}}, tmp_path / "ws")
    assert not (tmp_path / "escape").exists()


@pytest.mark.parametrize("bad", ["/etc", "../escape", "app/../../x"])
def test_a_fixture_path_leaving_the_workspace_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(CompareError, match="inside the workspace"):
        build_fixture({"folders": [bad]}, tmp_path / "ws")
    assert not (tmp_path / "escape").exists()


def test_places_keep_their_text_and_know_where_they_land(tmp_path: Path) -> None:
    build_fixture(SPEC, tmp_path)
    places = probe_places(
        {"places": {
            "dotdot": {"path": "app/../outside", "expect": "refused"},
            "escape": {"path": "app/link-out", "expect": "refused"},
        }},
        tmp_path,
    )  # fmt: skip
    assert places["dotdot"]["dir"] == f"{tmp_path}/app/../outside"  # sent unnormalised
    assert places["dotdot"]["real"] == "outside"
    assert places["escape"]["real"] == "outside"


def test_snapshot_hashes_files_without_following_links(tmp_path: Path) -> None:
    build_fixture(SPEC, tmp_path)
    before = snapshot(str(tmp_path))
    assert before["app/link-out"] == "link:../outside"
    assert "app/link-out/canary.txt" not in before
    (tmp_path / "outside" / "canary.txt").write_text("changed", encoding="utf-8")
    after = snapshot(str(tmp_path))
    changed = [k for k in before if before[k] != after[k]]
    assert changed == ["outside/canary.txt"]


def test_placeholders_and_tool_matching() -> None:
    values = place_values("/w/app", "write", "probes")
    args = fill({"path": "{new}", "list": ["{file}", "{unknown}"]}, values)
    assert args["path"] == "/w/app/new-probes-write.txt"
    assert args["list"] == ["/w/app/probe.txt", "{unknown}"]
    tools = [{"name": "read_file_extra"}, {"name": "read_file"}, {"name": "write"}]
    assert tool_for({"match": "read_text_file|read_file"}, tools) == "read_file"
    assert tool_for({"match": "("}, tools) is None  # a broken pattern matches nothing


def test_fixture_files_hold_their_own_markers_and_absent_names_stay_absent(
    tmp_path: Path,
) -> None:
    """A file a root names holds a line no other fixture file has; an ``absent`` name is a
    root the harness does not create (a fixture ``files`` or ``absent`` name is never made a
    folder by the roots either: ``not_created``)."""
    spec = {"folders": ["app", "."], "files": ["notes.txt"], "absent": ["later"]}
    build_fixture(spec, tmp_path)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == file_marker("notes.txt")
    assert (tmp_path / "probe.txt").read_text(encoding="utf-8").endswith("place: .\n")
    assert folder_marker("app") in (tmp_path / "app" / "probe.txt").read_text(encoding="utf-8")
    assert not (tmp_path / "later").exists()
    assert not_created(spec) == {"notes.txt", "later"}
    assert folder_files("later")["probe.txt"].endswith("place: later\n")


def test_a_place_may_name_its_own_file_and_dot_is_the_workspace(tmp_path: Path) -> None:
    places = probe_places(
        {"places": {"file-root": {"path": ".", "file": "notes.txt", "expect": "allowed"}}},
        tmp_path,
    )
    assert places["file-root"]["dir"] == str(tmp_path) and places["file-root"]["real"] == "."
    values = place_values(places["file-root"]["dir"], "read", "s", file=places["file-root"]["file"])
    assert values["file"] == f"{tmp_path}/notes.txt"


def test_a_cross_place_probe_moves_its_own_file_into_the_other_folder(tmp_path: Path) -> None:
    """A place with ``to`` gets a source file of its own (so two cross probes from one folder
    never take each other's) and names its targets in the ``to`` folder, place and all."""
    build_fixture({"folders": ["app", "deep/other"]}, tmp_path)
    probe = {"places": {"across": {"path": "app", "to": "deep/other", "expect": "allowed"}}}
    build_sources(probe, tmp_path)
    assert (tmp_path / "app" / "movable-across.txt").is_file()
    place = probe_places(probe, tmp_path)["across"]
    assert place["to_real"] == "deep/other"
    values = place_values(place["dir"], "move", "cross", "across", place["to_dir"])
    assert values["src"] == f"{tmp_path}/app/movable-across.txt"
    assert values["dst"] == f"{tmp_path}/deep/other/moved-cross-move-across.txt"
    assert values["copy"] == f"{tmp_path}/deep/other/copied-cross-move-across.txt"
    assert values["file"] == f"{tmp_path}/app/probe.txt"  # what a copy reads stays here


def test_the_beside_folder_lies_next_to_the_workspace_named_after_it(tmp_path: Path) -> None:
    """``{beside}`` is the one way out of the workspace: a folder in the cell's own temporary
    folder, named after the workspace so its URI needs the same percent-encoding."""
    workspace = tmp_path / "web #staging é"
    workspace.mkdir()
    build_fixture({"folders": ["app", "{beside}"]}, workspace)
    out = beside(workspace)
    assert out == tmp_path / "web #staging é-beside"
    assert {p.name for p in out.iterdir()} == set(FILES)
    places = probe_places(
        {"places": {"adopted": {"path": "{beside}", "expect": "allowed"}}}, workspace
    )
    assert places["adopted"]["dir"] == str(out)
    assert places["adopted"]["real"] == "../web #staging é-beside"
    with pytest.raises(CompareError, match="inside the workspace"):
        build_fixture({"folders": ["{beside}/../../x"]}, workspace)
