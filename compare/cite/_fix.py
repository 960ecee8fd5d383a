"""Fix one moved citation: its new location, and the edit that writes it at its place only.

The verifier finds a moved quote's new line; this module turns that into text. It is given
where the citation sits in its file (the start and end offsets of the value that holds it),
because only the stage that owns the file knows its structure (``compare.rows`` composes an
area file's YAML to find them). Inside that span, ``source:OLD`` becomes ``source:NEW`` and
nothing else changes: the same ``path:line`` elsewhere in the file — another citation with a
quote that did not move, or prose that mentions the place — is outside the span, and a longer
line number that merely starts with the old one (``:1`` in ``:1-3`` or ``:12``) is not matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compare.cite._verify import Result


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` (the old location) with ``new``."""

    start: int
    end: int
    old: str
    new: str


def relocated(result: Result) -> tuple[str, str] | None:
    """(old location, new location) of a moved citation; None when it did not move."""
    if result.status != "moved" or not result.found_at:
        return None
    c = result.citation
    start = result.found_at[0]
    ranged = c.end != c.start or c.ranged  # keep the form it was written in
    new = f"{c.source}:{start}" + (f"-{start + c.end - c.start}" if ranged else "")
    return c.location, new


def fix_one(text: str, start: int, end: int, result: Result) -> Edit | None:
    """The edit that rewrites the moved citation written in ``text[start:end]``.

    None when ``result`` did not move or its location is not written in that span (the caller
    pointed at the wrong value: better no edit than an edit of something else).
    """
    moved = relocated(result)
    if moved is None:
        return None
    old, new = moved
    found = re.compile(re.escape(old) + r"(?![\d-])").search(text, start, end)
    return Edit(found.start(), found.end(), old, new) if found else None


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with every edit made (one edit per place; later offsets are applied first)."""
    by_place = {e.start: e for e in edits}
    for edit in sorted(by_place.values(), key=lambda e: e.start, reverse=True):
        text = text[: edit.start] + edit.new + text[edit.end :]
    return text
