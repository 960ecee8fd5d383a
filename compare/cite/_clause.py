"""Whether a quote holds a whole clause of the prose it is taken from, and if not, which one.

A fail or non-strict verdict shows its quote as the spec's reason. A quote cut where the
source wraps its line ("… write anything to the server's `stdin` that is not a valid MCP")
drops the words that make the behaviour a breach, and a lead-in alone ("Both parties
**MUST**:") says nothing of the behaviour at all. The rule, so a machine can check it:

- The source is read as prose blocks: a paragraph, a list item with its continuation lines,
  a heading. Code fences, table rows and lines of markup only (``<Note>``) are not prose.
- A **sentence** runs from the start of a block, or from just after a sentence end, to the
  next sentence end. A sentence ends at ``.``, ``!`` or ``?`` followed by a space, unless the
  next word starts in lowercase (``e.g. a folder``) or the dot closes an abbreviation
  (``e.g.``, ``i.e.``, ``etc.``, ``vs.``, ``cf.``); and at the end of its block: a list item's
  end ends its sentence, and a paragraph ending in ``:`` is a lead-in.
- A quote is **whole** when it runs from a sentence start to a sentence end inside the cited
  lines (its final ``.`` or ``:`` may be left off). It is compared as the verifier compares
  (:func:`compare.cite.normalise`): markdown emphasis and backticks dropped, a link read as
  its text, line breaks and runs of whitespace as one space.
- A quote whose last sentence is a **lead-in** (a block ending in ``:`` followed by a list)
  must run on through at least one whole item of that list: the requirement is the lead-in
  and its items together, so the cited range covers both.

A refused quote gets its fix: the whole sentence as the source spells it (lines joined with
single spaces, links read as their text), with the line range to cite.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from compare.cite._text import LINK, normalise

#: RFC 2119 keywords that make a sentence a requirement a fail or non-strict can rest on.
MUST = re.compile(r"\b(MUST|SHALL|REQUIRED)\b")
SHOULD = re.compile(r"\b(SHOULD|RECOMMENDED)\b")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_ITEM = re.compile(r"^(?P<indent>\s*)(?P<marker>[-*+]|\d{1,9}[.)])\s+(?P<text>\S.*)$")
_MARKUP = re.compile(r"^\s*(</?[A-Za-z][^>]*>\s*)+$|^\s*\||^\s*---\s*$|^\s*\[[^\]]+\]:\s")
_DROPPED = frozenset("*_`")
_ABBREVIATIONS = frozenset({"e.g", "i.e", "eg", "ie", "etc", "vs", "cf"})
#: What may close a sentence after its terminator: emphasis, code, quotes, brackets.
_CLOSERS = frozenset("*_`\"'”’)]")
_TERMINATORS = ".!?"


@dataclass(frozen=True)
class _Block:
    """One prose block: its text (stripped lines joined with single spaces) and, for each
    character, its source line and whether comparison ignores it."""

    kind: str  # "paragraph", "item" or "heading"
    first: int
    last: int
    text: str
    owners: tuple[int, ...]
    ignored: frozenset[int]
    body: int  # where the sentence starts: after a list item's marker
    ends: frozenset[int] = frozenset()  # offsets just after each sentence's end
    starts: frozenset[int] = frozenset()  # offsets of each sentence's first compared character


def _ignored(text: str) -> frozenset[int]:
    """Offsets the comparison skips: emphasis, backticks, and a link's brackets and target."""
    out = {i for i, ch in enumerate(text) if ch in _DROPPED}
    for link in LINK.finditer(text):
        out.add(link.start())
        out.update(range(link.end(1), link.end()))
    return frozenset(out)


def _block(kind: str, lines: list[tuple[int, str]]) -> _Block:
    text, owners = "", []
    for number, line in lines:
        piece = line.strip()
        if text:
            text += " "
            owners.append(number)
        text += piece
        owners += [number] * len(piece)
    found = _ITEM.match(text) if kind == "item" else None
    body = found.start("text") if found else 0
    block = _Block(kind, lines[0][0], lines[-1][0], text, tuple(owners), _ignored(text), body)
    ends = _ends(block)
    return replace(block, ends=ends, starts=_starts(block, ends))


@lru_cache(maxsize=64)
def _blocks(lines: tuple[str, ...]) -> tuple[_Block, ...]:
    """The prose blocks of a markdown file, in order."""
    blocks: list[_Block] = []
    current: list[tuple[int, str]] = []
    kind = "paragraph"
    fenced = False

    def close() -> None:
        if current:
            blocks.append(_block(kind, current))
            current.clear()

    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            close()
            fenced = not fenced
        elif fenced:
            continue
        elif not line.strip() or _MARKUP.match(line):
            close()
        elif _HEADING.match(line):
            close()
            blocks.append(_block("heading", [(number, line)]))
        elif _ITEM.match(line):
            close()
            kind = "item"
            current.append((number, line))
        else:
            if not current:
                kind = "paragraph"
            current.append((number, line))  # a line after an item goes on with the item
    close()
    return tuple(blocks)


def _after_closers(block: _Block, at: int) -> int:
    """The offset after the closers and uncompared characters (a link's target) at ``at``."""
    while at < len(block.text) and (block.text[at] in _CLOSERS or at in block.ignored):
        at += 1
    return at


def _word_before(text: str, at: int) -> str:
    start = at
    while start > 0 and (text[start - 1].isalpha() or text[start - 1] == "."):
        start -= 1
    return text[start:at].lower()


def _ends(block: _Block) -> frozenset[int]:
    """Offsets just after each sentence's end (terminator and closers included)."""
    text = block.text
    ends = {len(text)}
    for i, ch in enumerate(text):
        if ch not in _TERMINATORS or i < block.body:
            continue
        after = _after_closers(block, i + 1)
        if after < len(text) and text[after] != " ":
            continue  # 2.0, example.com, a.b
        if ch == "." and _word_before(text, i) in _ABBREVIATIONS:
            continue
        if text[after + 1 : after + 2].islower():
            continue  # "e.g. a folder": a lowercase word carries the sentence on
        ends.add(after)
    return frozenset(ends)


def _starts(block: _Block, ends: frozenset[int]) -> frozenset[int]:
    """Offsets of each sentence's first compared character."""
    text = block.text
    out = set()
    for at in {0, block.body} | {end + 1 for end in ends if end < len(text)}:
        while at < len(text) and (at in block.ignored or text[at] == " "):
            at += 1
        out.add(at)
    return frozenset(out)


@dataclass(frozen=True)
class _Stream:
    """Blocks as one compared text: each character maps back to (block index, offset)."""

    text: str
    back: tuple[tuple[int, int], ...]
    blocks: tuple[_Block, ...]

    def starts(self, i: int) -> bool:
        b, offset = self.back[i]
        return offset in self.blocks[b].starts

    def ends(self, i: int) -> bool:
        """Whether a quote whose last character is ``text[i]`` ends a sentence (its final
        ``.``, ``!``, ``?`` or ``:`` may be left off)."""
        b, offset = self.back[i]
        block = self.blocks[b]
        after = _after_closers(block, offset + 1)
        if after in block.ends:
            return True
        left_off = after < len(block.text) and block.text[after] in _TERMINATORS + ":"
        return left_off and _after_closers(block, after + 1) in block.ends

    def last(self, i: int) -> bool:
        """Whether ``text[i]`` is the last compared character of its sentence."""
        b, offset = self.back[i]
        return _after_closers(self.blocks[b], offset + 1) in self.blocks[b].ends

    def at_block_end(self, i: int) -> bool:
        b, offset = self.back[i]
        block = self.blocks[b]
        rest = block.text[offset + 1 :]
        return all(ch in _CLOSERS or ch in _TERMINATORS + ": " for ch in rest)

    def line(self, i: int) -> int:
        b, offset = self.back[i]
        return self.blocks[b].owners[offset]


def _stream(blocks: tuple[_Block, ...]) -> _Stream:
    out: list[str] = []
    back: list[tuple[int, int]] = []
    for b, block in enumerate(blocks):
        if out:
            out.append(" ")
            back.append(back[-1])
        for offset, ch in enumerate(block.text):
            if offset in block.ignored:
                continue
            if ch.isspace():
                if not out or out[-1] == " ":
                    continue
                ch = " "
            out.append(ch)
            back.append((b, offset))
    return _Stream("".join(out), tuple(back), blocks)


def normative(quote: str) -> bool:
    """Whether ``quote`` states a requirement (holds a MUST or SHOULD keyword, emphasis or
    not)."""
    plain = re.sub(r"[*_`]", "", quote)
    return bool(MUST.search(plain) or SHOULD.search(plain))


@dataclass(frozen=True)
class Clause:
    """The verdict on one quote: None when whole, else why not and the whole sentence."""

    problem: str | None
    sentence: str | None = None
    first: int | None = None
    last: int | None = None

    @property
    def lines(self) -> str | None:
        """``L1-L2`` (or ``L``) for the fix's citation."""
        if self.first is None or self.last is None:
            return None
        return str(self.first) if self.first == self.last else f"{self.first}-{self.last}"


def _list_after(every: tuple[_Block, ...], block: _Block) -> list[_Block]:
    """The list items that follow ``block`` directly (a lead-in's list), in order."""
    index = every.index(block)
    items: list[_Block] = []
    for nxt in every[index + 1 :]:
        previous = items[-1] if items else block
        if nxt.kind != "item" or nxt.first - previous.last > 2:
            break
        items.append(nxt)
    return items


def _lead_in(stream: _Stream, every: tuple[_Block, ...], i: int) -> list[_Block]:
    """The items of the list ``text[i]``'s sentence leads into; [] when it is no lead-in."""
    block = stream.blocks[stream.back[i][0]]
    if not stream.at_block_end(i) or not block.text.rstrip("*_` ").endswith(":"):
        return []
    return _list_after(every, block)


def _spelled(block: _Block, start: int, end: int) -> str:
    """The source text of ``block.text[start:end]``, links read as their text."""
    return LINK.sub(r"\1", block.text[start:end])


def _whole_text(stream: _Stream, a: int, z: int, through: list[_Block]) -> Clause:
    """The source from stream[a] (with its opening emphasis) to stream[z] (with its
    terminator and closers), or on to the end of the last block of ``through``."""
    ba, oa = stream.back[a]
    first = stream.blocks[ba]
    while oa > first.body and (first.text[oa - 1] in _DROPPED or oa - 1 in first.ignored):
        oa -= 1
    bz, oz = stream.back[z]
    stop = _after_closers(stream.blocks[bz], oz + 1)
    if through:
        bz, stop = stream.blocks.index(through[-1]), len(through[-1].text)
    parts = []
    for b in range(ba, bz + 1):
        block = stream.blocks[b]
        parts.append(_spelled(block, oa if b == ba else 0, stop if b == bz else len(block.text)))
    last = stream.blocks[bz]
    return Clause(None, " ".join(parts), first.owners[oa], last.owners[max(stop - 1, 0)])


def _widen(stream: _Stream, a: int, z: int) -> tuple[int, int]:
    """The smallest stretch of whole sentences that holds stream[a..z]."""
    while a > 0 and not stream.starts(a):
        a -= 1
    while z < len(stream.text) - 1 and not stream.last(z):
        z += 1
    return a, z


def whole_clause(lines: list[str], start: int, end: int, quote: str) -> Clause:
    """Whether ``quote`` is a whole clause of ``lines[start..end]`` (1-based, inclusive).

    A quote that is not in the cited lines is not judged here (``Clause(None)``): where a
    quote is, is the verifier's question (``verify`` says moved or mismatch).
    """
    every = _blocks(tuple(lines))
    wanted = normalise(quote)
    cited = tuple(b for b in every if b.last >= start and b.first <= end)
    if not wanted or not cited:
        here = normalise(" ".join(lines[start - 1 : end]))
        if wanted and wanted in here:  # found there, but in code, a table or markup
            return Clause("the cited lines hold no prose (a code block, a table or markup)")
        return Clause(None)  # not there at all: the verifier's question
    # the blocks after the cited ones, so a fix can run on into a lead-in's list
    following = _list_after(every, cited[-1])
    stream = _stream(cited + tuple(following))
    places: list[tuple[int, int]] = []
    running_on: list[tuple[int, int]] = []
    at = stream.text.find(wanted)
    while at != -1:
        z = at + len(wanted) - 1
        if start <= stream.line(at) <= end:
            (places if stream.line(z) <= end else running_on).append((at, z))
        at = stream.text.find(wanted, at + 1)
    if not places and not running_on:
        return Clause(None)
    for a, z in places:
        if stream.starts(a) and stream.ends(z) and not _lead_in(stream, every, z):
            return Clause(None)
    a, z = (places or running_on)[0]
    whole = stream.starts(a) and stream.ends(z) and not _lead_in(stream, every, z)
    if not places and whole:
        why = f"the quote runs on past the cited lines, to line {stream.line(z)}"
        fix = _whole_text(stream, a, z, [])
        return Clause(why, fix.sentence, fix.first, fix.last)
    if stream.starts(a) and stream.ends(z):
        why = "the quote is a lead-in (it ends in ':' before a list) without the item it governs"
    elif stream.starts(a):
        why = "the quote stops before the end of its sentence"
    elif stream.ends(z):
        why = "the quote starts inside its sentence"
    else:
        why = "the quote starts and stops inside its sentence"
    a, z = _widen(stream, a, z)
    items = _lead_in(stream, every, z)
    if items and not why.startswith("the quote is a lead-in"):
        why += ", which is a lead-in to a list"
    fix = _whole_text(stream, a, z, items)
    return Clause(why, fix.sentence, fix.first, fix.last)
