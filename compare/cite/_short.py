"""Short spec paths in ``cite REF``: what reviewers paste, resolved to one pinned path.

Reviewers copy locations from rendered pages and diffs, where the path is often cut short:
``2025-11-25/client/roots.mdx:78`` for ``docs/specification/2025-11-25/client/roots.mdx:78``.
A short path is read as the trailing folders of a pinned path. It must name exactly one
pinned file: two candidates would make the lookup a guess, so that is an error listing them.
Only the lookup command resolves short paths; data files keep the full path, which is what
``cite --check`` and ``cite --fix`` read and rewrite.
"""

from __future__ import annotations

import re

from compare._errors import CompareError

_LOCATION = re.compile(
    r"^(?P<source>\S.*?)(?P<lines>:[0-9]+(?:-[0-9]+)?)(?P<rest>\s.*)?$", re.DOTALL
)
_ELSEWHERE = ("npm:", "pypi:", "crate:", "gh:", "go:", "maven:")
#: Quotes that only say "something was elided here": a lookup treats them as no quote.
PLACEHOLDERS = frozenset({"…", "...", "-"})


def _pinned_paths() -> list[str]:
    from compare.pin import load_pins

    return [f.path for f in load_pins().files]


def candidates(short: str, pinned: list[str]) -> list[str]:
    """Pinned paths that are ``short`` or end with ``/short`` (whole folder names only)."""
    tail = short.strip("/")
    return sorted(p for p in pinned if p == tail or p.endswith("/" + tail))


def expand(ref: str, pinned: list[str] | None = None) -> str:
    """``ref`` with a short spec path replaced by the one pinned path it names.

    A full pinned path, a package or repository source, and anything that is not a location
    come back unchanged (the parser then says what is wrong with them). A short path that
    matches several pinned files, or none while not looking like a spec path, is an error.
    """
    text = ref.strip()
    match = _LOCATION.match(text)
    if not match or match["source"].startswith(_ELSEWHERE):
        return text
    source = match["source"]
    paths = _pinned_paths() if pinned is None else pinned
    if source in paths:
        return text
    found = candidates(source, paths)
    if len(found) == 1:
        return found[0] + match["lines"] + (match["rest"] or "")
    if found:
        listed = "\n  ".join(found)
        raise CompareError(
            f"{source!r} names {len(found)} pinned files:\n  {listed}",
            "add leading folders (the revision, e.g. 2025-11-25/client/roots.mdx) until "
            "only one pinned file ends with it",
        )
    if source.startswith(("schema/", "docs/", "seps/")):
        return text  # a full spec path that is not pinned: the source says so when read
    raise CompareError(
        f"no pinned spec file is or ends with {source!r}",
        "give the path inside the spec repository (docs/specification/REV/…, schema/REV/…, "
        "seps/…) or a tail of it; `mcp-compare pin add-file PATH` pins another file",
    )
