"""The pins file, ``schemas/revisions.toml``: which upstream commit, which revisions, which files.

Everything downstream trusts a spec file only because its sha256 is written here, so the
loader is strict: a malformed file is reported with its path and the offending key rather
than half-read.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import tomli_w

from compare import _atomic, _paths
from compare._errors import CompareError

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_REVISION = re.compile(r"^(\d{4}-\d{2}-\d{2}|draft)$")
STATUSES = ("released", "unreleased")

_HEADER = (
    "# Pinned MCP spec sources: one upstream commit, the revisions compared, and the sha256 of\n"
    "# every file the pipeline reads. Written by `mcp-compare pin add`; checked by `pin verify`.\n"
)


@dataclass(frozen=True)
class Revision:
    """One spec revision: its name, whether it was released, and its schema.

    An area's pages are not named here: they are ``docs/specification/<name>/<page>`` for
    each page its area file lists, pinned (in ``[[files]]``) where the revision has them.
    """

    name: str
    status: str
    schema: str

    @property
    def docs(self) -> str:
        """The folder of this revision's spec pages in the spec repository."""
        return f"docs/specification/{self.name}"


@dataclass(frozen=True)
class PinnedFile:
    """A file at the pinned commit and the sha256 its bytes must have."""

    path: str
    sha256: str


@dataclass(frozen=True)
class Pins:
    """The parsed, validated pins file."""

    repository: str
    commit: str
    revisions: tuple[Revision, ...]
    files: tuple[PinnedFile, ...]
    origin: Path = field(compare=False)

    def revision(self, name: str) -> Revision:
        """The named revision, or a :class:`CompareError` listing the known ones."""
        for rev in self.revisions:
            if rev.name == name:
                return rev
        known = ", ".join(r.name for r in self.revisions) or "none"
        raise CompareError(
            f"unknown revision {name!r} (pinned: {known})",
            hint=f"pin it with `mcp-compare pin add {name}` or use one of: {known}",
        )

    def file(self, path: str) -> PinnedFile | None:
        """The pin of ``path``, if it is pinned."""
        for pinned in self.files:
            if pinned.path == path:
                return pinned
        return None

    @property
    def revision_names(self) -> list[str]:
        """Revision names in release order (dated ones ascending, ``draft`` last)."""
        return [r.name for r in self.revisions]


def pins_file() -> Path:
    """Where the pins live (``$MCP_COMPARE_SCHEMAS/revisions.toml``)."""
    return _paths.schemas_dir() / "revisions.toml"


def release_order(name: str) -> tuple[int, str]:
    """Sort key: dated revisions by date, ``draft`` after all of them.

    The one order of revisions: the pins are kept in it, and every stage that sorts or
    compares revision names (scenario windows, the run summary, rows, the site, the era
    boundary) uses this key rather than an order of its own.
    """
    return (1, name) if name == "draft" else (0, name)


def _bad(origin: Path, key: str, problem: str) -> CompareError:
    return CompareError(
        f"{origin}: {key}: {problem}",
        hint=f"fix `{key}` in {origin} (or restore it with git) and run the command again",
    )


def _str(origin: Path, table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if value is None:
        raise _bad(origin, f"{where}.{key}", "missing")
    if not isinstance(value, str) or not value:
        raise _bad(origin, f"{where}.{key}", f"expected a non-empty string, got {value!r}")
    return value


def _relative_path(origin: Path, value: str, key: str) -> str:
    if value.startswith("/") or ".." in value.split("/") or "\\" in value:
        raise _bad(origin, key, f"{value!r} must be a relative path inside the spec repository")
    return value


def parse_pins(text: str, origin: Path) -> Pins:
    """Parse and validate the pins file's text; every problem names ``origin`` and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise CompareError(
            f"{origin}: not valid TOML ({err})",
            hint=f"fix the syntax in {origin} (or restore it with git)",
        ) from None
    source = data.get("source")
    if not isinstance(source, dict):
        raise _bad(origin, "source", "missing table [source]")
    repository = _str(origin, source, "repository", "source")
    commit = _str(origin, source, "commit", "source")
    if not _HEX40.match(commit):
        raise _bad(origin, "source.commit", f"{commit!r} is not 40 lowercase hex digits")

    raw_revisions = data.get("revisions")
    if not isinstance(raw_revisions, dict) or not raw_revisions:
        raise _bad(origin, "revisions", 'missing or empty table [revisions."<name>"]')
    revisions: list[Revision] = []
    for name, table in raw_revisions.items():
        where = f'revisions."{name}"'
        if not _REVISION.match(name):
            raise _bad(origin, where, "a revision is named YYYY-MM-DD or draft")
        if not isinstance(table, dict):
            raise _bad(origin, where, "expected a table")
        status = _str(origin, table, "status", where)
        if status not in STATUSES:
            raise _bad(origin, f"{where}.status", f"{status!r} is not one of {STATUSES}")
        schema = _relative_path(origin, _str(origin, table, "schema", where), f"{where}.schema")
        revisions.append(Revision(name, status, schema))
    revisions.sort(key=lambda r: release_order(r.name))

    raw_files = data.get("files")
    if not isinstance(raw_files, list) or not raw_files:
        raise _bad(origin, "files", "missing or empty array of tables [[files]]")
    files: list[PinnedFile] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw_files):
        where = f"files[{index}]"
        if not isinstance(entry, dict):
            raise _bad(origin, where, "expected a table")
        path = _relative_path(origin, _str(origin, entry, "path", where), f"{where}.path")
        digest = _str(origin, entry, "sha256", where)
        if not _HEX64.match(digest):
            raise _bad(origin, f"{where}.sha256", f"{digest!r} is not 64 lowercase hex digits")
        if path in seen:
            raise _bad(origin, f"{where}.path", f"{path!r} is pinned twice")
        seen.add(path)
        files.append(PinnedFile(path, digest))

    for rev in revisions:
        if rev.schema not in seen:
            raise _bad(
                origin, f'revisions."{rev.name}".schema', f"{rev.schema!r} has no [[files]] entry"
            )
    return Pins(repository, commit, tuple(revisions), tuple(files), origin)


def load_pins() -> Pins:
    """The parsed, validated ``revisions.toml`` (revisions in release order)."""
    origin = pins_file()
    try:
        text = origin.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CompareError(
            f"pins file not found: {origin}",
            hint="restore schemas/revisions.toml with git, or point MCP_COMPARE_SCHEMAS at "
            "the folder holding it",
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise CompareError(f"cannot read pins file {origin}: {err}") from None
    return _parsed(text, origin)


@lru_cache(maxsize=8)
def _parsed(text: str, origin: Path) -> Pins:
    """:func:`parse_pins`, once per text: the file is read on every call (so an edit is
    seen at once), but a run asks for the pins some hundred times (each scenario check's
    revision window, each cell) and parsing the TOML each time cost more than the rest of
    loading the scenarios. :class:`Pins` is frozen, so every caller may share one."""
    return parse_pins(text, origin)


def dump_pins(pins: Pins) -> str:
    """The TOML text of ``pins``, in a stable order so rewrites make small diffs."""
    data: dict[str, Any] = {
        "source": {"repository": pins.repository, "commit": pins.commit},
        "revisions": {
            rev.name: {"status": rev.status, "schema": rev.schema}
            for rev in sorted(pins.revisions, key=lambda r: release_order(r.name))
        },
        "files": [{"path": f.path, "sha256": f.sha256} for f in pins.files],
    }
    return _HEADER + "\n" + tomli_w.dumps(data)


def write_pins(pins: Pins) -> None:
    """Atomically rewrite the pins file, after checking the result parses back the same."""
    text = dump_pins(pins)
    parse_pins(text, pins.origin)
    _atomic.write_text(pins.origin, text)
