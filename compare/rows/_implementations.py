"""The implementations registry: each cited (not run) implementation declared once, for all areas.

Areas used to declare their cited columns themselves, so a second area declaring mcpx again
silently replaced the first one's entry. Now one file (``compare/rows/implementations.yaml``,
schema beside it) declares them and areas refer to them by id; this module is its one loader
and the one place that resolves an area's ids, so an unknown id, an id declared twice in the
registry, or an area still declaring one itself is an error that names both files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from compare import _paths
from compare._errors import CompareError
from compare._yaml import load_yaml
from compare.rows._load import Issue

SCHEMA_PATH = Path(__file__).resolve().parent / "implementations.schema.json"


@dataclass(frozen=True)
class Implementation:
    """One cited implementation as the registry declares it."""

    id: str
    name: str
    kind: str
    why_not_run: str
    repository: str | None = None

    def as_row(self) -> dict[str, Any]:
        """Its entry in ``rows.json``'s ``implementations`` (run targets add theirs)."""
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "version": None,
            "repository": self.repository,
            "why_not_run": self.why_not_run,
        }


@dataclass(frozen=True)
class Kind:
    """How pages group implementations of one kind: the group's title and its filter word."""

    kind: str
    group: str
    key: str


@dataclass(frozen=True)
class Registry:
    """Every declared implementation by id, the kinds pages group them by, and their file."""

    file: Path
    by_id: dict[str, Implementation] = field(default_factory=dict)
    #: In page order; two kinds may share a group (``cli`` and ``command``).
    kinds: tuple[Kind, ...] = ()

    def resolve(
        self, area: dict[str, Any], area_file: str
    ) -> tuple[list[Implementation], list[Issue]]:
        """The implementations an area's ``implementations`` list names, in its order, and an
        issue for each entry that is not a known id (an inline declaration included)."""
        found: list[Implementation] = []
        issues: list[Issue] = []
        for entry in area.get("implementations") or []:
            if isinstance(entry, dict):
                continue  # declare_issues names it, with both files
            impl = self.by_id.get(str(entry))
            if impl is None:
                msg = f"implementation {entry!r} is not declared in {self.file}"
                tip = f"declare it once in {self.file} (id, name, kind, why_not_run); list its id"
                issues.append(Issue(area_file, f"implementations/{entry}", msg, tip))
            else:
                found.append(impl)
        return found, issues


@cache
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def load_registry(path: Path | None = None) -> Registry:
    """Read and validate the registry (default ``MCP_COMPARE_IMPLEMENTATIONS``); a file that
    does not parse, breaks the schema or declares an id twice is a :class:`CompareError`."""
    file = path or _paths.implementations_file()
    data = load_yaml(file)
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise CompareError(f"{file}: {where}: {first.message}", f"see {SCHEMA_PATH}")
    kinds = tuple(Kind(k["kind"], k["group"], k["key"]) for k in data["kinds"])
    seen = [k.kind for k in kinds]
    if len(set(seen)) != len(seen):
        raise CompareError(f"{file}: a kind is listed twice", "list each kind once under kinds")
    by_id: dict[str, Implementation] = {}
    for raw in data["implementations"]:
        if raw["id"] in by_id:
            raise CompareError(
                f"{file}: implementation {raw['id']!r} is declared twice",
                "declare each implementation once; merge the two entries",
            )
        by_id[raw["id"]] = Implementation(
            id=raw["id"],
            name=raw["name"],
            kind=raw["kind"],
            why_not_run=raw["why_not_run"],
            repository=raw.get("repository"),
        )
    for impl in by_id.values():
        if impl.kind not in seen:
            raise CompareError(
                f"{file}: implementation {impl.id!r} has kind {impl.kind!r}, not under kinds",
                "add the kind under kinds (its group and key), or use a listed one",
            )
    return Registry(file, by_id, kinds)


@cache
def shipped_kinds() -> tuple[Kind, ...]:
    """The kinds of the registry this process reads (the site groups its pages by them)."""
    return load_registry().kinds


def declare_issues(areas: Iterable[tuple[str, Any]], registry: Registry) -> list[Issue]:
    """An issue for every implementation an area declares itself (a mapping in its
    ``implementations`` list) instead of naming a registry id: naming the registry when it
    declares that id too, and every other area file that declares the same id."""
    declared: dict[str, list[str]] = {}
    for file, area in areas:
        entries = area.get("implementations") if isinstance(area, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                declared.setdefault(str(entry.get("id")), []).append(file)
    issues = []
    for impl, files in sorted(declared.items()):
        for file in files:
            others = [f for f in files if f != file]
            if impl in registry.by_id:
                also = f"it is already declared in {registry.file}"
            elif others:
                also = f"{', '.join(others)} declares it too"
            else:
                also = f"implementations are declared once, in {registry.file}"
            msg = f"{file} declares implementation {impl!r} itself; {also}"
            tip = f"move its declaration to {registry.file} (once) and list only its id here"
            issues.append(Issue(file, f"implementations/{impl}", msg, tip))
    return issues
