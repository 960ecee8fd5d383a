"""Pipeline stage `cite`: verify ``path:line “quote”`` citation strings against pinned sources.

A pure verifier: strings in, results out. It parses (:func:`parse_citation`), verifies one
(:func:`verify`) or many with a shared source cache (:func:`verify_refs`, :class:`SourceCache`),
looks one up for a reviewer (:func:`lookup`), says whether a quote holds a whole clause of
its prose (:func:`whole_clause`, :meth:`SourceCache.clause`: what a fail or non-strict must
quote), and fixes one moved citation at a given place in
its file (:func:`fix_one`). It walks no data files: the stage that owns a file hands over its
citations (``compare.rows`` for the area files, and it writes ``build/citations.json``;
``compare.judge._refs.scenario_refs`` for the scenarios). It reads only pinned spec files
(through ``compare.pin``), installed packages and local clones.
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.cite._cache import SourceCache
    from compare.cite._clause import MUST, SHOULD, Clause, normative, whole_clause
    from compare.cite._fix import Edit, apply_edits, fix_one, relocated
    from compare.cite._lookup import Lookup, lookup
    from compare.cite._parse import Citation, parse_citation
    from compare.cite._refs import RefResult, standalone_problem, verify_refs
    from compare.cite._sources import Source, clone_dir, go_link, open_source, split_lines
    from compare.cite._text import joined, normalise
    from compare.cite._verify import STATUSES, Result, Status, verify

__all__ = [
    "MUST",
    "SHOULD",
    "STATUSES",
    "Citation",
    "Clause",
    "Edit",
    "Lookup",
    "RefResult",
    "Result",
    "Source",
    "SourceCache",
    "Status",
    "apply_edits",
    "clone_dir",
    "fix_one",
    "go_link",
    "joined",
    "lookup",
    "normalise",
    "normative",
    "open_source",
    "parse_citation",
    "relocated",
    "split_lines",
    "standalone_problem",
    "verify",
    "verify_refs",
    "whole_clause",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
