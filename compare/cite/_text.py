"""How a quote is compared with the text it cites: one rule, shared by the verifier (is the
quote there?) and the clause check (is it a whole sentence?), so the two cannot disagree."""

from __future__ import annotations

import re

_WS = re.compile(r"\s+")
_EMPHASIS = re.compile(r"[*_]")
#: A markdown link, inline or by reference: compared as its text.
LINK = re.compile(r"\[([^\[\]\n]*)\](?:\([^()\s]*\)|\[[^\[\]\n]*\])")


def normalise(text: str) -> str:
    """Read a markdown link as its text, drop emphasis (``*``, ``_``) and backticks, and
    collapse whitespace (a line break is a space)."""
    return _WS.sub(" ", _EMPHASIS.sub("", LINK.sub(r"\1", text).replace("`", ""))).strip()


def joined(lines: list[str]) -> str:
    """Lines as one text: each stripped, the blank ones left out, joined with single spaces.

    A quote of a sentence that wraps over lines is written on one line; against this text it
    matches exactly, so ``path:L1-L2 “…”`` is verified, not merely verified once normalised.
    """
    return " ".join(line.strip() for line in lines if line.strip())
