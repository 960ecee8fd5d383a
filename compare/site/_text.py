"""Reader text: the facts of the machine that built the site kept out of page prose.

Messages from earlier stages are written for whoever runs the pipeline ("no clone of
dezren39/nix at /tmp/…/.cache/repos/… (and no network)"); a reader of the published site
needs what they say about the implementation, not where a cache lived or which registries a
build machine could reach. The stages keep their messages (the command line shows them);
the pages pass them through :func:`reader_text` first. Wire logs and quoted evidence never
go through it: evidence is shown as recorded.
"""

from __future__ import annotations

import re

#: (pattern, replacement), applied in order; each names what it removes.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # A location on the build machine: "at /tmp/x/.cache/repos/y", "in /home/…", "under /work/…".
    (re.compile(r"\s+(?:at|in|under|from)\s+(?:/|~/)[^\s;,)]*"), ""),
    # A bare absolute path left over.
    (re.compile(r"(?<![\w:/])/(?:tmp|home|root|work|var|usr|opt|srv)/[^\s;,)]*"), "…"),
    # What the build machine could reach.
    (re.compile(r"\s*\((?:and )?no network\)"), ""),
    (re.compile(r"\bno clone of\b"), "no copy of the source of"),
    (re.compile(r"\bthese machines reach\b"), "this comparison installs from"),
    (re.compile(r"\bnot reachable here\b"), "not one this comparison installs from"),
)


def reader_text(text: str) -> str:
    """``text`` without build paths and machine facts (wording otherwise kept)."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


#: Diff sentences that change the schema's text but not a message on the wire: the JSON-RPC
#: envelope (``id``, ``jsonrpc``) written into a definition, a property now a ``$ref`` to a
#: named definition, and the fields that moved into it with that ``$ref``.
_SCHEMA_ONLY = (
    re.compile(r"\.(?:id|jsonrpc) (?:appears|is gone) in "),
    re.compile(r"^ref: "),
)
_MOVED = re.compile(r"\.params\._meta(?:\.\w+)* (?:is gone|appears) in ")


def schema_only(changes: list[str]) -> bool:
    """Whether every one of a row's changes at a revision leaves the wire as it was."""
    if not changes:
        return False
    has_ref = any(c.startswith("ref: ") for c in changes)
    return all(
        any(p.search(c) for p in _SCHEMA_ONLY) or (has_ref and _MOVED.search(c)) for c in changes
    )


def schema_only_change(change: dict[str, object], changes: list[dict[str, object]]) -> bool:
    """One diff change (``{item, change, detail}``) of a revision, read with the others of that
    revision: schema only when its sentence is, or when the item sits under a property whose
    ``$ref`` changed in the same revision (its fields moved into the named definition)."""
    detail = str(change.get("detail") or "")
    if any(p.search(detail) for p in _SCHEMA_ONLY):
        return True
    item = str(change.get("item") or "")
    moved_under = {
        str(c.get("item")) for c in changes if c.get("change") == "ref" and c.get("item")
    }
    return _MOVED.search(detail) is not None and any(
        item.startswith(parent + ".") for parent in moved_under
    )
