"""Every link of the built site points at a file that is there, and at an anchor that is
there when the target is a summary page.

mkdocs checks the links of the pages it builds, but the cell pages are not its pages any more
(``compare.site._evidence``), so links into them, and the links of the cell pages themselves,
are checked here, on the finished HTML. A broken link fails the build as a strict mkdocs
build would, naming the page, the link and what is missing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit

from compare._errors import CompareError

_LINK = re.compile(r'\s(?:href|src)="([^"]*)"')
_ID = re.compile(r'\sid="([^"]*)"')
#: Shown at most this many broken links (all are counted).
SHOWN = 20


def _targets(page: Path, text: str) -> Iterable[tuple[str, Path, str]]:
    for match in _LINK.finditer(text):
        raw = html.unescape(match.group(1))
        parts = urlsplit(raw)
        if parts.scheme or parts.netloc or raw.startswith(("/", "mailto:", "data:", "javascript:")):
            continue
        if not parts.path:
            yield raw, page, parts.fragment
            continue
        yield raw, (page.parent / unquote(parts.path)).resolve(), parts.fragment


def check_links(out: Path, pages: Iterable[Path]) -> None:
    """Check the links of ``pages`` (HTML files under ``out``); raise on any broken one.
    Anchors are checked where the target is a page under ``out`` outside ``cells/`` (the
    cell pages' anchors are made from their own checks, by the same template)."""
    root = out.resolve()
    ids: dict[Path, set[str]] = {}
    broken: list[str] = []

    def ids_of(path: Path) -> set[str]:
        if path not in ids:
            try:
                ids[path] = set(_ID.findall(path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                ids[path] = set()
        return ids[path]

    for page in pages:
        page = page.resolve()
        text = page.read_text(encoding="utf-8", errors="replace")
        ids[page] = set(_ID.findall(text))
        for raw, target, anchor in _targets(page, text):
            if not target.is_relative_to(root):
                broken.append(f"{page.relative_to(root)}: {raw} leaves the site")
                continue
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(root)}: {raw} (no such file)")
                continue
            rel = target.relative_to(root)
            summary = target.suffix == ".html" and rel.parts[0] != "cells"
            if anchor and summary and anchor not in ids_of(target):
                broken.append(f"{page.relative_to(root)}: {raw} (no such anchor)")
    if broken:
        shown = "\n".join(f"  {line}" for line in broken[:SHOWN])
        more = f"\n  … and {len(broken) - SHOWN} more" if len(broken) > SHOWN else ""
        raise CompareError(
            f"{len(broken)} broken link(s) in the built site:\n{shown}{more}",
            "fix the template or data that makes them; the pages were written as they are",
        )
