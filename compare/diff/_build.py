"""Assemble ``build/diff.json``: per area and revision, where each item exists and what changed.

Everything is read from the pinned files and the area files: an area's ``schema`` key says
how its items are found in the schemas, its first ``spec_pages`` entry where its deprecation
notice is. Nothing about any revision or area is typed here. The first area (in file-name
order) is also written at the top level, the shape readers had before there were several.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from compare._areas import AreaSpec, load_area_specs
from compare._errors import CompareError
from compare.diff._items import COMPARED, Record, describe, fields
from compare.diff._lines import key_lines
from compare.diff._select import select
from compare.models import definitions
from compare.pin import Pins, load_pins, pinned_text
from compare.pin._pins import Revision

FORMAT = 1
#: A deprecation *notice* (``**Deprecated**: The Roots feature is deprecated as of …``), not a
#: passing mention: 2025-11-25's sampling page calls one parameter value "soft-deprecated".
_DEPRECATED = re.compile(r"\*\*deprecated\*\*|\bis deprecated\b", re.IGNORECASE)
_REVISION_NAME = re.compile(r"\d{4}-\d{2}-\d{2}")


def _schema(rev: Revision) -> tuple[str, dict[str, Any], dict[tuple[str, ...], int]]:
    text = pinned_text(rev.schema)
    try:
        schema = json.loads(text)
        lines = key_lines(text)
    except (json.JSONDecodeError, ValueError) as err:
        raise CompareError(f"{rev.schema} is not valid JSON: {err}") from None
    if not isinstance(schema, dict):
        raise CompareError(f"{rev.schema} is not a JSON object")
    return text, schema, lines


def _revision_items(
    rev: Revision, spec: AreaSpec, area: set[str], partial: dict[str, str]
) -> tuple[dict[str, Record], dict[str, str]]:
    """Records of every area item that exists in ``rev`` (absent ones are simply missing)."""
    _, schema, lines = _schema(rev)
    key, defs = definitions(schema)
    roles = select(schema, spec.feature, spec.extra_items).roles
    out: dict[str, Record] = {}
    kinds: dict[str, str] = {}
    for name in sorted(area | set(partial)):
        body = defs.get(name)
        if not isinstance(body, dict):
            continue
        where = {"source": rev.schema, "line": lines.get((key, name))}
        out[name] = {"present": True, "required": None, **describe(body, defs), **where}
        out[name]["role"] = roles.get(name)
        kinds[name] = "definition"
        only = partial.get(name) if name not in area else None
        for item, (path, record) in fields(name, body, defs, (key, name), only).items():
            out[item] = {"present": True, **record, "source": rev.schema, "line": lines.get(path)}
            kinds[item] = "field"
    return out, kinds


def _changes(item: str, revisions: list[str], per_rev: dict[str, Record]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for before, after in itertools.pairwise(revisions):
        old, new = per_rev[before], per_rev[after]
        if not old["present"] and new["present"]:
            out.append({"item": item, "revision": after, "change": "added",
                        "detail": f"{item} appears in {after}"})  # fmt: skip
            continue
        if old["present"] and not new["present"]:
            out.append({"item": item, "revision": after, "change": "removed",
                        "detail": f"{item} is gone in {after} (present in {before})"})  # fmt: skip
            continue
        if not new["present"]:
            continue
        for attr in COMPARED:
            if old.get(attr) == new.get(attr):
                continue
            change = attr
            if attr == "required":
                change = "required" if new[attr] else "optional"
            detail = f"{attr}: {old.get(attr)} → {new.get(attr)} (from {before} to {after})"
            out.append({"item": item, "revision": after, "change": change, "detail": detail})
    return out


def _deprecation(pins: Pins, rev: Revision, spec: AreaSpec) -> dict[str, Any]:
    """The first line of the area's first page that says it is deprecated, quoted.

    A page that is not pinned at ``rev`` (the revision has no such page, or it was never
    pinned) gives no notice: ``source`` is then null.
    """
    page = spec.page_path(rev.name, spec.spec_pages[0]) if spec.spec_pages else None
    if page is None or pins.file(page) is None:
        return {"deprecated": False, "source": None, "line": None, "quote": None, "since": None}
    lines = pinned_text(page).splitlines()
    number = notice_line(lines)
    if number is None:
        return {"deprecated": False, "source": page, "line": None, "quote": None, "since": None}
    since = _REVISION_NAME.search(" ".join(lines[number - 1 : number + 1]))
    return {
        "deprecated": True,
        "source": page,
        "line": number,
        "quote": lines[number - 1].strip(),
        "since": since.group(0) if since else None,
    }


def notice_line(lines: list[str]) -> int | None:
    """The 1-based number of the first line that gives a deprecation notice, if any."""
    for number, line in enumerate(lines, start=1):
        if _DEPRECATED.search(line):
            return number
    return None


def _area_section(pins: Pins, spec: AreaSpec) -> dict[str, Any]:
    """One area's items, changes and deprecation notices across every pinned revision."""
    revisions = pins.revision_names
    area: set[str] = set()
    partial: dict[str, str] = {}
    for rev in pins.revisions:
        _, schema, _ = _schema(rev)
        selection = select(schema, spec.feature, spec.extra_items)
        area |= selection.full
        partial.update(selection.partial)
    for name in area:
        partial.pop(name, None)

    present: dict[str, dict[str, Record]] = {}
    kinds: dict[str, str] = {}
    for rev in pins.revisions:
        records, rev_kinds = _revision_items(rev, spec, area, partial)
        present[rev.name] = records
        kinds.update(rev_kinds)

    items: dict[str, Any] = {}
    changes: list[dict[str, Any]] = []
    for item in sorted(kinds):
        per_rev = {r: present[r].get(item, {"present": False}) for r in revisions}
        items[item] = {"kind": kinds[item], "revisions": per_rev}
        changes += _changes(item, revisions, per_rev)
    changes.sort(key=lambda c: (revisions.index(c["revision"]), c["item"], c["change"]))
    return {
        "area": spec.name,
        "title": spec.title,
        "items": items,
        "changes": changes,
        "deprecation": {rev.name: _deprecation(pins, rev, spec) for rev in pins.revisions},
    }


def build_diff() -> dict[str, Any]:
    """The whole diff, as the JSON document ``build/diff.json`` holds (``diff.schema.json``)."""
    pins = load_pins()
    specs = [spec for spec in load_area_specs() if spec.has_schema]
    if not specs:
        raise CompareError(
            "no area file says how to find its schema items",
            "add `schema: {feature: <name>}` to an area file in compare/rows/areas/ "
            "(or the folder MCP_COMPARE_AREAS names)",
        )
    sections = {spec.name: _area_section(pins, spec) for spec in specs}
    first = sections[specs[0].name]
    return {
        "format": FORMAT,
        "spec_commit": pins.commit,
        "revisions": pins.revision_names,
        **{key: first[key] for key in ("area", "items", "changes", "deprecation")},
        "areas": sections,
    }
