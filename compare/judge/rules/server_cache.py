"""The caching hints a 2026-07-28 server puts on its cacheable results.

From 2026-07-28 a complete result of server/discover, the four list requests and
resources/read carries ``ttlMs`` (how long it may be reused, an integer of milliseconds, at
least 0) and ``cacheScope`` (``public`` or ``private``), and every page of one list carries
the same scope. What a client caches, and whether a shared cache may hand one user's list to
another, rests on these two members, so they are read here on the raw result, page by page.

- ``server-cache-hints``: the answer of step ``step`` (every page of it, for a ``paginate``
  step): every page hinted, with one scope; a page without a hint; a hint of the wrong kind;
  pages that disagree on the scope. ``pages: several`` asks only about the scope across pages,
  so a list answered in one page reads ``one-page`` (nothing to compare).
"""

from __future__ import annotations

import json
from typing import Any

from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev
from compare.judge.rules.server_generic import NO_VALUE
from compare.judge.rules.server_lists import _UNANSWERED, _gated, _read_pages

#: The values cacheScope may take (the 2026-07-28 schema's CacheableResult).
_SCOPES = ("public", "private")
_OWN = ("hinted", "one-page", "missing", "bad-ttl", "bad-scope", "scope-varies", "no-tool",
        NO_VALUE, *_UNANSWERED)  # fmt: skip


def _fault(result: dict[str, Any]) -> tuple[str, str] | None:
    """What is wrong with one page's hints (``missing``, ``bad-ttl``, ``bad-scope``) and a
    sentence, or None."""
    absent = [m for m in ("ttlMs", "cacheScope") if m not in result]
    if absent:
        return "missing", f"no {' and no '.join(absent)}"
    ttl, scope = result["ttlMs"], result["cacheScope"]
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        return "bad-ttl", f"ttlMs {json.dumps(ttl)}: not a whole number of milliseconds >= 0"
    if scope not in _SCOPES:
        return "bad-scope", f"cacheScope {json.dumps(scope)}: neither public nor private"
    return None


@_gated(
    "server-cache-hints",
    _OWN,
    step=Param("label", "the step whose answer is read: one request, or every page of a "
               "paginate step", required=True),
    pages=Param("text", "several: judge only the scope across pages, and read a list "
                "answered in one page as one-page"),
)  # fmt: skip
def _server_cache_hints(ctx: Context) -> Outcome:
    """Whether each page of an answer carries ttlMs and cacheScope of the right kinds, and one
    scope on every page; the values are shown, since a reader cares which they are."""
    pages = _read_pages(ctx)
    if isinstance(pages, Outcome):
        return pages
    lines, results = pages
    evidence = _ev(*lines[:5])
    several = ctx.params.get("pages") == "several"
    if several and len(results) == 1:
        return Outcome("one-page", "the answer came in one page: no second scope to compare",
                       evidence)  # fmt: skip
    for n, result in enumerate(results, 1):
        fault = _fault(result)
        if fault is not None:
            where = f"page {n} of {len(results)}" if len(results) > 1 else "the result"
            return Outcome(fault[0], f"{where}: {fault[1]}", _ev(lines[n - 1]))
    scopes = [r["cacheScope"] for r in results]
    shown = ", ".join(f"ttlMs {r['ttlMs']} {r['cacheScope']}" for r in results[:5])
    counted = f"{len(results)} pages" if len(results) > 1 else "one page"
    if len(set(scopes)) > 1:
        return Outcome("scope-varies", f"{counted} with different scopes: {shown}", evidence)
    return Outcome("hinted", f"{counted}: {shown}", evidence)
