"""Where the diff is stored, written atomically so a failed run keeps the previous one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare import _atomic, _paths


def diff_path() -> Path:
    """``build/diff.json``."""
    return _paths.build_dir() / "diff.json"


def write_diff(diff: dict[str, Any]) -> Path:
    """Write ``diff`` to ``build/diff.json`` and return the path."""
    path = diff_path()
    _atomic.write_json(path, diff)
    return path


#: The typed parts of a diff section (``diff.schema.json``) the pages read.
_SECTION_TYPES: dict[str, type] = {"items": dict, "changes": list, "deprecation": dict}


def diff_shape(diff: dict[str, Any]) -> str | None:
    """What is wrong with a parsed ``diff.json`` (None when its parts have their types): the
    readers (rows, site) check it first, so a hand-edited or foreign file is named instead of
    crashing a page or a lint half-way."""
    sections: list[tuple[str, object]] = [("", diff)]
    areas = diff.get("areas")
    if areas is not None and not isinstance(areas, dict):
        return "`areas` is not an object"
    sections += [(f"areas.{k}.", v) for k, v in (areas or {}).items()]
    if not isinstance(diff.get("revisions"), list):
        return "`revisions` is not a list"
    if not isinstance(diff.get("items"), dict):
        return "`items` is not an object"
    for prefix, section in sections:
        if not isinstance(section, dict):
            return f"`{prefix.rstrip('.')}` is not an object"
        for key, kind in _SECTION_TYPES.items():
            value = section.get(key)
            if value is not None and not isinstance(value, kind):
                return f"`{prefix}{key}` is not {'an object' if kind is dict else 'a list'}"
            members: list[object] = []
            if isinstance(value, dict | list):
                members = list(value.values()) if isinstance(value, dict) else list(value)
            if key != "items" and any(not isinstance(m, dict) for m in members):
                return f"`{prefix}{key}` holds something other than objects"
    return None
