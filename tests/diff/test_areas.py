"""The diff learns an area from its file: the feature name, listed items, the notice page."""

from __future__ import annotations

from pathlib import Path

import pytest

from compare._areas import load_area_specs, read_area_spec
from compare._errors import CompareError
from compare.diff._build import notice_line
from compare.diff._select import select


def test_a_passing_mention_of_deprecated_is_not_a_notice() -> None:
    # 2025-11-25's sampling page calls one parameter value soft-deprecated; the feature is not.
    page = [
        "**With context inclusion support (soft-deprecated):**",
        "  soft-deprecated. Servers **SHOULD** avoid using these values",
    ]
    assert notice_line(page) is None
    notice = ["<Warning>", "  **Deprecated**: The Sampling feature is deprecated as of protocol"]
    assert notice_line(page + notice) == 4


def test_listed_items_join_the_area_and_are_walked_from() -> None:
    obj = {"type": "object"}
    schema = {
        "$defs": {
            "AskRequest": {
                "properties": {"method": {"const": "thing/ask"}, "params": {"$ref": "#/$defs/P"}}
            },
            "P": {"properties": {"x": obj}},
            "Answer": {"properties": {"value": {"$ref": "#/$defs/Value"}}},
            "Value": {"properties": {"v": obj}},
            "Caps": {"properties": {"thing": obj, "other": obj}},
            "Unrelated": {"properties": {"y": obj}},
        }
    }
    found = select(schema, "thing", ["Answer"])
    assert found.roles == {
        "AskRequest": "core",
        "P": "owned",
        "Answer": "listed",
        "Value": "owned",
        "Caps": "partial",
    }
    assert found.partial == {"Caps": "thing"}
    assert select(schema, None, ["Answer"]).roles == {"Answer": "listed", "Value": "owned"}


def test_area_files_name_pages_and_feature(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(
        "area: beta\ntitle: Beta\nspec_pages: [client/beta.mdx]\nschema: {feature: beta}\n"
    )
    (tmp_path / "a.yaml").write_text("area: alpha\ntitle: Alpha\n")
    alpha, beta = load_area_specs(tmp_path)
    assert (alpha.name, alpha.has_schema, alpha.spec_pages) == ("alpha", False, ())
    assert (beta.feature, beta.spec_pages) == ("beta", ("client/beta.mdx",))
    assert beta.page_path("2025-11-25", "client/beta.mdx") == (
        "docs/specification/2025-11-25/client/beta.mdx"
    )


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("area: x\nspec_pages: [../../etc/passwd.md]\n", "spec_pages"),
        ("area: x\nschema: {feature: Not A Name}\n", "schema.feature"),
        ("area: x\nschema: [roots]\n", "schema"),
        ("title: no name\n", "area"),
    ],
)
def test_a_malformed_area_key_is_a_clear_error(tmp_path: Path, text: str, key: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    with pytest.raises(CompareError) as caught:
        read_area_spec(path)
    assert f": {key}:" in caught.value.message and caught.value.hint


def test_two_files_of_one_area_are_refused(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text("area: same\n")
    with pytest.raises(CompareError, match="also the area of"):
        load_area_specs(tmp_path)
