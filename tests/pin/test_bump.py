"""``pin bump``: moving the pins to a newer commit of a real git repository (GitPython).

Each test builds a repository from the pinned files of the offline spec, points the pins at
its first commit, commits a change, and bumps. What must hold: every changed sha256 is
reported and re-pinned, the new commit's cache is filled and readable, new revision folders are
offered as ``pin add`` commands, and any failure leaves the pins file and the cache as they
were.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import git
import pytest

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.pin import bump, load_pins, pinned_text, spec_cache
from compare.pin._pins import dump_pins

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
ROOTS = "docs/specification/draft/client/roots.mdx"
SEP = "seps/2577-deprecate-roots-sampling-and-logging.md"


def _quiet(_message: str) -> None:
    pass


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache and a private copy of the pins file (bump rewrites it)."""
    (tmp_path / "cache").mkdir()
    (tmp_path / "schemas").mkdir()
    shutil.copy(PROJECT_ROOT / "schemas" / "revisions.toml", tmp_path / "schemas")
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MCP_COMPARE_SCHEMAS", str(tmp_path / "schemas"))
    monkeypatch.delenv("MCP_COMPARE_SPEC", raising=False)
    return tmp_path


class Upstream:
    """A git repository holding the pinned files, committed with GitPython."""

    def __init__(self, shared_spec: Path, folder: Path) -> None:
        self.folder = folder
        paths = [p.path for p in load_pins().files]
        for path in paths:
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(shared_spec / path, folder / path)
        self.repo = git.Repo.init(folder, initial_branch="main")
        with self.repo.config_writer() as config:
            config.set_value("user", "name", "test")
            config.set_value("user", "email", "test@example.invalid")
        self.repo.index.add(paths)
        self.first = self.repo.index.commit("the pinned spec files").hexsha

    def commit(self, message: str, write: dict[str, str], remove: tuple[str, ...] = ()) -> str:
        for path, text in write.items():
            (self.folder / path).parent.mkdir(parents=True, exist_ok=True)
            (self.folder / path).write_text(text, encoding="utf-8")
        if write:
            self.repo.index.add(list(write))
        if remove:
            self.repo.index.remove(list(remove), working_tree=True)
        return self.repo.index.commit(message).hexsha


@pytest.fixture
def upstream(shared_spec: Path, fresh: Path) -> Upstream:
    """The repository, with the pins moved to its first commit (same bytes as upstream's)."""
    made = Upstream(shared_spec, fresh / "upstream")
    pins = dataclasses.replace(load_pins(), commit=made.first)
    pins.origin.write_text(dump_pins(pins), encoding="utf-8")
    return made


def _snapshot(fresh: Path) -> tuple[bytes, list[str]]:
    pins = (fresh / "schemas" / "revisions.toml").read_bytes()
    cache = sorted(p.relative_to(fresh).as_posix() for p in (fresh / "cache").rglob("*"))
    return pins, cache


def test_bump_to_head_repins_changed_files_and_offers_new_revisions(
    upstream: Upstream, fresh: Path
) -> None:
    roots = (upstream.folder / ROOTS).read_text(encoding="utf-8") + "\nA sentence added later.\n"
    schema = (upstream.folder / "schema/draft/schema.json").read_text(encoding="utf-8")
    head = upstream.commit("new revision", {ROOTS: roots, "schema/2027-01-15/schema.json": schema})
    before = {p.path: p.sha256 for p in load_pins().files}

    report = bump(load_pins(), None, str(upstream.folder), _quiet)

    assert (report.old_commit, report.new_commit) == (upstream.first, head)
    assert report.chosen_by == "HEAD (refs/heads/main)"
    assert [path for path, _, _ in report.changed] == [ROOTS]
    assert report.changed[0][1] == before[ROOTS] != report.changed[0][2]
    assert len(report.unchanged) == len(before) - 1 and report.dropped == []
    assert report.new_revisions == ["2027-01-15"]
    assert report.add_commands == ["mcp-compare pin add 2027-01-15"]
    pins = load_pins()
    assert pins.commit == head
    repinned = pins.file(ROOTS)
    assert repinned is not None and repinned.sha256 == report.changed[0][2]
    assert pinned_text(ROOTS).endswith("A sentence added later.\n")
    assert (spec_cache(head) / SEP).is_file()


def test_bump_to_a_named_commit_by_short_sha(upstream: Upstream) -> None:
    second = upstream.commit("second", {ROOTS: "changed\n"})
    upstream.commit("third", {ROOTS: "changed again\n"})
    report = bump(load_pins(), second[:10], str(upstream.folder), _quiet)
    assert report.new_commit == second and report.chosen_by == second[:10]
    assert pinned_text(ROOTS) == "changed\n"


def test_a_file_gone_at_the_new_commit_is_an_error_that_changes_nothing(
    upstream: Upstream, fresh: Path
) -> None:
    head = upstream.commit("drop a SEP", {ROOTS: "changed\n"}, remove=(SEP,))
    before = _snapshot(fresh)
    with pytest.raises(CompareError) as err:
        bump(load_pins(), None, str(upstream.folder), _quiet)
    assert SEP in err.value.message and "nothing was changed" in err.value.message
    assert "--drop-missing" in (err.value.hint or "")
    assert _snapshot(fresh) == before
    assert not spec_cache(head).exists()


def test_drop_missing_unpins_the_gone_files(upstream: Upstream) -> None:
    head = upstream.commit("drop a SEP", {}, remove=(SEP,))
    report = bump(load_pins(), None, str(upstream.folder), _quiet, drop_missing=True)
    assert report.dropped == [SEP]
    pins = load_pins()
    assert pins.commit == head and pins.file(SEP) is None


def test_a_revision_schema_gone_is_refused_even_with_drop_missing(
    upstream: Upstream, fresh: Path
) -> None:
    upstream.commit("drop draft schema", {}, remove=("schema/draft/schema.json",))
    before = _snapshot(fresh)
    with pytest.raises(CompareError) as err:
        bump(load_pins(), None, str(upstream.folder), _quiet, drop_missing=True)
    assert "schema/draft/schema.json" in err.value.message
    assert "schema of a pinned revision" in err.value.message
    assert _snapshot(fresh) == before


def test_unknown_commit_is_a_clear_error(upstream: Upstream, fresh: Path) -> None:
    before = _snapshot(fresh)
    with pytest.raises(CompareError, match="not a commit in"):
        bump(load_pins(), "f" * 40, str(upstream.folder), _quiet)
    assert _snapshot(fresh) == before


def test_bump_through_a_git_url_asks_the_remote_for_its_head(upstream: Upstream) -> None:
    head = upstream.commit("newer", {ROOTS: "over the wire\n"})
    report = bump(load_pins(), None, f"file://{upstream.folder}", _quiet)
    assert report.new_commit == head
    assert report.chosen_by == "HEAD of the default branch"
    assert pinned_text(ROOTS) == "over the wire\n"


def test_plain_folder_cannot_be_bumped_and_the_cli_says_so(shared_spec: Path, fresh: Path) -> None:
    before = _snapshot(fresh)
    done = subprocess.run(
        [CLI, "pin", "bump", "--spec-source", str(shared_spec)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "plain folder with no commits" in done.stderr
    assert "git repository" in done.stderr and "Traceback" not in done.stderr
    assert _snapshot(fresh) == before


def test_cli_json_report(upstream: Upstream) -> None:
    schema = (upstream.folder / "schema/draft/schema.json").read_text(encoding="utf-8")
    head = upstream.commit(
        "two changes", {ROOTS: "json\n", "schema/2030-02-02/schema.json": schema}
    )
    done = subprocess.run(
        [CLI, "pin", "bump", "--json", "--spec-source", str(upstream.folder)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["from"] == upstream.first and document["to"] == head
    assert [c["path"] for c in document["changed"]] == [ROOTS]
    assert document["dropped"] == []
    assert document["new_revisions"] == [
        {
            "revision": "2030-02-02",
            "command": f"mcp-compare pin add 2030-02-02 --spec-source {upstream.folder}",
        }
    ]
