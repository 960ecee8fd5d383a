"""Reading pinned files: the only way later stages see the spec.

Every read checks the cached copy's sha256 against the pins (memoised per file state), so a
cache edited by hand is caught at the point of use, not trusted silently.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from compare._errors import CompareError
from compare.pin._fetch import sha256_file, spec_cache
from compare.pin._pins import Pins, load_pins, pins_file


@lru_cache(maxsize=8)
def _pins_at(origin: Path, _state: tuple[int, int, int, int]) -> Pins:
    return load_pins()


def _state(stat: os.stat_result) -> tuple[int, int, int, int]:
    """What identifies one version of a file: an atomic rewrite changes the inode."""
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def current_pins() -> Pins:
    """``load_pins()``, parsed once per state of the pins file."""
    origin = pins_file()
    try:
        stat = origin.stat()
    except OSError:
        return load_pins()  # raises the friendly "not found" error
    return _pins_at(origin, _state(stat))


@lru_cache(maxsize=512)
def _hash_at(path: Path, _state: tuple[int, int, int, int]) -> str:
    return sha256_file(path)


def pinned_path(path: str) -> Path:
    """The verified cached copy of pinned file ``path`` (a path inside the spec repository)."""
    pins = current_pins()
    pinned = pins.file(path)
    if pinned is None:
        raise CompareError(
            f"{path} is not pinned in {pins.origin}",
            hint="pin it (`mcp-compare pin add REV` for a revision's pages) or cite a pinned file",
        )
    cached = spec_cache(pins.commit) / path
    try:
        stat = cached.stat()
    except FileNotFoundError:
        raise CompareError(
            f"{path} has not been fetched into {spec_cache(pins.commit)}",
            hint="run `mcp-compare pin verify` (set MCP_COMPARE_SPEC to choose the source)",
        ) from None
    actual = _hash_at(cached, _state(stat))
    if actual != pinned.sha256:
        raise CompareError(
            f"cached {path} does not match its pin: expected sha256 {pinned.sha256}, "
            f"actual {actual}",
            hint="run `mcp-compare pin verify` to replace it with a verified copy",
        )
    return cached


def pinned_text(path: str) -> str:
    """The verified text of pinned file ``path`` (UTF-8, newlines as in the file)."""
    cached = pinned_path(path)
    try:
        return cached.read_bytes().decode("utf-8")
    except UnicodeDecodeError as err:
        raise CompareError(f"pinned file {path} is not UTF-8 text: {err}") from None


def upstream_link(path: str, start: int | None = None, end: int | None = None) -> str:
    """A link to ``path`` at the pinned commit, with ``#Lstart`` or ``#Lstart-Lend``."""
    pins = current_pins()
    base = pins.repository.removesuffix("/").removesuffix(".git")
    link = f"{base}/blob/{pins.commit}/{path}"
    if start is not None:
        link += f"#L{start}"
        if end is not None and end != start:
            link += f"-L{end}"
    return link
