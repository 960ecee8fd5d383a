"""Fetch pinned files into the cache and verify them, without ever losing a good copy.

Everything is fetched into a temporary folder and every sha256 is checked before the first
file is moved into ``.cache/spec/<commit>/``; one mismatch and nothing in the cache changes.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from compare import _atomic, _paths
from compare._errors import CompareError
from compare.pin._pins import PinnedFile, Pins
from compare.pin._source import Announce, FolderSource, Source, resolve_source


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def spec_cache(commit: str) -> Path:
    """``.cache/spec/<commit>/``: verified copies of the pinned files."""
    return _paths.cache_dir() / "spec" / commit


@dataclass
class PinReport:
    """What a fetch or verify did, for the CLI to print."""

    commit: str
    cache: Path
    source: str | None = None
    fetched: list[str] = field(default_factory=list)
    verified: list[str] = field(default_factory=list)
    replaced: list[tuple[str, str]] = field(default_factory=list)  # (path, wrong sha256)


def open_source(pins: Pins, spec: str | None, announce: Announce) -> Source:
    """Resolve the source and say which one is used; warn if an export names another commit."""
    source = resolve_source(spec, pins.repository, pins.commit, announce)
    if isinstance(source, FolderSource):
        named = source.manifest_commit()
        if named and named != pins.commit:
            announce(
                f"{source.root}/MANIFEST.tsv names commit {named[:12]}, the pins say "
                f"{pins.commit[:12]}; every file is still checked by sha256"
            )
    return source


#: A temporary fetch folder older than this was left by a killed run and may be removed.
STALE_AFTER_S = 3600


def _remove_stale(folder: Path) -> None:
    now = time.time()
    for leftover in folder.glob(".incoming-*"):
        with contextlib.suppress(OSError):
            if now - leftover.stat().st_mtime > STALE_AFTER_S:
                shutil.rmtree(leftover, ignore_errors=True)


def fetch_files(pins: Pins, wanted: Iterable[PinnedFile], source: Source) -> list[str]:
    """Copy ``wanted`` from ``source`` into the cache, all-or-nothing; return their paths."""
    wanted = list(wanted)
    final = spec_cache(pins.commit)
    final.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale(final.parent)
    incoming = Path(tempfile.mkdtemp(prefix=".incoming-", dir=final.parent))
    try:
        missing: list[str] = []
        mismatched: list[str] = []
        for pinned in wanted:
            data = source.read(pinned.path)
            if data is None:
                missing.append(pinned.path)
                continue
            actual = sha256_bytes(data)
            if actual != pinned.sha256:
                mismatched.append(
                    f"{pinned.path}: expected sha256 {pinned.sha256}, actual {actual}"
                )
                continue
            _atomic.write_bytes(incoming / pinned.path, data)
        if missing or mismatched:
            lines = [f"{p}: not found" for p in missing] + mismatched
            raise CompareError(
                f"{len(lines)} pinned file(s) from {source.description} failed verification "
                "(the cache was left unchanged):\n  " + "\n  ".join(lines),
                hint="the source is not at the pinned commit or a file was altered; point "
                "--spec-source / MCP_COMPARE_SPEC at an untouched copy, or re-pin deliberately "
                "with `mcp-compare pin add`",
            )
        for pinned in wanted:
            target = final / pinned.path
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(incoming / pinned.path, target)
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
    return [p.path for p in wanted]


def fetch(pins: Pins, spec: str | None, announce: Announce) -> PinReport:
    """``mcp-compare pin``: fetch every pinned file afresh from the source and verify it."""
    source = open_source(pins, spec, announce)
    report = PinReport(pins.commit, spec_cache(pins.commit), source.description)
    report.fetched = fetch_files(pins, pins.files, source)
    return report


def check_cache(pins: Pins) -> tuple[list[str], list[PinnedFile], list[tuple[PinnedFile, str]]]:
    """Split the pinned files into verified, missing, and altered (with the wrong sha256)."""
    root = spec_cache(pins.commit)
    good: list[str] = []
    missing: list[PinnedFile] = []
    altered: list[tuple[PinnedFile, str]] = []
    for pinned in pins.files:
        path = root / pinned.path
        if not path.is_file():
            missing.append(pinned)
            continue
        actual = sha256_file(path)
        if actual == pinned.sha256:
            good.append(pinned.path)
        else:
            altered.append((pinned, actual))
    return good, missing, altered


def verify(
    pins: Pins, spec: str | None, announce: Announce, fetch_missing: bool = True
) -> PinReport:
    """``mcp-compare pin verify``: check every cached file; fetch what is missing or altered.

    The source is opened only when something must be fetched, so a complete cache verifies
    offline. With ``fetch_missing=False`` any gap is an error instead.
    """
    report = PinReport(pins.commit, spec_cache(pins.commit))
    good, missing, altered = check_cache(pins)
    report.verified = good
    todo = missing + [p for p, _ in altered]
    if not todo:
        return report
    if not fetch_missing:
        lines = [f"{p.path}: not in the cache" for p in missing] + [
            f"{p.path}: expected sha256 {p.sha256}, actual {actual}" for p, actual in altered
        ]
        raise CompareError(
            f"{len(lines)} pinned file(s) in {report.cache} failed verification:\n  "
            + "\n  ".join(lines),
            hint="run `mcp-compare pin` to fetch verified copies",
        )
    for pinned, actual in altered:
        announce(
            f"cached {pinned.path} was altered (expected sha256 {pinned.sha256}, actual "
            f"{actual}); fetching a verified copy"
        )
    source = open_source(pins, spec, announce)
    report.source = source.description
    report.fetched = fetch_files(pins, todo, source)
    report.replaced = [(p.path, actual) for p, actual in altered]
    return report
