"""Pinning new things: a revision when one lands upstream, or a single extra file (a SEP).

Hashes are computed from the source's bytes at the pinned commit, never typed, and the pins
file is rewritten atomically only after the result parses back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from compare._areas import load_area_specs
from compare._errors import CompareError
from compare._yaml import load_yaml
from compare.pin._fetch import fetch_files, open_source, sha256_bytes
from compare.pin._pins import PinnedFile, Pins, Revision, release_order, write_pins
from compare.pin._source import Announce, Source

_REVISION = re.compile(r"^(\d{4}-\d{2}-\d{2}|draft)$")

#: Pages of a revision that later stages cite, pinned with it when the revision has them.
COMPANION_PAGES = (
    "basic/lifecycle.mdx",
    "changelog.mdx",
    "basic/patterns/mrtr.mdx",
    "deprecated.mdx",
)
#: Files beside a revision's schema.json, pinned with it when present: reviewers cite the
#: TypeScript schema (its doc comments carry the prose the JSON drops).
SCHEMA_COMPANIONS = ("schema.ts",)


@dataclass
class AddReport:
    """What ``pin add`` changed: new pins, re-pinned files (old sha256), untouched ones."""

    added: list[PinnedFile] = field(default_factory=list)
    changed: list[tuple[PinnedFile, str]] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    revision: Revision | None = None
    source: str = ""


def _merge(pins: Pins, found: list[PinnedFile], report: AddReport) -> list[PinnedFile]:
    files = list(pins.files)
    for new in found:
        old = pins.file(new.path)
        if old is None:
            files.append(new)
            report.added.append(new)
        elif old.sha256 != new.sha256:
            files[files.index(old)] = new
            report.changed.append((new, old.sha256))
        else:
            report.unchanged.append(new.path)
    return files


def _read(source: Source, path: str) -> PinnedFile | None:
    data = source.read(path)
    return None if data is None else PinnedFile(path, sha256_bytes(data))


#: The spec sentences the scenarios' checks cite (``compare/judge/_sentences.py`` reads it
#: whole; here only the page each one sits on at each revision is read).
SENTENCES = Path(__file__).resolve().parent.parent / "exchange" / "scenarios" / "_sentences.yaml"


def sentence_pages(revision: str, path: Path = SENTENCES) -> list[str]:
    """The pages (relative to a revision's docs folder) the cited sentences sit on at
    ``revision``: a sentence's ``at`` line names its own page where the page moved."""
    data = load_yaml(path) if path.is_file() else {}
    pages: list[str] = []
    for sentence in (data or {}).values() if isinstance(data, dict) else ():
        if not isinstance(sentence, dict):
            continue
        place = (sentence.get("at") or {}).get(revision)
        if place is None:
            continue
        page = str(place).rpartition(":")[0] or str(sentence.get("page", ""))
        if page:
            pages.append(page)
    return list(dict.fromkeys(pages))


def area_pages() -> list[str]:
    """Every area's spec pages (relative to a revision's docs folder), without repeats."""
    return list(dict.fromkeys(page for area in load_area_specs() for page in area.spec_pages))


def add_revision(pins: Pins, name: str, spec: str | None, announce: Announce) -> AddReport:
    """Pin revision ``name``: its schema, every area's pages, the companion pages and the
    pages the scenarios' sentences are cited on at that revision.

    Only the schema must exist: a page an area lists that the revision does not have (a
    feature newer or older than it) is simply not pinned.
    """
    if not _REVISION.match(name):
        raise CompareError(
            f"{name!r} is not a revision name", hint="revisions are named YYYY-MM-DD or draft"
        )
    pages = area_pages()
    source = open_source(pins, spec, announce)
    schema = f"schema/{name}/schema.json"
    found: list[PinnedFile] = []
    pinned_schema = _read(source, schema)
    if pinned_schema is None:
        raise CompareError(
            f"revision {name}: {schema} not found in {source.description}",
            hint="check the revision name, or point --spec-source at a newer checkout",
        )
    found.append(pinned_schema)
    cited = sentence_pages(name)
    companions = [
        f"docs/specification/{name}/{page}"
        for page in dict.fromkeys((*pages, *COMPANION_PAGES, *cited))
    ]
    companions += [f"schema/{name}/{file}" for file in SCHEMA_COMPANIONS]
    for path in companions:
        pinned = _read(source, path)
        if pinned is not None:
            found.append(pinned)
    report = AddReport(source=source.description)
    files = _merge(pins, found, report)
    status = "unreleased" if name == "draft" else "released"
    report.revision = Revision(name, status, schema)
    revisions = [r for r in pins.revisions if r.name != name] + [report.revision]
    revisions.sort(key=lambda r: release_order(r.name))
    new_pins = replace(pins, revisions=tuple(revisions), files=tuple(files))
    write_pins(new_pins)
    fetch_files(new_pins, [f for f, _ in report.changed] + report.added, source)
    return report


def add_files(pins: Pins, paths: list[str], spec: str | None, announce: Announce) -> AddReport:
    """Pin extra files (SEPs, other pages) by path, hashed from the source."""
    source = open_source(pins, spec, announce)
    found: list[PinnedFile] = []
    for path in paths:
        pinned = _read(source, path.strip("/"))
        if pinned is None:
            raise CompareError(
                f"{path} not found in {source.description}",
                hint="give the path inside the spec repository, e.g. seps/2577-….md",
            )
        found.append(pinned)
    report = AddReport(source=source.description)
    new_pins = replace(pins, files=tuple(_merge(pins, found, report)))
    write_pins(new_pins)
    fetch_files(new_pins, [f for f, _ in report.changed] + report.added, source)
    return report
