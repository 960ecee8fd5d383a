"""The stamp helper, the stamp of ``tools install``, and a cell key that notices our host
programs: each skip is earned by unchanged inputs and outputs, never by the stamp alone."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from compare import _stamp
from compare.pipeline import _tools
from compare.play import _cells
from compare.play._run import select

CHANGED = "outputs changed since they were written"


@pytest.fixture
def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCP_COMPARE_BUILD", str(tmp_path / "build"))
    _stamp.forget()
    return tmp_path / "build"


def test_a_stamp_holds_only_while_inputs_and_outputs_are_unchanged(
    build: Path, tmp_path: Path
) -> None:
    out_file, out_dir = tmp_path / "out.json", tmp_path / "pages"
    out_file.write_text("{}\n", "utf-8")
    (out_dir / "sub").mkdir(parents=True)
    (out_dir / "sub" / "page.md").write_text("# page\n", "utf-8")
    assert _stamp.why_stale("demo", "in-1") == "no stamp"
    _stamp.record("demo", "in-1", [out_file, out_dir])
    assert json.loads((build / "stamps" / "demo.json").read_text("utf-8"))["inputs"] == "in-1"
    assert _stamp.why_stale("demo", "in-1") is None
    assert _stamp.why_stale("demo", "in-2") == "inputs changed"

    out_file.write_text("{} \n", "utf-8")  # edited by hand
    assert _stamp.why_stale("demo", "in-1") == f"{CHANGED}: {out_file}"
    _stamp.record("demo", "in-1", [out_file, out_dir])
    page = out_dir / "sub" / "page.md"
    page.write_text("# page, edited in place\n", "utf-8")
    assert _stamp.why_stale("demo", "in-1") == f"{CHANGED}: {out_dir}"
    _stamp.record("demo", "in-1", [out_file, out_dir])
    replaced = tmp_path / "new.md"
    replaced.write_text(page.read_text("utf-8"), "utf-8")
    os.utime(replaced, ns=(page.stat().st_atime_ns, page.stat().st_mtime_ns))
    replaced.replace(page)  # the same bytes and times, as compare._atomic writes: a new inode
    assert _stamp.why_stale("demo", "in-1") == f"{CHANGED}: {out_dir}"
    _stamp.record("demo", "in-1", [out_file, out_dir])
    shutil.rmtree(out_dir)
    out_file.unlink()
    assert _stamp.why_stale("demo", "in-1") == f"{CHANGED}: {out_file} and 1 more"


@pytest.mark.parametrize(
    "damage",
    ["truncated", "wrong-shape", "other-stage", "edited-digest", "deleted"],
)
def test_a_damaged_stamp_is_named_and_never_trusted(
    build: Path, tmp_path: Path, damage: str
) -> None:
    out_file = tmp_path / "out.json"
    out_file.write_text("{}\n", "utf-8")
    _stamp.record("demo", "in-1", [out_file])
    stamp = build / "stamps" / "demo.json"
    text = stamp.read_text("utf-8")
    value = json.loads(text)
    if damage == "truncated":
        stamp.write_text(text[: len(text) // 2], "utf-8")
    elif damage == "wrong-shape":
        stamp.write_text(json.dumps([value]), "utf-8")
    elif damage == "other-stage":
        stamp.write_text(json.dumps({**value, "stage": "rows"}), "utf-8")
    elif damage == "edited-digest":
        stamp.write_text(json.dumps({**value, "outputs_digest": "0" * 64}), "utf-8")
    else:
        stamp.unlink()
    why = _stamp.why_stale("demo", "in-1")
    assert why is not None
    if damage == "deleted":
        assert why == "no stamp"
    else:
        assert why.startswith(f"stamp {stamp} is damaged: "), why
    _stamp.record("demo", "in-1", [out_file])  # what a stage that ran again does
    assert _stamp.why_stale("demo", "in-1") is None


def test_a_data_tree_digest_sees_a_changed_file(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("one", "utf-8")
    before = _stamp.tree_digest(tmp_path, content=False)
    assert _stamp.tree_digest(tmp_path, content=False) == before  # memoised
    (tmp_path / "a").write_text("two!", "utf-8")
    _stamp.forget()
    assert _stamp.tree_digest(tmp_path, content=False) != before
    assert _stamp.tree_digest(tmp_path, content=True) != _stamp.tree_digest(
        tmp_path / "missing", content=True
    )


def _fake_tools(root: Path) -> Path:
    tools = root / "tools"
    for rel in (
        "package.json",
        "package-lock.json",
        "requirements/py-sdk.txt",
        "node_modules/.mcp-compare-stamp",
        "node_modules/.package-lock.json",
        "venvs/py-sdk/.mcp-compare-stamp",
        "venvs/py-sdk/pyvenv.cfg",
        "hosts/go-sdk/build.json",
        "hosts/go-sdk/bin/host",
        "crates/rust-mcp-filesystem/.mcp-compare-stamp",
        "crates/rust-mcp-filesystem/bin/rust-mcp-filesystem",
    ):
        (tools / rel).parent.mkdir(parents=True, exist_ok=True)
        (tools / rel).write_text(f"{rel}\n", "utf-8")
    return tools


def test_tools_install_is_skipped_only_while_locks_and_installs_are_unchanged(
    build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = _fake_tools(tmp_path)
    monkeypatch.setenv("MCP_COMPARE_TOOLS", str(tools))
    monkeypatch.delenv("MCP_COMPARE_TOOLS_EXCEPT", raising=False)  # make test sets it
    assert not _tools.skipped()
    _stamp.record(_tools.STAGE, _tools.inputs(), _tools.outputs())
    assert tools / "hosts/go-sdk/bin/host" in _tools.outputs()
    assert _tools.skipped()

    lock = tools / "package-lock.json"
    lock.write_text("another lock\n", "utf-8")
    assert not _tools.skipped()
    lock.write_text("package-lock.json\n", "utf-8")
    assert _tools.skipped()

    (tools / "venvs/py-sdk/.mcp-compare-stamp").unlink()  # an install gone
    assert not _tools.skipped()
    _stamp.record(_tools.STAGE, _tools.inputs(), _tools.outputs())
    (tools / "crates/rust-mcp-filesystem/bin/rust-mcp-filesystem").unlink()  # a crate's program
    assert not _tools.skipped()

    # an install that left a program out (make test's) does not stand for one that must not
    left = frozenset({"rust-mcp-filesystem"})
    _stamp.record(_tools.STAGE, _tools.inputs(left_out=left), _tools.outputs())
    assert _stamp.why_stale(_tools.STAGE, _tools.inputs(left_out=left)) is None
    assert not _tools.skipped()
    monkeypatch.setenv("MCP_COMPARE_TOOLS_EXCEPT", "rust-mcp-filesystem")
    assert _tools.skipped()
    monkeypatch.delenv("MCP_COMPARE_TOOLS_EXCEPT")

    _stamp.record(_tools.STAGE, _tools.inputs(), _tools.outputs())
    stamp = build / "stamps" / "tools.json"
    stamp.write_bytes(stamp.read_bytes()[:50])  # a torn tools stamp: the installers are asked
    assert not _tools.skipped()
    why = _stamp.why_stale(_tools.STAGE, _tools.inputs())
    assert why is not None and why.startswith(f"stamp {stamp} is damaged: "), why


def _host_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, targets: list[str]
) -> tuple[Path, Callable[[], dict[str, str]]]:
    """A copy of the hosts folder the play keys read, and ``keys()``: the handshake cells'
    play keys of ``targets`` as that copy makes them now."""
    hosts = tmp_path / "hosts"
    shutil.copytree(_cells.HOSTS, hosts, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(_cells, "HOSTS", hosts)
    cells, _commit, _revisions = select(targets, ["handshake"], ["2025-11-25"])

    def keys() -> dict[str, str]:
        _cells.host_version.cache_clear()
        return {f"{c.target.id}~{c.variant}": c.play_key() for c in cells}

    return hosts, keys


def test_a_changed_host_program_changes_the_key_of_its_targets_cells_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hosts, keys = _host_copy(tmp_path, monkeypatch, ["ts-sdk", "go-sdk", "claude-code"])
    before = keys()
    with (hosts / "ts_sdk_host.mjs").open("a", encoding="utf-8") as handle:
        handle.write("\n// a changed host program\n")
    after_ts = keys()
    changed = {k for k in before if before[k] != after_ts[k]}
    assert changed and all(k.startswith("ts-sdk~") for k in changed)
    with (hosts / "go-sdk" / "main.go").open("a", encoding="utf-8") as handle:
        handle.write("\n// a changed host program\n")
    after_go = keys()
    changed = {k for k in before if after_ts[k] != after_go[k]}
    assert changed and all(k.startswith("go-sdk~") for k in changed)
    claude = [k for k in before if k.startswith("claude-code~")]
    assert claude and all(before[k] == after_go[k] for k in claude)
    _cells.host_version.cache_clear()


def test_a_module_a_python_host_imports_counts_as_that_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """py-sdk's host imports the session helpers beside it (sdk_values.py), which pydantic-ai's
    does not: a change there replays py-sdk's cells and leaves pydantic-ai's."""
    hosts, keys = _host_copy(tmp_path, monkeypatch, ["py-sdk", "pydantic-ai"])
    before = keys()
    with (hosts / "sdk_values.py").open("a", encoding="utf-8") as handle:
        handle.write("\n# a changed helper\n")
    after = keys()
    changed = {k for k in before if before[k] != after[k]}
    assert changed and all(k.startswith("py-sdk~") for k in changed)
    assert any(k.startswith("pydantic-ai~") for k in before)
    _cells.host_version.cache_clear()


def test_render_reruns_when_a_top_level_contract_schema_or_any_package_changes(
    build: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The maintainers' pages publish every contract schema and list every package's exported
    names; a top-level schema (the stamp's) and the pipeline package were no render input, so
    a changed one left a stale page behind a skipped render."""
    from compare.pipeline import _inputs

    assert {"pipeline", "site", "exchange"} <= set(_inputs._packages())
    package = tmp_path / "compare"
    package.mkdir()
    schema = package / "stamp.schema.json"
    schema.write_text("{}", "utf-8")
    monkeypatch.setattr(_inputs, "_PACKAGE", package)
    before = _inputs.render_inputs()
    schema.write_text('{"title": "changed"}', "utf-8")
    _stamp.forget()
    assert _inputs.render_inputs() != before
