"""The implementations registry: each cited column declared once, for every area.

Areas once declared their cited implementations themselves, so a second area declaring mcpx
again silently replaced the first one's entry in rows.json. These tests hold the registry to
being the only place: an area that still declares one is refused naming the other file, an
unknown id is refused naming the registry, and a registry with an id twice does not load.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.rows import lint_all
from compare.rows._implementations import load_registry

from ._area import REGISTRY, area, known, row, write

INLINE = {"id": "ghost", "name": "Ghost", "why_not_run": "no package"}


def test_one_implementation_declared_in_two_areas_is_refused_naming_both(
    isolated: Path, tmp_path: Path
) -> None:
    first = write(tmp_path / "roots.yaml", area(implementations=[INLINE]))
    second = write(
        tmp_path / "sampling.yaml",
        area(area="sampling", id_prefix="SAMP", implementations=[INLINE],
             rows=[row(id="SAMP-01")]),
    )  # fmt: skip
    issues = [
        i for i in lint_all([first, second], known()) if "declares implementation" in i.message
    ]
    assert {i.file for i in issues} == {"roots.yaml", "sampling.yaml"}
    by_file = {i.file: i.message for i in issues}
    assert "sampling.yaml declares it too" in by_file["roots.yaml"]
    assert "roots.yaml declares it too" in by_file["sampling.yaml"]
    assert all("implementations.yaml" in i.tip for i in issues)


def test_an_area_declaring_a_registry_implementation_again_names_the_registry(
    isolated: Path, tmp_path: Path
) -> None:
    again = {"id": "mcpx", "name": "mcpx again", "why_not_run": "x"}
    issues = lint_all([write(tmp_path / "roots.yaml", area(implementations=[again]))], known())
    (hit,) = [i for i in issues if "declares implementation 'mcpx'" in i.message]
    assert f"already declared in {REGISTRY.file}" in hit.message


def test_an_unknown_implementation_id_is_refused_naming_the_registry(
    isolated: Path, tmp_path: Path
) -> None:
    issues = lint_all([write(tmp_path / "roots.yaml", area(implementations=["ghost"]))], known())
    (hit,) = [i for i in issues if i.where == "implementations/ghost"]
    assert hit.file == "roots.yaml" and str(REGISTRY.file) in hit.message


def test_a_registry_declaring_an_id_twice_does_not_load(tmp_path: Path) -> None:
    entry = "  - {id: a, name: A, kind: cited, why_not_run: x}\n"
    path = tmp_path / "implementations.yaml"
    kinds = "kinds: [{kind: cited, group: Cited, key: cited}]\n"
    path.write_text(kinds + "implementations:\n" + entry + entry, encoding="utf-8")
    with pytest.raises(CompareError, match="'a' is declared twice") as err:
        load_registry(path)
    assert str(path) in err.value.message


def test_a_registry_entry_without_why_not_run_breaks_its_schema(tmp_path: Path) -> None:
    path = tmp_path / "implementations.yaml"
    path.write_text(
        "kinds: []\nimplementations:\n  - {id: a, name: A, kind: cited}\n", encoding="utf-8"
    )
    with pytest.raises(CompareError, match="why_not_run"):
        load_registry(path)


def test_the_shipped_registry_holds_every_cited_column_of_the_shipped_areas() -> None:
    from compare._yaml import load_yaml
    from compare.rows import area_files

    registry = load_registry()
    for path in area_files():
        data = load_yaml(path)
        assert all(isinstance(i, str) for i in data.get("implementations") or []), path
        for impl in data.get("implementations") or []:
            assert impl in registry.by_id, (path, impl)


def test_every_target_kind_has_its_group_in_the_registry() -> None:
    """The site groups implementations by the registry's kinds (it kept its own tables
    before): every shipped target's kind, and every cited implementation's, is listed."""
    from compare.exchange._targets import load_targets

    kinds = {k.kind for k in load_registry().kinds}
    assert {t.kind for t in load_targets()} <= kinds
    assert {i.kind for i in load_registry().by_id.values()} <= kinds


def test_the_site_groups_and_filter_words_come_from_the_registry() -> None:
    from compare.site._matrix import kind_groups
    from compare.site._matrix_html import kind_keys

    registry = load_registry()
    assert list(kind_groups()) == [k.kind for k in registry.kinds]
    assert set(kind_keys()) == {k.group for k in registry.kinds}


def test_an_implementation_of_an_unlisted_kind_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "implementations.yaml"
    path.write_text(
        "kinds: [{kind: cli, group: CLI, key: cli}]\n"
        "implementations: [{id: a, name: A, kind: cited, why_not_run: x}]\n",
        encoding="utf-8",
    )
    with pytest.raises(CompareError, match="not under kinds"):
        load_registry(path)
