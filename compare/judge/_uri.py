"""Judging a root's URI on the raw string the client sent.

pydantic's URL types normalise (they would quietly encode a space or drop a fragment), so the
judgement here works on the string as it came off the wire, after JSON unescaping only. The
workspace folder the harness makes (``web #staging é``) has a space, a ``#`` and a non-ASCII
letter, so the common mistakes each show.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote_to_bytes

#: Characters RFC 3986 allows raw in a path (unreserved, sub-delims, ':', '@', '/', '%').
_PATH_OK = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*")
_PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")

#: Outcomes, worst first: when several apply, the first one found in this order is reported.
OUTCOMES = (
    "not-file",
    "hash-unencoded",
    "query",
    "host-authority",
    "relative",
    "wrong-path",
    "space-unencoded",
    "invalid-uri",
    "non-ascii-raw",
    "localhost-authority",
    "no-authority",
    "encoded",
)


def _same_path(decoded: str, expected: str) -> bool:
    want = {expected.rstrip("/"), os.path.realpath(expected).rstrip("/")}
    return decoded.rstrip("/") in want or (decoded == "/" and "/" in {expected})


def judge_file_uri(raw: str, expected: str) -> tuple[str, str]:
    """Classify ``raw`` against the folder ``expected``: (outcome, one-line explanation)."""
    if raw[:5].lower() != "file:":
        return "not-file", f"scheme of {raw!r} is not file"
    rest = raw[5:]
    if rest.startswith("//"):
        cut = rest.find("/", 2)
        authority = rest[2:] if cut < 0 else rest[2:cut]
        path_part = "" if cut < 0 else rest[cut:]
        has_authority = True
    else:
        authority, path_part, has_authority = "", rest, False
    fragment = None
    if "#" in path_part:
        path_part, fragment = path_part.split("#", 1)
    query = None
    if "?" in path_part:
        path_part, query = path_part.split("?", 1)
    try:
        decoded = unquote_to_bytes(path_part).decode("utf-8")
        bad_utf8 = False
    except UnicodeError:  # escapes that are not UTF-8, or a lone surrogate ("\ud800") sent raw
        decoded, bad_utf8 = "", True
    if fragment is not None:
        # Only a '#' that cuts *this* folder's path is the encoding mistake; a URI naming
        # another folder stays "wrong-path", so a missing root is not reported as misencoded.
        try:
            joined = unquote_to_bytes(f"{path_part}#{fragment}").decode("utf-8")
        except UnicodeError:
            joined = ""
        if _same_path(joined, expected) or _same_path(decoded, expected):
            return "hash-unencoded", f"a raw '#' cuts the path: a reader sees {decoded!r}"
        return "wrong-path", f"decodes to {joined!r} (with a raw '#'), expected {expected!r}"
    if query is not None:
        return "query", f"query part {query!r}"
    if has_authority and authority and authority.lower() != "localhost":
        return "host-authority", f"authority {authority!r} names a host"
    if not path_part.startswith("/"):
        return "relative", f"path {path_part!r} is not absolute"
    if bad_utf8 or _PCT.search(path_part):
        return "invalid-uri", "a '%' that is not an escape, or a path that is not UTF-8"
    if not _same_path(decoded, expected):
        return "wrong-path", f"decodes to {decoded!r}, expected {expected!r}"
    if " " in path_part:
        return "space-unencoded", "a raw space in the path"
    ascii_part = "".join(ch for ch in path_part if ord(ch) < 128)
    if not _PATH_OK.fullmatch(ascii_part):
        return "invalid-uri", "characters a URI path cannot hold raw"
    if any(ord(ch) >= 128 for ch in path_part):
        return "non-ascii-raw", "non-ASCII letters sent raw"
    if has_authority and authority:
        return "localhost-authority", "file://localhost/ form"
    if not has_authority:
        return "no-authority", "file:/path form without //"
    return "encoded", "decodes to exactly the workspace path"


def rank(outcome: str) -> int:
    """Lower is worse; used to pick the best-judged root among several."""
    return OUTCOMES.index(outcome)
