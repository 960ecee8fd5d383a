"""Which evidence pages a render may keep as they are: the cells whose stored result did not
change since the last render.

A full render of every cell page reads every transcript and runs the cell template thousands
of times; with four times the areas that is minutes for a run in which ten cells changed. So
each cell page gets a key made of what the page shows: the cell's own files (its verdict's
seal and the size and time of every file in its folder), the scenario it played, the rows
that cite it (the page links back to each, with its area and its sentence), and what every
cell page shares (the templates and site code, the spec commit its references link to, the
implementations' names, the revisions). A render that finds a page's key unchanged and its
files still in place keeps them and renders nothing for that cell.

The record (``site/.work/render.json``) also keeps which symbols each page printed, because
the legend lists every symbol any page shows, and which files the page wrote, so a kept page's
files are not taken for stale ones. ``render --check`` never uses it: it renders everything.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare import _atomic, _paths
from compare.site._cell_view import Cite, cites_key
from compare.site._cells import Cell
from compare.site._inputs import SiteData

#: Bump when a kept record would no longer mean the same (its fields or the key's recipe).
FORMAT = 2
_SITE_CODE = Path(__file__).resolve().parent
#: The site modules a cell page is made with (its template's helpers, links, words, symbols,
#: escaping, the transcript reader): a change in another module (the build, the matrices)
#: keeps the cell pages.
CELL_PAGE_CODE = (
    "_reuse.py",
    "_render.py",
    "_cell_view.py",
    "_cells.py",
    "_places.py",
    "_strip.py",
    "_links.py",
    "_escape.py",
    "_symbols.py",
    "_words.py",
    "_text.py",
    "_matrix.py",
)


def record_path() -> Path:
    return _paths.site_dir() / ".work" / "render.json"


def shared_key(data: SiteData, templates: Path) -> str:
    """What every cell page shows besides its own cell, hashed once per render."""
    digest = hashlib.sha256(f"format {FORMAT}\n".encode())
    for path in [templates / "cell.md.j2", *(_SITE_CODE / name for name in CELL_PAGE_CODE)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    names = {
        k: str((data.impl_info.get(k) or v or {}).get("name") or k)
        for k, v in {**data.targets, **data.impl_info}.items()
    }
    shared = [data.repository, data.commit, data.revisions, names]
    digest.update(json.dumps(shared, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def _folder_stat(folder: Path) -> list[tuple[str, int, int]]:
    """(relative name, size, mtime) of every file under a cell's folder (plays included)."""
    out: list[tuple[str, int, int]] = []
    base = str(folder)
    cut = len(base) + 1  # entries' paths start with the folder's and a separator
    stack = [base]
    while stack:
        here = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                out.append((entry.path[cut:], st.st_size, st.st_mtime_ns))
    return sorted(out)


def scenario_key(scenario: dict[str, Any]) -> str:
    """A scenario's part of its cells' keys (hashed once per scenario, not once per cell)."""
    return hashlib.sha256(json.dumps(scenario, sort_keys=True, default=str).encode()).hexdigest()


def cell_key(shared: str, cell: Cell, scenario: str, cites: Iterable[Cite] = ()) -> str:
    """The key of one cell page: the shared part, the scenario's key, the rows citing the
    cell (a row renamed, moved or no longer citing it changes the page), the cell's own
    files."""
    digest = hashlib.sha256(shared.encode())
    digest.update(json.dumps([cell.rel, cell.current, cell.suffix, scenario]).encode())
    digest.update(json.dumps(cites_key(cites), ensure_ascii=False).encode())
    digest.update(str(cell.data.get("seal") or "").encode())
    digest.update(json.dumps(_folder_stat(cell.folder)).encode())
    return digest.hexdigest()


@dataclass
class Kept:
    """One cell page as the last render left it."""

    key: str
    files: list[str]
    symbols: dict[str, list[str]]
    copied: bool


@dataclass
class Record:
    """Every cell page's key, files and symbols from the last render."""

    pages: dict[str, Kept] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> Record:
        """The record, or an empty one when it is missing, unreadable or of another format
        (then every cell page is rendered again: slower, never wrong)."""
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return cls()
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            return cls()
        pages: dict[str, Kept] = {}
        for slug, item in (raw.get("pages") or {}).items():
            try:
                pages[str(slug)] = Kept(
                    str(item["key"]),
                    [str(f) for f in item["files"]],
                    {str(k): [str(s) for s in v] for k, v in item["symbols"].items()},
                    bool(item["copied"]),
                )
            except (KeyError, TypeError, AttributeError):
                continue
        return cls(pages)

    def write(self, path: Path) -> None:
        pages = {
            slug: {"key": k.key, "files": k.files, "symbols": k.symbols, "copied": k.copied}
            for slug, k in sorted(self.pages.items())
        }
        _atomic.write_json(path, {"format": FORMAT, "pages": pages})

    def keep(self, slug: str, key: str, folder: Path) -> Kept | None:
        """The kept page when its key matches and all its files are still there."""
        kept = self.pages.get(slug)
        if kept is None or kept.key != key:
            return None
        if not all((folder / rel).is_file() for rel in kept.files):
            return None
        return kept
