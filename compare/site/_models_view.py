"""Which generated model classes a revision page shows for an area, read from the diff's
section for that area and the committed generated module (parsed, never imported, so the site
builds without pydantic importing a whole revision's models).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare._errors import CompareError

#: The roles of the definitions an area owns outright (see ``compare/diff/_select.py``): the
#: revision pages show their generated classes. Embedders and referenced definitions belong
#: to the whole protocol; of a ``partial`` one only the class of the area's property is shown.
MODEL_ROLES = ("core", "listed", "owned")


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class ModelNames:
    """Which generated classes show an area: its own definitions, and for each definition it
    only touches (``ClientCapabilities``), the properties whose classes belong to it."""

    names: frozenset[str]
    partial: dict[str, frozenset[str]]


def diff_sections(diff: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """The diff's section per area (``areas``); a diff from before sections is one area."""
    if not diff:
        return {}
    sections = diff.get("areas")
    if isinstance(sections, dict):
        return {str(k): v for k, v in sections.items() if isinstance(v, dict)}
    return {str(diff.get("area") or "area"): diff}


def model_names(section: dict[str, Any]) -> ModelNames:
    """The class names an area's diff section selects, from its items' roles."""
    names: set[str] = set()
    partial: dict[str, set[str]] = {}
    items = _dict(section.get("items"))
    for name, item in items.items():
        records = [r for r in _dict(_dict(item).get("revisions")).values() if isinstance(r, dict)]
        roles = {r.get("role") for r in records if r.get("present")}
        if _dict(item).get("kind") == "definition" and roles & set(MODEL_ROLES):
            names.add(name)
        elif _dict(item).get("kind") == "definition" and "partial" in roles:
            partial.setdefault(name, set())
    for name in items:
        owner, _, rest = name.partition(".")
        if owner in partial and rest:
            partial[owner].add(rest.split(".")[0])
    return ModelNames(frozenset(names), {k: frozenset(v) for k, v in partial.items()})


def _annotation_classes(node: ast.ClassDef, props: frozenset[str]) -> set[str]:
    """Class names used in the annotations of ``props`` in a generated class."""
    out: set[str] = set()
    for stmt in node.body:
        if (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.target.id in props
        ):
            out |= {n.id for n in ast.walk(stmt.annotation) if isinstance(n, ast.Name)}
    return out


def model_classes(path: Path, wanted: dict[str, ModelNames]) -> dict[str, dict[str, str]]:
    """Per area, the source of each class of it in one generated models module."""
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, UnicodeDecodeError, SyntaxError) as err:
        raise CompareError(
            f"{path} is not a readable Python module: {err}", "regenerate it: mcp-compare models"
        ) from err
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    lines = source.splitlines(keepends=True)
    out: dict[str, dict[str, str]] = {}
    for area, selection in wanted.items():
        names = set(selection.names)
        for owner, props in selection.partial.items():
            if owner in classes:
                names |= _annotation_classes(classes[owner], props)
        out[area] = {name: _segment(lines, node) for name, node in classes.items() if name in names}
    return out


def _segment(lines: list[str], node: ast.ClassDef) -> str:
    """A top-level class's source, as ``ast.get_source_segment`` gives it, from lines split
    once (that function splits the whole module again on every call: seconds per render)."""
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None:
        return ""
    part = lines[node.lineno - 1 : end_line]
    if not part:
        return ""
    if len(part) == 1:
        return part[0].encode()[node.col_offset : end_col].decode()
    first = part[0].encode()[node.col_offset :].decode()
    last = part[-1].encode()[:end_col].decode()
    return first + "".join(part[1:-1]) + last
