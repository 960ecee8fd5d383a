"""Verify many citations against their sources, reading each cited file once.

The same cache answers whether a quote is a whole clause (:meth:`SourceCache.clause`), so a
lint that asks both questions reads each file once too.

A run checks dozens of citations into a handful of files (the roots pages, a schema, a few
installed packages); opening a source is the slow part (a pinned file is re-hashed, a package
folder is searched), so the opened source is kept per file and only the link, which carries
the cited lines, is made again for each citation.
"""

from __future__ import annotations

from compare.cite._clause import Clause, whole_clause
from compare.cite._parse import Citation
from compare.cite._sources import Source, open_source
from compare.cite._verify import Result, verify


class SourceCache:
    """Read each cited file once per run, whatever number of citations point into it."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], Source] = {}

    def verify(self, cit: Citation) -> Result:
        key = (cit.kind, cit.source)
        if key not in self._seen:
            self._seen[key] = open_source(cit)
        return verify(cit, _with_link(self._seen[key], cit))

    def clause(self, cit: Citation) -> Clause | None:
        """Whether the quote is a whole clause of its cited prose (``compare.cite._clause``).

        None when that cannot be judged: no quote, a source that is not markdown prose (a
        schema, code), or one that cannot be read here (the verifier reports that itself).
        """
        if cit.quote is None or not cit.path.endswith((".md", ".mdx")):
            return None
        key = (cit.kind, cit.source)
        if key not in self._seen:
            self._seen[key] = open_source(cit)
        lines = self._seen[key].lines
        if lines is None:
            return None
        return whole_clause(lines, cit.start, cit.end, cit.quote)


def _with_link(src: Source, cit: Citation) -> Source:
    if src.link is None or cit.kind == "pypi":  # a PyPI page has no line anchors
        return src
    if src.link.startswith("https://pkg.go.dev/"):  # nor has a Go package page
        return src
    base = src.link.split("#", 1)[0]
    anchor = f"#L{cit.start}" if cit.start == cit.end else f"#L{cit.start}-L{cit.end}"
    return Source(src.lines, src.provenance, base + anchor, src.reason, src.offline)
