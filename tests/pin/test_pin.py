"""The pin stage against real sources: a git repository (via file:// URL and by path), the
plain offline folder, and the faults a user can cause (tampered files, unknown revisions,
missing sources, malformed pins)."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import git
import pytest

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.pin import (
    _source,
    add_revision,
    fetch,
    load_pins,
    pinned_path,
    pinned_text,
    spec_cache,
    upstream_link,
    verify,
)
from compare.pin._pins import dump_pins, write_pins

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")


def _quiet(_message: str) -> None:
    pass


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache and a private copy of the pins file (so tests may rewrite it)."""
    (tmp_path / "cache").mkdir()
    (tmp_path / "schemas").mkdir()
    shutil.copy(PROJECT_ROOT / "schemas" / "revisions.toml", tmp_path / "schemas")
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MCP_COMPARE_SCHEMAS", str(tmp_path / "schemas"))
    monkeypatch.delenv("MCP_COMPARE_SPEC", raising=False)
    return tmp_path


def _copy_pinned(shared_spec: Path, dest: Path) -> None:
    for pinned in load_pins().files:
        target = dest / pinned.path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_spec / pinned.path, target)


def _git_repo_of_spec(shared_spec: Path, dest: Path) -> str:
    """Commit the pinned files of the offline spec into a new repository; return the commit."""
    _copy_pinned(shared_spec, dest)
    repo = git.Repo.init(dest)
    with repo.config_writer() as config:
        config.set_value("user", "name", "test")
        config.set_value("user", "email", "test@example.invalid")
    repo.index.add([str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file()
                    and ".git" not in p.parts])  # fmt: skip
    commit = repo.index.commit("spec files").hexsha
    repo.close()
    return commit


def _manifest_revisions(listed: dict[str, str]) -> list[str]:
    """The revisions upstream has a schema for, read from the manifest rather than the pins so
    that comparing the two can fail: dated folders ascending, ``draft`` last."""
    names = {
        parts[1]
        for path in listed
        if len(parts := path.split("/")) == 3 and parts[0] == "schema" and parts[2] == "schema.json"
    }
    return sorted(names, key=lambda name: (name == "draft", name))


def _repin_commit(commit: str) -> None:
    pins = dataclasses.replace(load_pins(), commit=commit)
    pins.origin.write_text(dump_pins(pins), encoding="utf-8")


def test_committed_pins_agree_with_the_upstream_manifest(shared_spec: Path) -> None:
    pins = load_pins()
    manifest = (shared_spec / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    assert pins.commit in manifest[0]
    listed = dict(line.split("\t")[:2] for line in manifest[2:] if line.strip())
    expected = _manifest_revisions(listed)
    assert len(expected) >= 2 and expected[-1] == "draft"
    assert pins.revision_names == expected
    assert pins.revision("draft").status == "unreleased"
    assert {r.status for r in pins.revisions[:-1]} == {"released"}
    for pinned in pins.files:
        assert listed[pinned.path] == pinned.sha256, pinned.path
        assert _sha(shared_spec / pinned.path) == pinned.sha256, pinned.path
    paths = {p.path for p in pins.files}
    for rev in expected:
        assert f"schema/{rev}/schema.json" in paths
        assert f"docs/specification/{rev}/client/roots.mdx" in paths
        # Newer revisions have no lifecycle page (no initialize); pinned wherever upstream has one.
        lifecycle = f"docs/specification/{rev}/basic/lifecycle.mdx"
        assert lifecycle in paths or lifecycle not in listed, lifecycle
    for page in ("basic/patterns/mrtr.mdx", "deprecated.mdx"):
        assert f"docs/specification/2026-07-28/{page}" in paths
        assert f"docs/specification/draft/{page}" in paths
    for sep in ("2322", "2575", "2577"):
        assert any(p.startswith(f"seps/{sep}-") for p in paths), sep


def test_pin_from_git_url_then_verify(shared_spec: Path, fresh: Path) -> None:
    commit = _git_repo_of_spec(shared_spec, fresh / "upstream")
    _repin_commit(commit)
    url = f"file://{fresh / 'upstream'}"
    report = fetch(load_pins(), url, _quiet)
    assert report.source == f"git {url} @ {commit[:12]}"
    assert len(report.fetched) == len(load_pins().files)
    clones = list((fresh / "cache" / "git").iterdir())
    assert len(clones) == 1 and git.Repo(clones[0]).bare
    schema = pinned_path("schema/2025-06-18/schema.json")
    assert schema == spec_cache(commit) / "schema/2025-06-18/schema.json"
    assert schema.read_bytes() == (shared_spec / "schema/2025-06-18/schema.json").read_bytes()
    checked = verify(load_pins(), None, _quiet, fetch_missing=False)
    assert len(checked.verified) == len(load_pins().files) and not checked.fetched
    # warm: the existing clone is reused, not cloned again
    again = fetch(load_pins(), url, _quiet)
    assert list((fresh / "cache" / "git").iterdir()) == clones
    assert len(again.fetched) == len(load_pins().files)


def test_pin_from_local_git_repository_path(shared_spec: Path, fresh: Path) -> None:
    commit = _git_repo_of_spec(shared_spec, fresh / "clone")
    _repin_commit(commit)
    report = fetch(load_pins(), str(fresh / "clone"), _quiet)
    assert report.source is not None and report.source.startswith("git ")
    assert not (fresh / "cache" / "git").exists()  # read in place, not cloned
    assert "roots/list" in pinned_text("docs/specification/2025-11-25/client/roots.mdx")


def test_git_source_without_the_pinned_commit_is_a_clear_error(
    shared_spec: Path, fresh: Path
) -> None:
    _git_repo_of_spec(shared_spec, fresh / "clone")
    with pytest.raises(CompareError) as caught:
        fetch(load_pins(), str(fresh / "clone"), _quiet)
    assert load_pins().commit in caught.value.message
    assert caught.value.hint and "MCP_COMPARE_SPEC" in caught.value.hint


def test_pin_from_plain_folder_via_the_cli(shared_spec: Path, fresh: Path) -> None:
    env = {**os.environ, "MCP_COMPARE_SPEC": str(shared_spec)}
    done = subprocess.run([CLI, "pin", "verify"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"{len(load_pins().files)} fetched" in done.stdout.replace("\n", " ")
    cached = spec_cache(load_pins().commit)
    assert _sha(cached / "schema/draft/schema.json") == _sha(
        shared_spec / "schema/draft/schema.json"
    )
    offline = subprocess.run(
        [CLI, "pin", "verify", "--no-fetch"],
        env={k: v for k, v in os.environ.items() if k != "MCP_COMPARE_SPEC"},
        capture_output=True,
        text=True,
    )
    assert offline.returncode == 0, offline.stderr
    assert "0 fetched" in offline.stdout.replace("\n", " ")


def test_tampered_source_names_file_and_both_hashes_and_keeps_the_cache(
    shared_spec: Path, fresh: Path
) -> None:
    fetch(load_pins(), str(shared_spec), _quiet)
    path = "docs/specification/2025-06-18/client/roots.mdx"
    good = pinned_path(path).read_bytes()
    tampered = fresh / "tampered"
    _copy_pinned(shared_spec, tampered)
    (tampered / path).write_bytes(good.replace(b"roots", b"r00ts", 1))
    with pytest.raises(CompareError) as caught:
        fetch(load_pins(), str(tampered), _quiet)
    message = caught.value.message
    assert path in message
    assert load_pins().file(path).sha256 in message  # type: ignore[union-attr]
    assert _sha(tampered / path) in message
    assert pinned_path(path).read_bytes() == good
    assert not list((fresh / "cache" / "spec").glob(".incoming-*"))


def test_altered_cache_is_refused_on_read_and_repaired_by_verify(
    shared_spec: Path, fresh: Path
) -> None:
    fetch(load_pins(), str(shared_spec), _quiet)
    path = "schema/2024-11-05/schema.json"
    cached = spec_cache(load_pins().commit) / path
    cached.write_bytes(cached.read_bytes() + b"\n")
    with pytest.raises(CompareError) as caught:
        pinned_path(path)
    assert "pin verify" in (caught.value.hint or "")
    with pytest.raises(CompareError):
        verify(load_pins(), None, _quiet, fetch_missing=False)
    report = verify(load_pins(), str(shared_spec), _quiet)
    assert report.fetched == [path] and report.replaced[0][0] == path
    assert _sha(pinned_path(path)) == load_pins().file(path).sha256  # type: ignore[union-attr]


def test_unpinned_or_unfetched_file_is_a_clear_error(fresh: Path) -> None:
    with pytest.raises(CompareError, match="not been fetched"):
        pinned_path("schema/2025-06-18/schema.json")
    with pytest.raises(CompareError, match="not pinned"):
        pinned_path("README.md")


def test_unknown_revision(shared_spec: Path, fresh: Path) -> None:
    with pytest.raises(CompareError) as caught:
        load_pins().revision("2099-01-01")
    assert "draft" in caught.value.message
    with pytest.raises(CompareError, match=r"schema/2099-01-01/schema\.json not found"):
        add_revision(load_pins(), "2099-01-01", str(shared_spec), _quiet)
    with pytest.raises(CompareError, match="not a revision name"):
        add_revision(load_pins(), "latest", str(shared_spec), _quiet)


def test_pin_add_hashes_the_source_and_rewrites_the_pins(shared_spec: Path, fresh: Path) -> None:
    pins = load_pins()
    without_draft = dataclasses.replace(
        pins,
        revisions=tuple(r for r in pins.revisions if r.name != "draft"),
        files=tuple(f for f in pins.files if "/draft/" not in f.path),
    )
    without_draft.origin.write_text(dump_pins(without_draft), encoding="utf-8")
    env = {**os.environ, "MCP_COMPARE_SPEC": str(shared_spec)}
    done = subprocess.run([CLI, "pin", "add", "draft"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "added   schema/draft/schema.json" in done.stdout
    after = load_pins()
    # the same pins as the committed file, recomputed from the bytes
    assert after.revisions == pins.revisions
    assert set(after.files) == set(pins.files)
    assert pinned_path("docs/specification/draft/deprecated.mdx").is_file()


def test_missing_source_is_a_clear_error(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(CompareError) as caught:
        fetch(load_pins(), str(fresh / "nowhere"), _quiet)
    assert str(fresh / "nowhere") in caught.value.message
    assert caught.value.hint and "MCP_COMPARE_SPEC" in caught.value.hint
    # nothing set, upstream unreachable, no offline copy: fast, clear failure
    monkeypatch.setattr(_source, "OFFLINE_FALLBACK", fresh / "no-offline-copy")
    pins = dataclasses.replace(load_pins(), repository=f"file://{fresh / 'no-such-repo'}")
    with pytest.raises(CompareError) as nothing:
        fetch(pins, None, _quiet)
    assert "cannot reach" in nothing.value.message
    assert nothing.value.hint and "MCP_COMPARE_SPEC" in nothing.value.hint


def test_unreachable_upstream_falls_back_to_the_offline_copy(
    shared_spec: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_source, "OFFLINE_FALLBACK", shared_spec)
    pins = dataclasses.replace(load_pins(), repository=f"file://{fresh / 'no-such-repo'}")
    notes: list[str] = []
    report = fetch(pins, None, notes.append)
    assert report.source == f"folder {shared_spec}"
    assert any("unreachable" in n and str(shared_spec) in n for n in notes)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("[source\nrepository = 1", "not valid TOML"),
        ('[source]\nrepository = "x"\n', "source.commit: missing"),
        ('[source]\nrepository = "x"\ncommit = "abc"\n', "source.commit"),
        (None, "files[0].sha256"),
        (None, 'revisions."2024-11-05".status'),
    ],
)
def test_malformed_pins_file_names_file_and_key(fresh: Path, text: str | None, key: str) -> None:
    origin = fresh / "schemas" / "revisions.toml"
    good = origin.read_text(encoding="utf-8")
    if text is None and key.startswith("files"):
        first = load_pins().files[0].sha256
        text = good.replace(first, first[:-1] + "Z", 1)
    elif text is None:
        text = good.replace('status = "released"', 'status = "shipped"', 3)
    origin.write_text(text, encoding="utf-8")
    with pytest.raises(CompareError) as caught:
        load_pins()
    assert str(origin) in caught.value.message
    assert key in caught.value.message
    done = subprocess.run([CLI, "pin", "verify"], capture_output=True, text=True, env=os.environ)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and key in done.stderr.replace("\n", "")


def test_upstream_link_points_at_the_pinned_commit() -> None:
    pins = load_pins()
    base = f"{pins.repository}/blob/{pins.commit}/schema/draft/schema.json"
    assert upstream_link("schema/draft/schema.json") == base
    assert upstream_link("schema/draft/schema.json", 3) == base + "#L3"
    assert upstream_link("schema/draft/schema.json", 3, 9) == base + "#L3-L9"


def test_session_fixture_makes_pinned_files_readable(pinned_spec: Path) -> None:
    assert os.environ["MCP_COMPARE_CACHE"] == str(pinned_spec)
    assert pinned_text("schema/2026-07-28/schema.json").lstrip().startswith("{")


def test_pin_add_file_pins_an_extra_page(shared_spec: Path, fresh: Path) -> None:
    from compare.pin import add_files

    path = "seps/2596-spec-feature-lifecycle-and-deprecation.md"
    report = add_files(load_pins(), [path], str(shared_spec), _quiet)
    assert [p.path for p in report.added] == [path]
    assert load_pins().file(path).sha256 == _sha(shared_spec / path)  # type: ignore[union-attr]
    assert pinned_path(path).read_bytes() == (shared_spec / path).read_bytes()
    with pytest.raises(CompareError, match="not found"):
        add_files(load_pins(), ["seps/0000-nothing.md"], str(shared_spec), _quiet)


def test_stalled_git_server_times_out_without_leftovers(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that accepts and never answers: a clear error after the timeout, no orphan
    git process, no half clone."""
    import socket
    import threading
    import time

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    monkeypatch.setattr(_source, "GIT_TIMEOUT_S", 3)
    url = f"http://127.0.0.1:{port}/spec.git"
    started = time.monotonic()
    try:
        with pytest.raises(CompareError, match="did not complete") as caught:
            fetch(load_pins(), url, _quiet)
    finally:
        stop.set()
        thread.join()
        for conn in held:
            conn.close()
        listener.close()
    assert time.monotonic() - started < 30
    assert caught.value.hint and "MCP_COMPARE_SPEC" in caught.value.hint
    assert list((fresh / "cache" / "git").iterdir()) == []
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert f"127.0.0.1:{port}" not in ps


def test_pin_add_pins_each_area_page_the_revision_has(
    shared_spec: Path, fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Elicitation arrived in 2025-06-18: its page is pinned there and simply absent before.
    areas = fresh / "areas"
    areas.mkdir()
    (areas / "elicitation.yaml").write_text(
        "area: elicitation\ntitle: Elicitation\nspec_pages: [client/elicitation.mdx]\n"
    )
    monkeypatch.setenv("MCP_COMPARE_AREAS", str(areas))
    # The project's pins already hold the page; the private copy forgets it, as the pins did
    # before the elicitation area existed.
    pins = load_pins()
    kept = tuple(f for f in pins.files if "elicitation" not in f.path)
    assert len(kept) < len(pins.files)
    write_pins(dataclasses.replace(pins, files=kept))
    old, new = "2025-03-26", "2025-06-18"
    report = add_revision(load_pins(), old, str(shared_spec), _quiet)
    assert not [f for f in report.added if "elicitation" in f.path]
    report = add_revision(load_pins(), new, str(shared_spec), _quiet)
    page = f"docs/specification/{new}/client/elicitation.mdx"
    assert [f.path for f in report.added] == [page]
    pinned = load_pins().file(page)
    assert pinned is not None and pinned.sha256 == _sha(shared_spec / page)
    assert pinned_path(page).is_file()
    assert load_pins().file(f"docs/specification/{old}/client/elicitation.mdx") is None
