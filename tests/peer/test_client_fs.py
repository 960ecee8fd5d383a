"""The scripted client's fs steps change only the cell's own workspace.

A path that is absolute, climbs out with .., or goes through a link pointing out of the
workspace is refused and recorded, and nothing outside is touched; a mkdir writes the files
the plan gives for that folder; a link is replaced in one rename."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from compare.peer.client._fs import inside, run_fs


class _Tx:
    def __init__(self) -> None:
        self.notes: list[dict[str, Any]] = []

    def note(self, **fields: Any) -> None:
        self.notes.append(fields)


class _Client:
    def __init__(self, workspace: Path, files: dict[str, dict[str, str]] | None = None) -> None:
        self.plan = {"fixture": str(workspace), "fixture_files": files or {}}
        self.tx = _Tx()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws" / "app").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "keep.txt").write_text("keep\n")
    os.symlink("../elsewhere", tmp_path / "ws" / "out-link")
    return tmp_path / "ws"


@pytest.mark.parametrize(
    "path", ["/etc", "../elsewhere", "app/../../elsewhere", "out-link/keep.txt", ".", ""]
)
def test_paths_that_leave_the_workspace_are_refused(ws: Path, path: str) -> None:
    assert inside(str(ws), path) is None


def test_paths_inside_are_kept_as_written(ws: Path) -> None:
    assert inside(str(ws), "app/new") == f"{ws}/app/new"
    assert inside(str(ws), "out-link") == f"{ws}/out-link"  # the link itself may be replaced


def test_a_refused_remove_touches_nothing_and_is_recorded(ws: Path) -> None:
    client, record = _Client(ws), {}
    run_fs(client, {"fs": {"remove": "out-link/keep.txt"}}, record)
    assert record["outcome"] == "refused-path"
    assert (ws.parent / "elsewhere" / "keep.txt").exists()
    assert client.tx.notes == [
        {"event": "fs", "op": "remove", "path": "out-link/keep.txt", "done": False,
         "why": "outside-workspace"}
    ]  # fmt: skip


def test_mkdir_remove_and_link(ws: Path) -> None:
    client = _Client(ws, {"later": {"probe.txt": "probe\nplace: later\n"}})
    record: dict[str, Any] = {}
    run_fs(client, {"fs": {"mkdir": "later"}}, record)
    assert (ws / "later" / "probe.txt").read_text() == "probe\nplace: later\n"
    run_fs(client, {"fs": {"remove": "later"}}, record)
    assert not (ws / "later").exists() and record["outcome"] == "ok"
    run_fs(client, {"fs": {"link": "app/swing", "to": "../elsewhere"}}, record)
    run_fs(client, {"fs": {"link": "app/swing", "to": "."}}, record)
    assert os.readlink(ws / "app" / "swing") == "."
    assert [n["done"] for n in client.tx.notes] == [True] * 4
