"""A full disk or a read-only ``results/``, ``build/`` or ``site/``: a clear error naming the
path (``CompareError``; exit 2 and no traceback from the command line), and the previous
results left exactly as they were.

The file-system cases are real where this process may mount: a 64 KiB tmpfs for a full
disk, a tmpfs remounted read-only for a read-only folder (``chmod`` is no test here: the
suite runs as root, which writes through any mode bits). Where mounting is not permitted
those tests skip, saying so, and the simulated cases below still run: they make the write
call itself fail with ``ENOSPC`` / ``EROFS`` / ``EACCES``, which is what the kernel would
return, so the same code paths are taken.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compare import _atomic
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT

FAKE_CLIENT = PROJECT_ROOT / "tests" / "play" / "fakes" / "fake_client.py"
COMMAND = f"{sys.executable} {FAKE_CLIENT} --mode good --control {{control}} -- {{server_argv}}"


def _sh(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False)


@pytest.fixture
def mount(tmp_path: Path) -> Iterator[Callable[[str, str], Path]]:
    """``mount(name, size)``: a fresh tmpfs of that size at ``tmp_path/name``, unmounted after
    the test; skips the test when this process may not mount."""
    mounted: list[Path] = []

    def make(name: str, size: str = "64k") -> Path:
        where = tmp_path / name
        where.mkdir()
        done = _sh("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where))
        if done.returncode != 0:
            pytest.skip(f"not run, because mounting a tmpfs is not permitted: {done.stderr}")
        mounted.append(where)
        return where

    yield make
    for where in reversed(mounted):
        if _sh("umount", str(where)).returncode != 0:
            _sh("umount", "-l", str(where))


def _read_only(where: Path) -> None:
    done = _sh("mount", "-o", "remount,ro", str(where))
    assert done.returncode == 0, done.stderr


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.tmp"))


def test_a_full_disk_names_the_file_and_keeps_the_old_one(
    mount: Callable[[str, str], Path],
) -> None:
    disk = mount("disk", "64k")
    target = disk / "build" / "rows.json"
    _atomic.write_json(target, {"format": 1, "areas": []})
    before = target.read_bytes()
    with pytest.raises(CompareError) as caught:
        _atomic.write_bytes(target, b"x" * 200_000)
    assert caught.value.message.startswith(f"cannot write {target}: No space left on device")
    assert caught.value.hint and "the disk is full" in caught.value.hint
    assert target.read_bytes() == before and _leftovers(disk) == []


def test_a_read_only_folder_names_the_file_and_keeps_the_old_one(
    mount: Callable[[str, str], Path],
) -> None:
    site = mount("site", "1m")
    page = site / "docs" / "index.md"
    _atomic.write_text(page, "# old\n")
    _read_only(site)
    for path in (page, site / "docs" / "new" / "page.md"):  # replace, and create a folder
        with pytest.raises(CompareError) as caught:
            _atomic.write_text(path, "# new\n")
        assert caught.value.message == f"cannot write {path}: Read-only file system"
        assert caught.value.hint and "read-only" in caught.value.hint
    assert page.read_text(encoding="utf-8") == "# old\n"


def _mc(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        capture_output=True,
        text=True,
        cwd=PROJECT_ROOT,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), **env},
        timeout=300,
        check=False,
    )


def _run(
    results: Path, pinned_spec: Path, revision: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    """``mcp-compare run`` of one fake-client cell (the ``command`` target) into ``results``."""
    return _mc(
        "run",
        *extra,
        "--target",
        "command",
        "--command",
        COMMAND,
        "--scenario",
        "handshake",
        "--revision",
        revision,
        "--results",
        str(results),
        env={"MCP_COMPARE_CACHE": str(pinned_spec)},
    )


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_run_into_a_read_only_results_folder_is_exit_2_and_keeps_the_cells(
    mount: Callable[[str, str], Path], pinned_spec: Path
) -> None:
    results = mount("results", "4m")
    first = _run(results, pinned_spec, "2025-11-25")
    assert first.returncode == 0, first.stderr
    before = _tree(results)
    _read_only(results)
    # a cell to replace (forced), and a new one
    for revision, extra in (("2025-11-25", ("--force",)), ("2025-06-18", ())):
        proc = _run(results, pinned_spec, revision, *extra)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
        said = " ".join(proc.stderr.split())
        assert f"error: cannot write {results}/command/" in said, said
        assert "Read-only file system" in said and "hint:" in said
    assert _tree(results) == before


def test_run_onto_a_full_disk_is_exit_2_and_keeps_the_cells(
    mount: Callable[[str, str], Path], pinned_spec: Path
) -> None:
    results = mount("results", "256k")
    first = _run(results, pinned_spec, "2025-11-25")
    assert first.returncode == 0, first.stderr
    before = _tree(results)
    filler = results / "filler"
    with filler.open("wb", buffering=0) as handle:  # fill it: no cell fits any more
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as err:
            assert err.errno == errno.ENOSPC
    proc = _run(results, pinned_spec, "2025-06-18")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    said = " ".join(proc.stderr.split())
    assert f"error: cannot write {results}/command/" in said, said
    assert "No space left on device" in said and "the disk is full" in said
    filler.unlink()
    assert _tree(results) == before
    assert not [p for p in results.rglob("*") if ".stage-" in p.name or p.name.endswith(".tmp")]


@pytest.mark.parametrize("site_or_build", ["site", "build"])
def test_render_and_rows_into_a_read_only_folder_are_exit_2(
    mount: Callable[[str, str], Path],
    isolated: Path,
    site_or_build: str,
) -> None:
    """``render`` writes ``site/docs/``, ``rows`` writes ``build/rows.json``."""
    sys.path.insert(0, str(PROJECT_ROOT / "tests" / "site"))
    from site_data import write_dataset

    write_dataset(isolated)
    folder = mount(f"read-only-{site_or_build}", "4m")
    env = {
        "MCP_COMPARE_SITE": str(isolated / "site"),
        f"MCP_COMPARE_{site_or_build.upper()}": str(folder),
    }
    env |= {f"MCP_COMPARE_{n.upper()}": str(isolated / n) for n in ("cache", "results")}
    if site_or_build == "build":
        for name in ("diff.json", "rows.json", "citations.json"):
            (folder / name).write_bytes((isolated / "build" / name).read_bytes())
    command = ("render",) if site_or_build == "site" else ("rows",)
    before = _tree(folder)
    _read_only(folder)
    proc = _mc(*command, env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    said = " ".join(proc.stderr.split())
    assert f"error: cannot write {folder}/" in said and "Read-only file system" in said, said
    assert _tree(folder) == before


# ---- simulated: the write call fails as the kernel would, wherever mounting is not allowed


@pytest.mark.parametrize(
    ("code", "hint"),
    [
        (errno.ENOSPC, "the disk is full"),
        (errno.EROFS, "read-only"),
        (errno.EACCES, "permissions"),
    ],
)
@pytest.mark.parametrize("at", ["mkstemp", "write", "replace"])
def test_a_refused_write_is_a_compare_error_and_leaves_no_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, hint: str, at: str
) -> None:
    """Simulated, so it runs without mount rights: the failing call raises the ``OSError``
    the kernel gives for a full disk, a read-only mount or a foreign folder."""
    target = tmp_path / "results" / "verdict.json"
    _atomic.write_json(target, {"old": True})
    before = target.read_bytes()

    def refuse(*_args: object, **_kw: object) -> None:
        raise OSError(code, os.strerror(code))

    if at == "mkstemp":
        monkeypatch.setattr(_atomic.tempfile, "mkstemp", refuse)
    elif at == "replace":
        monkeypatch.setattr(_atomic.os, "replace", refuse)
    else:
        monkeypatch.setattr(_atomic.os, "fsync", refuse)
    with pytest.raises(CompareError) as caught:
        _atomic.write_json(target, {"new": True})
    assert caught.value.message == f"cannot write {target}: {os.strerror(code)}"
    assert caught.value.hint and hint in caught.value.hint
    monkeypatch.undo()
    assert target.read_bytes() == before and _leftovers(tmp_path) == []


def test_the_command_line_names_the_path_of_any_refused_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A write outside ``_atomic`` (a folder renamed into place) refused by the file system
    reaches ``main`` as an ``OSError``: printed as an error naming the path, exit 2."""
    from compare import cli

    def refuse() -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(tmp_path / "site" / "build"))

    monkeypatch.setattr(cli, "app", refuse)
    monkeypatch.setattr(sys, "argv", ["mcp-compare", "site"])
    monkeypatch.setattr(cli, "_register_stages", lambda: None)
    with pytest.raises(SystemExit) as done:
        cli.main()
    assert done.value.code == 2
    said = " ".join(capsys.readouterr().err.split())
    assert f"error: cannot write {tmp_path}/site/build: Read-only file system" in said
    assert "hint:" in said

    def bug() -> None:
        raise OSError(errno.EBADF, "a bug of ours")

    monkeypatch.setattr(cli, "app", bug)
    with pytest.raises(OSError, match="a bug of ours"):  # keeps its traceback
        cli.main()


def test_a_disk_that_filled_during_a_cell_stops_the_run_before_judging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pinned_spec: Path
) -> None:
    """Simulated (``statvfs`` reports no free space after the play): the peer's transcript
    may have been cut short by the full disk, so nothing is judged or stored, the run stops
    naming the cell's folder, and the cell stored before is kept."""
    from compare.exchange._scenarios import load_scenarios
    from compare.play._cells import Cell
    from compare.play._harness import RunSettings, run_cells
    from compare.play._integrity import inspect

    sys.path.insert(0, str(PROJECT_ROOT / "tests"))
    from _revisions import revisions
    from play.fakes import fake_target

    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    scenario = next(s for s in load_scenarios() if s.id == "handshake")
    cell = Cell(fake_target("good"), "default", scenario, "2025-11-25")
    settings = RunSettings(tmp_path / "results", "test-commit", revisions())
    [first] = run_cells([cell], settings)
    before = _tree(cell.folder(settings.results))

    class Full:
        f_bavail, f_frsize = 3, 4096

    monkeypatch.setattr(_atomic.os, "statvfs", lambda _path: Full())
    with pytest.raises(CompareError) as caught:
        run_cells([cell], RunSettings(settings.results, "test-commit", revisions(), force=True))
    assert caught.value.message.startswith(f"cannot write {cell.folder(settings.results).parent}/")
    assert "No space left on device" in caught.value.message
    assert (
        _tree(cell.folder(settings.results)) == before
        and not inspect(cell.folder(settings.results)).damage
    )
    assert first["verdict"] == "pass"
    assert not [p for p in settings.results.rglob("*") if ".stage-" in p.name]
