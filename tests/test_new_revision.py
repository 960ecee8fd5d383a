"""Rehearsal of "a new revision lands upstream" (issue 14, item 5), end to end.

A local git repository (GitPython) is built from the files of the offline spec's MANIFEST.tsv.
A second commit adds the dated revision 2027-01-15, a copy of ``draft`` whose ``Root`` gains an
optional ``readOnly`` property (the draft gets it too, as upstream's draft would). Then the
maintainer's steps from the README run as real commands, with every location in a temporary
folder: ``pin bump``, ``pin add``, ``models``, ``diff``, ``rows``, ``render``. No code and no
data file of the project is edited along the way: that is the point. The test checks that the
new revision reaches the models, the diff (with the roots change), the rows' "where" column,
the site's revision column and page, and the "what changed" page.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import git
import pytest

from compare._paths import PROJECT_ROOT

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
NEW = "2027-01-15"
FIELD = "Root.readOnly"
LOCATIONS = {
    "MCP_COMPARE_SCHEMAS": "schemas",
    "MCP_COMPARE_CACHE": "cache",
    "MCP_COMPARE_BUILD": "build",
    "MCP_COMPARE_SITE": "site",
    "MCP_COMPARE_RESULTS": "results",
}


def _add_read_only(schema: Path) -> None:
    """Give ``Root`` an optional boolean ``readOnly``, editing the text so lines stay put."""
    text = schema.read_text(encoding="utf-8")
    root = text.index('"Root": {')
    props = text.index('"properties": {', root) + len('"properties": {')
    indent = " " * 16
    added = (
        f'\n{indent}"readOnly": {{\n{indent}    "description": "Whether the server may only '
        f'read the root.",\n{indent}    "type": "boolean"\n{indent}}},'
    )
    text = text[:props] + added + text[props:]
    assert json.loads(text)["$defs"]["Root"]["properties"]["readOnly"] == {
        "description": "Whether the server may only read the root.",
        "type": "boolean",
    }
    schema.write_text(text, encoding="utf-8")


def _upstream(shared_spec: Path, folder: Path) -> tuple[git.Repo, str, str]:
    """The repository: the manifest's files, then the commit that adds the new revision."""
    manifest = (shared_spec / "MANIFEST.tsv").read_text(encoding="utf-8").splitlines()
    paths = [line.split("\t")[0] for line in manifest[2:] if line.strip()]
    for path in paths:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shared_spec / path, folder / path)
    repo = git.Repo.init(folder, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "test")
        config.set_value("user", "email", "test@example.invalid")
    repo.index.add(paths)
    first = repo.index.commit("the spec as pinned").hexsha
    copied = []
    for path in paths:
        for prefix in ("schema/draft/", "docs/specification/draft/"):
            if path.startswith(prefix):
                new = path.replace("/draft/", f"/{NEW}/", 1)
                (folder / new).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(folder / path, folder / new)
                copied.append(new)
    for revision in (NEW, "draft"):
        _add_read_only(folder / "schema" / revision / "schema.json")
    repo.index.add([*copied, "schema/draft/schema.json"])
    second = repo.index.commit(f"{NEW}: a dated copy of draft; Root gains readOnly").hexsha
    return repo, first, second


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"mcp-compare {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def _json(path: Path) -> dict[str, object]:
    value = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(value, dict)
    return value


def test_a_new_upstream_revision_flows_through_the_pipeline_without_code_edits(
    shared_spec: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, first, second = _upstream(shared_spec, tmp_path / "upstream")
    for name, sub in LOCATIONS.items():
        (tmp_path / sub).mkdir()
        monkeypatch.setenv(name, str(tmp_path / sub))
    monkeypatch.setenv("MCP_COMPARE_SPEC", str(tmp_path / "upstream"))
    schemas = tmp_path / "schemas"
    shutil.copy(PROJECT_ROOT / "schemas" / "revisions.toml", schemas)
    shutil.copytree(PROJECT_ROOT / "schemas" / "models", schemas / "models")

    # The earlier run: pins moved to the repository's copy of the pinned commit (same bytes),
    # and a matrix exported, which the "what changed" page compares with later.
    at_first = json.loads(_run("pin", "bump", first, "--json").stdout)
    assert at_first["to"] == first and at_first["changed"] == [] and at_first["dropped"] == []
    assert [r["revision"] for r in at_first["new_revisions"]] == []
    _run("diff", "--quiet")
    _run("rows")
    _run("export")

    # The new revision lands: bump to the newest commit, pin what it offers, regenerate.
    bumped = json.loads(_run("pin", "bump", "--json").stdout)
    assert (bumped["from"], bumped["to"]) == (first, second)
    assert [c["path"] for c in bumped["changed"]] == ["schema/draft/schema.json"]
    assert bumped["new_revisions"] == [{"revision": NEW, "command": f"mcp-compare pin add {NEW}"}]
    _run("pin", "add", NEW)
    _run("models")
    _run("diff", "--quiet")
    _run("rows")
    _run("render")

    # models: a module for the new revision that knows the roots change.
    module = schemas / "models" / f"rev_{NEW.replace('-', '_')}.py"
    assert module.is_file() and "readOnly" in module.read_text(encoding="utf-8")
    from compare.models import validate_as

    listed = {"roots": [{"uri": "file:///work/project", "readOnly": True}]}
    assert validate_as(listed, "ListRootsResult", NEW).ok
    wrong = {"roots": [{"uri": "file:///work/project", "readOnly": "yes"}]}
    assert not validate_as(wrong, "ListRootsResult", NEW).ok

    # diff: the new revision is listed, after 2026-07-28 and before draft, with the change.
    diff = _json(tmp_path / "build" / "diff.json")
    revisions = diff["revisions"]
    assert isinstance(revisions, list) and revisions[-2:] == [NEW, "draft"]
    areas = diff["areas"]
    assert isinstance(areas, dict)
    roots = areas["roots"]  # the top level repeats the first area by name, now lifecycle
    items = roots["items"]
    assert isinstance(items, dict)
    field = items[FIELD]["revisions"]
    assert field[NEW]["present"] is True and field[NEW]["required"] is False
    assert field[NEW]["type"] == "boolean"
    assert all(not field[r]["present"] for r in revisions[:-2])
    changes = roots["changes"]
    assert isinstance(changes, list)
    assert {"item": FIELD, "revision": NEW, "change": "added"} in [
        {k: c[k] for k in ("item", "revision", "change")} for c in changes
    ]
    assert not [c for c in changes if c["item"] == FIELD and c["revision"] == "draft"]

    # rows: every computed "where" column has a cell for the new revision.
    rows = _json(tmp_path / "build" / "rows.json")
    computed = [
        row["where"]
        for area in rows["areas"]  # type: ignore[attr-defined]
        for row in area["rows"]
        if row["where"].get("computed")
    ]
    assert computed and all(NEW in where["revisions"] for where in computed)

    # site: a page for the revision showing the change, and a column in the area's table.
    docs = tmp_path / "site" / "docs"
    page = (docs / "revisions" / f"{NEW}.md").read_text(encoding="utf-8")
    assert "Root&#46;readOnly" in page and "added" in page
    area_pages = [p for p in docs.glob("*.md") if p.name not in ("index.md", "changes.md")]
    assert any(f"(revisions/{NEW}.md)" in p.read_text(encoding="utf-8") for p in area_pages)

    # "what changed": the spec commit moved and the revision was added.
    changed = (docs / "changes.md").read_text(encoding="utf-8")
    assert f"revision added: [{NEW.replace('-', '&#45;')}](revisions/{NEW}.md)" in changed
    assert first[:12] in changed and second[:12] in changed
    repo.close()
    assert os.environ["MCP_COMPARE_SPEC"] == str(tmp_path / "upstream")
