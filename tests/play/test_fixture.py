"""The probe fixture: what the harness creates for enforcement probes, and how it is hashed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.peer.client._probes import fill, place_values, snapshot, tool_for
from compare.play._fixture import FILES, build_fixture, probe_places

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
