"""The maintainers' pages: in the navigation, rendered from the code that defines what they
list, their schemas published, and no fact of the machine that built them in their prose."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from compare._contracts import CONTRACTS
from compare._paths import PROJECT_ROOT
from compare._yaml import load_yaml
from compare.exchange._scenarios import gates
from compare.judge._verdicts import VERDICT_SYMBOLS, VERDICTS
from compare.rows import STATE_PROMISES
from compare.site import render
from compare.site._maintainers import PAGES, SIDES


def _page(root: Path, name: str) -> str:
    text = (root / "site" / "docs" / "maintainers" / f"{name}.md").read_text(encoding="utf-8")
    for tag in ("<wbr>", "<code>", "</code>"):
        text = text.replace(tag, "")
    return html.unescape(text)


def test_every_maintainers_page_is_rendered_and_in_the_navigation(site_env: Path) -> None:
    render()
    nav = load_yaml(PROJECT_ROOT / "site" / "mkdocs.yml")["nav"]
    section = next(entry["Maintainers"] for entry in nav if "Maintainers" in entry)
    assert section == [f"maintainers/{slug}.md" for slug, _, _ in PAGES]
    for slug, _, title in PAGES:
        assert f'title: "{title}"' in _page(site_env, slug)


def test_the_verdict_page_lists_every_verdict_state_and_gate_from_their_definitions(
    site_env: Path,
) -> None:
    render()
    page = _page(site_env, "verdicts")
    for verdict in VERDICTS:
        symbol, meaning = VERDICT_SYMBOLS[verdict]
        assert f"| {symbol} | {verdict} |" in page and meaning in page
    for promise in STATE_PROMISES.values():
        assert promise in page
    for side in SIDES:
        for outcome, grade in gates(side).items():
            assert f"| {side} | {outcome} |" in page and grade["means"] in page


def test_a_changed_promise_changes_the_page_so_it_is_read_not_retyped(
    site_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compare.rows import _state

    monkeypatch.setitem(_state.STATE_PROMISES, "partial", "a promise only this test makes")
    render()
    assert "a promise only this test makes" in _page(site_env, "verdicts")


def test_the_contracts_page_links_every_schema_published_beside_it(site_env: Path) -> None:
    render()
    page = _page(site_env, "contracts")
    for entry in CONTRACTS:
        published = site_env / "site" / "docs" / "maintainers" / "schemas"
        assert (
            published / f"{entry.name}.schema.json"
        ).read_bytes() == entry.schema_path.read_bytes()
        assert f"(schemas/{entry.name}.schema.json)" in page
        assert entry.title in page


def test_the_data_file_pages_list_the_keys_their_schemas_define(site_env: Path) -> None:
    render()
    for page, contract in (
        ("add-target", "target"),
        ("add-scenario", "scenario"),
        ("add-area", "area"),
    ):
        text = _page(site_env, page)
        schema = next(c for c in CONTRACTS if c.name == contract).load_schema()
        for key in schema["properties"]:
            assert f"| {key} |" in text, (page, key)


def test_no_build_machine_path_or_fact_in_the_maintainers_prose(site_env: Path) -> None:
    render()
    for slug, _, _ in PAGES:
        text = _page(site_env, slug)
        assert not re.search(r"(?<![\w.])/(?:tmp|home|root|work|var|srv)/", text), slug
        assert not re.search(r"\b\d+ cores?\b|\bno network\b", text), slug


def test_every_location_variable_of_the_paths_module_is_on_the_running_page(
    site_env: Path,
) -> None:
    render()
    source = (PROJECT_ROOT / "compare" / "_paths.py").read_text(encoding="utf-8")
    names = set(re.findall(r'"(MCP_COMPARE_[A-Z0-9_]+)"', source))
    assert names and {n for n in names if n not in _page(site_env, "running")} == set()


def test_render_check_names_an_edited_or_missing_maintainers_page_or_schema(
    site_env: Path,
) -> None:
    from compare.site import check

    render()
    assert check() == []
    docs = site_env / "site" / "docs" / "maintainers"
    with (docs / "verdicts.md").open("a", encoding="utf-8") as page:
        page.write("an edit by hand\n")
    (docs / "schemas" / "plan.schema.json").unlink()
    assert check() == [
        "changed: maintainers/verdicts.md",
        "missing: maintainers/schemas/plan.schema.json",
    ]
