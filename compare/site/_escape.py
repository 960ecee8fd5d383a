"""Escaping untrusted text for pages that are Markdown first and HTML in the end.

Transcripts, ``clientInfo``, root names and URIs come from the clients we test, so any of them
may hold ``<script>``, a ``|`` that would split a table row, backticks, ``[x](javascript:…)``
or text that looks like a template. Python-Markdown turns punctuation into markup and passes
raw HTML through, so escaping for HTML alone is not enough, and escaping for Markdown alone
(backslashes) does not cover HTML. We therefore write every ASCII punctuation character that
either language gives meaning to as a numeric character reference: the Markdown parser sees
no syntax in it, the browser shows the character as text.

Trusted fragments we build ourselves (links, code spans, tables) are wrapped in :class:`Md`;
the template environment escapes every value that is *not* an ``Md`` (see ``_templates``), so
forgetting a filter shows text, it never injects markup.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote, urlsplit

# Every character with a meaning in Markdown (inline or at line start), in HTML, in the
# attr_list / admonition extensions, or in text that looks like Jinja syntax.
_SPECIAL = set("&<>\"'`*_[](){}#+-.!|\\~:=$%@^")
# Control characters and line separators would break a line or a table row; a lone surrogate
# (what a JSON ``"\ud800"`` escape from a client decodes to) cannot be written as UTF-8, so a
# page holding one could not be saved. Each is shown as its ``\uXXXX`` escape instead.
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\ud800-\udfff]")
#: Each special character's numeric reference, as a ``str.translate`` table: a full render
#: escapes tens of millions of characters, and one C-level pass is what keeps that cheap.
_ESCAPED = {ord(ch): f"&#{ord(ch)};" for ch in _SPECIAL}


class Md(str):
    """A Markdown fragment we built ourselves from escaped parts; emitted as is."""

    __slots__ = ()


def _visible_control(match: re.Match[str]) -> str:
    """Show a control character as an escape sequence instead of letting it break a line."""
    return f"\\u{ord(match.group(0)):04x}"


def esc(value: object) -> Md:
    """Untrusted text → Markdown that renders as exactly that text, on one line."""
    if isinstance(value, Md):
        return value
    if type(value) is str:
        return _esc_text(value)
    return _esc_text("" if value is None else str(value))


@lru_cache(maxsize=1 << 16)
def _esc_text(text: str) -> Md:
    """:func:`esc` of a plain string, remembered: a render escapes the same names, ids and
    words hundreds of thousands of times (a tenth of a summary page's time)."""
    return Md(_CONTROL.sub(_visible_control, text).translate(_ESCAPED))


#: Where an identifier may break across lines: after one of its separators, never inside a
#: word (``read_file`` wraps as ``read_`` / ``file``, not ``read_fil`` / ``e``).
_BREAK_AFTER = set("_-/.:~")
#: ``_ESCAPED`` with a ``<wbr>`` after each separator.
_BREAKING = _ESCAPED | {ord(ch): _ESCAPED.get(ord(ch), ch) + "<wbr>" for ch in _BREAK_AFTER}


def code(value: object) -> Md:
    """Untrusted text as an inline code span (``<code>``, characters escaped inside), with a
    line-break opportunity (``<wbr>``) after each separator of a long identifier."""
    if isinstance(value, Md):  # already escaped: no break points to add
        return Md(f"<code>{value}</code>")
    text = "" if value is None else str(value)
    if len(text) <= 12:
        return Md(f"<code>{esc(text)}</code>")
    # A control character becomes its escape first, which holds no separator.
    return Md(f"<code>{_CONTROL.sub(_visible_control, text).translate(_BREAKING)}</code>")


def safe_url(url: str) -> str | None:
    """An http(s) URL with characters a Markdown link target cannot hold percent-encoded.

    Anything else (``javascript:``, ``data:``, relative paths from data files) is refused, so a
    tampered data file cannot turn a citation into an active link.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return quote(url, safe="/:#@?&=%+-._~")


def link(text: object, target: str) -> Md:
    """A link whose text is escaped; ``target`` is an http(s) URL or one of our own page paths."""
    url = safe_url(target) if "://" in target else _page_target(target)
    if url is None:
        return esc(text)
    return Md(f"[{esc(text)}]({url})")


def _page_target(target: str) -> str | None:
    """Our own relative page links: only the characters our slugs and anchors use."""
    return target if re.fullmatch(r"[A-Za-z0-9._/#~-]+", target) else None


def fence(lines: list[str], lang: str = "text") -> Md:
    """A fenced code block showing untrusted lines verbatim (control characters made visible).

    The fence is longer than any run of backticks in the content, so no line can close it;
    the code renderer escapes HTML inside fences itself.
    """
    shown = [_CONTROL.sub(_visible_control, line) for line in lines]
    longest = max((len(run) for line in shown for run in re.findall(r"`+", line)), default=0)
    bar = "`" * max(3, longest + 1)
    return Md("\n".join([f"{bar}{lang}", *shown, bar]))


@lru_cache(maxsize=1 << 16)
def slug(value: str) -> str:
    """A file-name and anchor-safe slug: lower case letters, digits, dots and dashes
    (remembered, as :func:`esc` is)."""
    out = re.sub(r"[^a-z0-9.]+", "-", value.lower()).strip("-.")
    return out or "x"


_SPEC_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\s]+\)")
_SPEC_MARK = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`")


def spec_quote(text: str) -> Md:
    """A quoted spec sentence as the spec's page shows it to a reader: its line breaks as
    spaces, its bold as bold, its links as their text, its code spans as code; every piece of
    its text escaped as :func:`esc` does. The citation beside it still finds the raw text."""
    flat = _SPEC_LINK.sub(r"\1", " ".join(text.split()))
    out: list[str] = []
    at = 0
    for m in _SPEC_MARK.finditer(flat):
        out.append(esc(flat[at : m.start()]))
        bold, span = m.group(1), m.group(2)
        out.append(f"<strong>{esc(bold)}</strong>" if bold is not None else code(span))
        at = m.end()
    out.append(esc(flat[at:]))
    return Md("".join(out))
