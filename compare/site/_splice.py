"""The parts of a summary page that change with the results, kept out of the mkdocs build.

A matrix, a grid, a table of verdicts: when ten cells change, these change, and the rest of
the summary pages (headings, prose, row texts, citations) does not. The templates wrap such a
part in :func:`splice` marks. Before mkdocs runs, each marked part of a page is cut out and
replaced by a placeholder that names only its place (the page and its number on the page),
so the pages mkdocs builds (the *skeleton*) stay the same bytes while only results change, and
mkdocs is not run again. After it, each placeholder in the built HTML is replaced by its part,
converted with the same Markdown settings as the cell pages (``compare.site._evidence``); a
part is converted once per content (cached by its hash in ``site/.work/parts/``).

A part may hold no heading (the table of contents comes from the skeleton) and is converted
with the page's abbreviations, so its terms carry their titles as elsewhere on the page.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from compare._errors import CompareError

OPEN = "<!-- mc-part -->"
CLOSE = "<!-- /mc-part -->"
#: Bump when parts converted by an older version must be converted again.
FORMAT = 1
_ABBR = re.compile(r"^\*\[[^\]]+\]: .*$", re.M)
_PLACE = re.compile(r"(?:<p>)?<!-- mc-part:(\d+) -->(?:</p>)?")


def splice(caller: object) -> str:
    """A template call block's body marked as a part (see the module docstring)."""
    body = caller() if callable(caller) else ""
    return f"\n{OPEN}\n\n{str(body).strip(chr(10))}\n\n{CLOSE}\n"


@dataclass
class Page:
    """One summary page cut into its skeleton and its parts."""

    skeleton: str
    parts: list[str] = field(default_factory=list)
    #: The page's abbreviation definitions, added to every part before it is converted.
    abbreviations: str = ""

    def hashes(self, page: str = "") -> list[str]:
        """Each part's content hash with its page's place (its links are written from there;
        its converted HTML is cached by it)."""
        return [
            hashlib.sha256(f"{FORMAT}\0{page}\0{self.abbreviations}\0{part}".encode()).hexdigest()
            for part in self.parts
        ]


def cut(text: str, where: str) -> Page:
    """``text`` with each marked part replaced by a numbered placeholder at its indent."""
    if OPEN not in text:
        return Page(text)
    lines = text.split("\n")
    out: list[str] = []
    parts: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip() != OPEN:
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        end = i + 1
        while end < len(lines) and lines[end].strip() != CLOSE:
            if lines[end].strip() == OPEN:
                raise CompareError(f"{where}: a part opens inside another", "close it first")
            end += 1
        if end == len(lines):
            raise CompareError(f"{where}: a part is never closed", f"end it with {CLOSE}")
        body = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in lines[i + 1 : end]]
        if any(re.match(r"#{1,6} ", ln) for ln in body):
            raise CompareError(f"{where}: a part holds a heading", "keep headings outside parts")
        out.append(f"{indent}<!-- mc-part:{len(parts)} -->")
        parts.append("\n".join(body).strip("\n"))
        i = end + 1
    abbreviations = "\n".join(_ABBR.findall(text))
    return Page("\n".join(out), parts, abbreviations)


def fill(html: str, parts: list[str], where: str) -> str:
    """The built skeleton page with each placeholder replaced by its part's HTML."""

    def one(match: re.Match[str]) -> str:
        n = int(match.group(1))
        if n >= len(parts):
            raise CompareError(f"{where}: the built page names part {n}, which it lacks", "")
        return parts[n]

    filled = _PLACE.sub(one, html)
    return filled


def placeholders(html: str) -> int:
    """How many part placeholders a built page holds."""
    return len(_PLACE.findall(html))


def cache_dir(work: Path) -> Path:
    return work / "parts"
