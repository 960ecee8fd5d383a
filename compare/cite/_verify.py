"""Tell apart the ways a citation can be right or wrong.

A plain pass/fail hides the cases a reviewer must act on differently: a quote that only
matches once markdown emphasis, backticks or link markup are dropped (fine, but say so; a
sentence that wraps over the cited lines, quoted on one line, is matched exactly against the
lines joined with single spaces), a line that
moved (fixable by ``cite --fix``), a quote that occurs on several lines (the reader cannot
tell which was meant), and a quote that is simply not there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from compare.cite._parse import Citation
from compare.cite._sources import Source, open_source
from compare.cite._text import LINK, joined, normalise

Status = Literal["verified", "verified-normalised", "moved", "ambiguous", "mismatch", "unavailable"]
STATUSES: tuple[Status, ...] = (
    "verified",
    "verified-normalised",
    "moved",
    "ambiguous",
    "mismatch",
    "unavailable",
)

_WS = re.compile(r"\s+")
_EMPHASIS = re.compile(r"[*_]")


def _differences(quote: str, text: str) -> list[str]:
    """Which normalisations were needed for ``quote`` to match ``text`` (for the message)."""

    def ws(x: str) -> str:
        return _WS.sub(" ", x).strip()

    def ticks(x: str) -> str:
        return x.replace("`", "")

    def emph(x: str) -> str:
        return _EMPHASIS.sub("", x)

    def links(x: str) -> str:
        return LINK.sub(r"\1", x)

    for kinds, fn in (
        (["whitespace"], ws),
        (["backticks"], lambda x: ws(ticks(x))),
        (["markdown emphasis"], lambda x: ws(emph(x))),
        (["link markup"], lambda x: ws(links(x))),
    ):
        if fn(quote) in fn(text):
            return kinds
    return ["markdown emphasis", "backticks", "link markup"]


@dataclass
class Result:
    """The verdict on one citation, with what a reader needs to act on it."""

    citation: Citation
    status: Status
    message: str
    found_at: list[int] = field(default_factory=list)
    provenance: str = ""
    link: str | None = None
    offline: bool = True
    open_question: bool = False


def _window(lines: list[str], start: int, size: int) -> str:
    return "\n".join(lines[start - 1 : start - 1 + size])


def _match(quote: str, text: str) -> Literal["exact", "normalised"] | None:
    """How ``quote`` is found in ``text`` (lines joined by newlines): as written, on the
    lines joined into one text (:func:`joined`) with each markdown link read as its text, or
    only once normalised (emphasis and backticks dropped)."""
    one = joined(text.split("\n"))
    if quote in text or quote in one or quote in LINK.sub(r"\1", one):
        return "exact"
    if normalise(quote) and normalise(quote) in normalise(text):
        return "normalised"
    return None


def _open_question(path: str, lines: list[str], at: int) -> bool:
    """Whether line ``at`` sits under an SEP's "Open Questions" heading."""
    if not path.startswith("seps/"):
        return False
    level_open: int | None = None
    fenced = False
    for line in lines[:at]:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        heading = re.match(r"^(#+)\s+(.*)$", line)
        if not heading:
            continue
        level = len(heading[1])
        if "open question" in heading[2].lower():
            level_open = level
        elif level_open is not None and level <= level_open:
            level_open = None
    return level_open is not None


def verify(cit: Citation, source: Source | None = None) -> Result:
    """Check one citation against its source (read now unless given)."""
    src = source if source is not None else open_source(cit, cit.start, cit.end)

    def result(status: Status, message: str, found: list[int], oq: bool = False) -> Result:
        return Result(cit, status, message, found, src.provenance, src.link, src.offline, oq)

    if src.lines is None:
        label = "not verified: source unavailable" if not src.offline else "not verifiable here"
        return result("unavailable", f"{label} — {src.reason}", [])
    lines = src.lines
    size = cit.end - cit.start + 1
    in_range = cit.end <= len(lines)
    oq = in_range and _open_question(cit.path, lines, cit.start)
    if cit.quote is None:
        if in_range:
            msg = f"lines {cit.start}-{cit.end} exist (a bare range: no quote to compare)"
            return result("verified", msg, [cit.start], oq)
        msg = f"the file has {len(lines)} lines; the range {cit.start}-{cit.end} is past its end"
        return result("mismatch", msg, [])
    quote = cit.quote
    cited = _window(lines, cit.start, size) if in_range else ""
    here = _match(quote, cited) if in_range else None
    if here == "exact":
        return result("verified", "quote found at the cited place", [cit.start], oq)
    if here == "normalised":
        kinds = " and ".join(_differences(quote, cited))
        msg = f"quote found at the cited place once {kinds} differences are ignored"
        return result("verified-normalised", msg, [cit.start], oq)
    # A wrapped sentence cited by its first line: it starts here and runs on for a line or two.
    for extra in range(1, 4):
        if not in_range or cit.end + extra > len(lines):
            break
        wider = _window(lines, cit.start, size + extra)
        if (
            _match(quote, wider) is not None
            and _match(quote, _window(lines, cit.start + 1, size + extra - 1)) is None
        ):
            last = cit.end + extra
            msg = (
                f"quote starts at the cited place and runs on to line {last} (a line break is "
                f"whitespace); cite {cit.start}-{last} to be exact"
            )
            return result("verified-normalised", msg, [cit.start], oq)
    # Not where it was cited: look everywhere else, in windows of the same size.
    span = max(size, quote.count("\n") + 1)
    # A window counts only if the quote needs its first line; otherwise one occurrence inside a
    # wide window would be found again by each neighbouring window that still covers it.
    matching = [
        first
        for first in range(1, max(len(lines) - span + 2, 1))
        if _match(quote, _window(lines, first, span)) is not None
    ]
    firsts = [
        first
        for first in matching
        if span == 1 or _match(quote, _window(lines, first + 1, span - 1)) is None
    ]
    if matching and not firsts:
        # A range that starts with blank lines: no window needs its first line, yet the quote
        # is there; its first matching window is where the range moved to.
        firsts = matching[:1]
    if len(firsts) == 1:
        new = firsts[0]
        where = f"line {new}" if size == 1 else f"lines {new}-{new + size - 1}"
        msg = f"quote not at the cited place but at {where}; `mcp-compare cite --fix` rewrites it"
        return result("moved", msg, [new], _open_question(cit.path, lines, new))
    if firsts:
        places = ", ".join(map(str, firsts))
        return result("ambiguous", f"quote not at the cited place but on lines {places}", firsts)
    if not in_range:
        msg = f"the file has {len(lines)} lines, the citation points past its end"
        return result("mismatch", msg + ", and the quote is nowhere in it", [])
    msg = "quote not found in the file, not even ignoring emphasis, backticks and whitespace"
    return result("mismatch", msg, [])
