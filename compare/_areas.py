"""What an area file says about the spec: its name, its pages and how its schema items are found.

Pin (which pages to pin), diff (which definitions to select) and site (page names, titles,
which model classes to show) all need these few keys, while only rows reads the rows. The
reader lives here, beside ``_paths`` and ``_yaml``, so those stages depend on the area files
without depending on the rows stage (which depends on them). Only the keys used here are
checked; the whole file is validated against ``compare/rows/area.schema.json`` by ``rows``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare import _paths
from compare._errors import CompareError
from compare._yaml import load_yaml

_NAME = re.compile(r"^[a-z][a-z0-9-]*$")
_PAGE = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*\.mdx?$")


@dataclass(frozen=True)
class AreaSpec:
    """One area as the stages before rows see it.

    ``spec_pages`` are relative to ``docs/specification/<revision>/``; the first one carries
    the area's deprecation notice. ``feature`` selects schema definitions (a method with that
    path segment, or a required property of that name); ``extra_items`` adds definitions the
    feature name cannot find (a result without a method or a property named after it).
    """

    name: str
    title: str
    file: Path
    spec_pages: tuple[str, ...] = ()
    feature: str | None = None
    extra_items: tuple[str, ...] = ()

    def page_path(self, revision: str, page: str) -> str:
        """A spec page of this area at ``revision``, as a path in the spec repository."""
        return f"docs/specification/{revision}/{page}"

    @property
    def has_schema(self) -> bool:
        """Whether the diff selects schema items for this area."""
        return self.feature is not None or bool(self.extra_items)


def _bad(path: Path, key: str, problem: str) -> CompareError:
    return CompareError(
        f"{path}: {key}: {problem}", "see compare/rows/area.schema.json for the expected shape"
    )


def _strings(path: Path, value: Any, key: str, pattern: re.Pattern[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _bad(path, key, "expected a list of strings")
    for one in value:
        if not pattern.match(one) or ".." in one.split("/"):
            raise _bad(path, key, f"{one!r} does not match {pattern.pattern}")
    return tuple(value)


def read_area_spec(path: Path) -> AreaSpec:
    """The spec-facing keys of one area file; a malformed key is a :class:`CompareError`."""
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise _bad(path, "(top)", "an area file is a YAML mapping")
    name = data.get("area")
    if not isinstance(name, str) or not _NAME.match(name):
        raise _bad(path, "area", f"expected a name matching {_NAME.pattern}, got {name!r}")
    title = data.get("title")
    schema = data.get("schema")
    if schema is not None and not isinstance(schema, dict):
        raise _bad(path, "schema", "expected a mapping {feature, extra_items}")
    schema = schema or {}
    feature = schema.get("feature")
    if feature is not None and (not isinstance(feature, str) or not _NAME.match(feature)):
        raise _bad(path, "schema.feature", f"expected a name like `roots`, got {feature!r}")
    return AreaSpec(
        name=name,
        title=title if isinstance(title, str) and title else name,
        file=path,
        spec_pages=_strings(path, data.get("spec_pages"), "spec_pages", _PAGE),
        feature=feature,
        extra_items=_strings(
            path, schema.get("extra_items"), "schema.extra_items", re.compile(r"^[A-Za-z_]\w*$")
        ),
    )


def load_area_specs(directory: Path | None = None) -> list[AreaSpec]:
    """Every area of the areas folder (``MCP_COMPARE_AREAS``), in file-name order."""
    folder = directory or _paths.areas_dir()
    specs = [read_area_spec(path) for path in sorted(folder.glob("*.yaml"))]
    seen: dict[str, Path] = {}
    for spec in specs:
        if spec.name in seen:
            raise _bad(spec.file, "area", f"{spec.name!r} is also the area of {seen[spec.name]}")
        seen[spec.name] = spec.file
    return specs
