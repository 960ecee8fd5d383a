"""The shipped roots.yaml against the real neighbours: the diff built from the pinned spec, the
engine's target and scenario files, and the offline spec for its citations."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

from _revisions import first_after_initialize, latest_initialize_era

from compare.rows import area_files, compute, gather, lint_all


@functools.cache
def _built_diff() -> dict[str, Any]:
    """The real diff, built once per test process: it depends only on the pinned spec, the
    schemas and the shipped area files, which every test that writes it reads unchanged, and
    building it reads every revision's schema (seconds each time, more with every area)."""
    from compare.diff import build_diff

    return build_diff()


def _real_diff() -> None:
    """Write the real diff into this test's build folder."""
    from compare.diff import write_diff

    write_diff(copy.deepcopy(_built_diff()))


def test_real_area_file_is_lint_clean(isolated: Path) -> None:
    _real_diff()
    issues = lint_all(area_files(), gather())
    assert issues == [], "\n".join(f"{i.where}: {i.message} — fix: {i.tip}" for i in issues)


def test_required_rows_are_present_with_computed_where(isolated: Path) -> None:
    _real_diff()
    doc = compute(area_files(), gather(), isolated / "results")
    (roots,) = [a for a in doc["areas"] if a["area"] == "roots"]
    rows = {r["id"]: r for r in roots["rows"]}
    assert len(rows) >= 8
    assert all(r["where"]["computed"] for r in rows.values())
    # The removal of the notification and the deprecation come from the diff, not from prose.
    removal = rows["ROOT-02"]["where"]["revisions"]
    assert removal[first_after_initialize()]["state"] == "removed"
    assert removal[latest_initialize_era()]["state"] != "absent"
    assert rows["ROOT-03"]["where"]["revisions"][first_after_initialize()]["deprecated"] is True
    # Without results every run column is "not run" with a reason, never a pass.
    for row in rows.values():
        for column in row["status"].values():
            assert column["state"] in {"not-run", "cited"}, column
            assert column["reason"].startswith("not run, because")
    json.dumps(doc)  # the document is plain JSON


def test_the_mcpx_column_is_dezren39s_mcpx() -> None:
    """Issue 9: the column cited lydakis/mcpx, an unrelated program with the same name. The
    comparison is about dezren39's Go daemon, kept in dezren39/nix under pkgs/mcpx."""
    from compare._yaml import load_yaml

    (path,) = [p for p in area_files() if p.name == "roots.yaml"]
    area = load_yaml(path)
    assert isinstance(area, dict)
    from compare.rows._implementations import load_registry

    assert "mcpx" in area["implementations"]
    registry = load_registry()
    assert registry.by_id["mcpx"].repository == "dezren39/nix"
    assert "lydakis/mcpx@" not in registry.file.read_text(encoding="utf-8")
    cited = [
        source if isinstance(source, str) else source["cite"]
        for row in area["rows"]
        for entry in ((row.get("status") or {}).get("cited") or {})
        .get("mcpx", {})
        .get("sources", [])
        for source in [entry]
    ]
    assert len(cited) >= 8
    for ref in cited:
        assert ref.startswith("gh:dezren39/nix@"), ref
        commit = ref.split("@", 1)[1].split("/", 1)[0]
        assert len(commit) == 40 and all(c in "0123456789abcdef" for c in commit), ref
        assert "/pkgs/mcpx/" in ref, ref
    assert "lydakis/mcpx@" not in path.read_text(encoding="utf-8")
