"""The whole comparison as one JSON document (``matrix.json``), and links for citations.

The same dictionary feeds the export and the "what changed" page, so what a tool downloads and
what a reader sees cannot disagree. It holds no wall-clock time of its own: rebuilding from the
same inputs gives the same bytes, which is what ``render --check`` and the change page rely on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import jsonschema

from compare import __version__, _atomic, _memo, _paths
from compare._errors import CompareError
from compare.cite import go_link, parse_citation
from compare.rows._implementations import shipped_kinds
from compare.site._cells import Cell
from compare.site._inputs import Citation, SiteData

FORMAT = 2

T = TypeVar("T")


@dataclass(frozen=True)
class CiteTarget:
    """Where a citation points, split for display: the source, the file, the lines, a link."""

    source: str  # "spec @ <commit>", "npm @scope/x@1.2.3", "gh owner/repo @ <commit>"
    file: str
    lines: str
    quote: str
    link: str | None


def cite_target(ref: str, repository: str | None, commit: str | None) -> CiteTarget:
    """Split a ``path:line “quote”`` / ``path:start-end`` reference and link it upstream.

    The reference is read by the verifier's own parser (``compare.cite.parse_citation``), so
    a page splits a citation exactly as ``cite --check`` did; a bare ``path:LINE`` (a check's
    ``cite:``, a diff position) is a place to link, so it is accepted here.
    """
    try:
        cit = parse_citation(ref, bare_line=True)
    except CompareError:
        return CiteTarget("unparsed", ref, "", "", None)
    single = cit.start == cit.end
    lines = str(cit.start) if single else f"{cit.start}-{cit.end}"
    anchor = f"#L{cit.start}" if single else f"#L{cit.start}-L{cit.end}"
    quote = cit.quote or ""
    if cit.kind in ("npm", "pypi"):
        name, ver = cit.package, cit.version
        url = (
            f"https://www.npmjs.com/package/{name}/v/{ver}"
            if cit.kind == "npm"
            else f"https://pypi.org/project/{name}/{ver}/"
        )
        return CiteTarget(f"{cit.kind} {name}@{ver}", cit.path, lines, quote, url)
    if cit.kind == "go":
        module, ver = cit.package or "", cit.version or ""
        url = go_link(module, ver, cit.path, cit.start, cit.end)
        return CiteTarget(f"go {module}@{ver}", cit.path, lines, quote, url)
    if cit.kind == "crate":
        name, ver = cit.package, cit.version
        url = f"https://docs.rs/crate/{name}/{ver}/source/{cit.path}{anchor}"
        return CiteTarget(f"crate {name}@{ver}", cit.path, lines, quote, url)
    if cit.kind == "gh":
        rev = cit.version or ""
        url = f"https://github.com/{cit.package}/blob/{rev}/{cit.path}{anchor}"
        return CiteTarget(f"{cit.package} @ {rev[:12]}", cit.path, lines, quote, url)
    if repository and commit:
        base = repository.removesuffix(".git").rstrip("/")
        url = f"{base}/blob/{commit}/{cit.path}{anchor}"
        return CiteTarget(f"spec @ {commit[:12]}", cit.path, lines, quote, url)
    return CiteTarget("spec (not pinned)", cit.path, lines, quote, None)


def citation_status(data: SiteData, ref: str) -> Citation:
    """The verifier's result for ``ref``; "not checked" when ``cite --check`` has not run."""
    if data.citations is None:
        return Citation(
            ref,
            "not-checked",
            detail="not checked, because build/citations.json "
            "is missing (run mcp-compare cite --check)",
        )
    found = data.citations.get(ref)
    if found is None:
        return Citation(ref, "not-checked", detail="not in build/citations.json")
    return found


def _template_only(data: SiteData, name: str) -> bool:
    """The generic ``command`` and ``server-command`` targets are templates for users' own
    clients and servers, not columns."""
    target = data.targets.get(name) or {}
    template = target.get("kind") == "command" or (target.get("launch") or {}).get("argv") == [
        "{command}"
    ]
    return template and not any(c.target == name for c in data.cells)


def kind_groups() -> dict[str, str]:
    """Target kind → group title, in page order (the implementations registry's ``kinds``)."""
    return {k.kind: k.group for k in shipped_kinds()}


def kind_group(data: SiteData, name: str) -> str:
    """The group an implementation is listed under (by its target's kind; cited ones last)."""
    kind = str((data.targets.get(name) or {}).get("kind") or "")
    if not kind and (data.impl_info.get(name) or {}).get("kind") == "cited":
        kind = "cited"
    return kind_groups().get(kind, "Other")


def implementations(data: SiteData) -> list[str]:
    """Implementations grouped by kind (SDKs, CLI clients, servers, proxies, cited), each group
    in a stable order: targets run or runnable, then the others."""
    seen: dict[str, None] = {}
    for cell in sorted(data.cells, key=lambda c: c.target):
        seen.setdefault(cell.target, None)
    for name in sorted(data.targets):
        seen.setdefault(name, None)
    for name in data.impl_info:
        seen.setdefault(name, None)
    for row in data.rows or []:
        for name in row.status:
            seen.setdefault(name, None)
    names = [name for name in seen if not _template_only(data, name)]
    order = {group: i for i, group in enumerate(dict.fromkeys(kind_groups().values()))}
    return sorted(names, key=lambda n: order.get(kind_group(data, n), len(order)))


def row_columns(data: SiteData) -> list[str]:
    """The implementation columns rows.json computed, in the order of ``implementations``."""
    named = {name for row in data.rows or [] for name in row.status}
    return [name for name in implementations(data) if name in named]


def _cell(cell: Cell) -> dict[str, Any]:
    return {
        "id": cell.slug,
        "target": cell.target,
        "target_version": cell.version,
        "current": cell.current,
        "variant": cell.variant or None,
        "scenario": cell.scenario,
        "revision": cell.revision,
        "verdict": cell.verdict,
        "reason": cell.reason,
        "checks": [{"id": c.id, "verdict": c.verdict} for c in cell.checks],
        "folder": f"results/{cell.rel}",
        "transcript": _recorded(cell, "transcript.jsonl"),
        "page": f"cells/{cell.slug}.html",
        "client_info": cell.data.get("client_info")
        if isinstance(cell.data.get("client_info"), dict)
        else None,
        "started_at": cell.data.get("started_at")
        if isinstance(cell.data.get("started_at"), str)
        else None,
        "plays": _plays(cell),
        "differed": list(cell.differed),
    }


def _plays(cell: Cell) -> list[dict[str, Any]]:
    """Every play of the cell with its verdict and transcript (``compare.play._plays``);
    a cell played once is its own single play, a not-run cell has none."""
    if cell.verdict == "not-run":
        return []
    listed = [(p.number, p.verdict, p.transcript) for p in cell.plays]
    return [
        {"play": number, "verdict": verdict, "transcript": _recorded(cell, transcript)}
        for number, verdict, transcript in listed or [(1, cell.verdict, "transcript.jsonl")]
    ]


def _recorded(cell: Cell, transcript: str) -> str | None:
    """A transcript's path relative to the site root, or None when none was recorded (a
    program that ended before it wrote a line, a cell not run): the export never points at
    a file that is not there (issue 36 item 7)."""
    return f"results/{cell.rel}/{transcript}" if (cell.folder / transcript).is_file() else None


def _package(target: dict[str, Any]) -> dict[str, str] | None:
    pkg = target.get("package")
    if isinstance(pkg, dict):
        return {str(k): str(v) for k, v in pkg.items() if isinstance(v, str | int | float)}
    return None


def build_matrix(data: SiteData) -> dict[str, Any]:
    """The export document (see ``matrix.schema.json``)."""
    impls = []
    for name in implementations(data):
        versions = sorted({c.version for c in data.cells if c.target == name})
        current = next((c.version for c in data.cells if c.target == name and c.current), None)
        impls.append(
            {
                "id": name,
                "kind": "run"
                if versions
                else "cited"
                if (data.impl_info.get(name) or {}).get("kind") == "cited"
                else "not-run",
                "versions": versions,
                "current_version": current,
                "name": str(
                    (data.impl_info.get(name) or data.targets.get(name) or {}).get("name") or name
                ),
                "package": _package(data.targets.get(name, {})),
            }
        )
    found: dict[str, Citation] = {}
    for row in data.rows or []:
        for cit in row.sources:
            found.setdefault(cit.ref, cit)
        for st in row.status.values():
            for cit in st.sources:
                found.setdefault(cit.ref, cit)
    for ref, cit in (data.citations or {}).items():
        found.setdefault(ref, cit)
    citations = []
    for ref, cit in found.items():
        where = cite_target(ref, data.repository, data.commit)
        citations.append(
            {
                "ref": ref,
                "status": cit.status,
                "detail": cit.detail or None,
                "link": cit.link or where.link,
                "source": cit.provenance or where.source,
            }
        )
    rows = [
        {
            "id": row.id,
            "area": row.area,
            "difference": row.difference,
            "labels": row.labels,
            "where": row.where,
            "status": {
                impl: {
                    "state": st.state,
                    "note": st.note or None,
                    "reason": st.reason or None,
                    "cells": st.cells,
                }
                for impl, st in row.status.items()
            },
            "value": row.value or None,
            "effort": row.effort or None,
            "risk": row.risk or None,
            "deprecated_in": sorted(row.deprecated),
            "sources": [c.ref for c in row.sources],
        }
        for row in data.rows or []
    ]
    return {
        "format": FORMAT,
        "generated_by": "mcp-compare export",
        "tool": {"name": "mcp-compare", "version": __version__},
        "measured": ({"from": data.measured[0], "to": data.measured[1]} if data.measured else None),
        "spec": {"repository": data.repository, "commit": data.commit},
        "revisions": [
            {"id": rev, "status": data.revision_status.get(rev) or None} for rev in data.revisions
        ],
        "implementations": impls,
        "areas": [
            {
                "id": area.id,
                "title": area.title,
                "summary": area.summary,
                "rows": [row.id for row in data.rows or [] if row.area == area.id],
            }
            for area in data.areas
        ],
        "rows": rows,
        "cells": [_cell(c) for c in sorted(data.cells, key=lambda c: c.slug)],
        "citations": citations,
        "missing_inputs": [{"input": k, "made_by": v} for k, v in sorted(data.missing.items())],
        "problems": [{"where": p.where, "what": p.what} for p in data.problems],
    }


def matrix_schema() -> dict[str, Any]:
    """The published JSON Schema of ``matrix.json``."""
    text = resources.files("compare.site").joinpath("matrix.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _memo_path() -> Path:
    return _paths.site_dir() / ".work" / "valid-matrix-items"


#: The arrays of a matrix validated item by item, each item remembered once found valid: a
#: run that changed ten cells validates ten cells, not the nine megabytes (seconds, twice
#: per run: render reads the last matrix, export writes the new one).
ITEMISED = ("cells", "rows")


def matrix_error(matrix: object) -> tuple[list[str | int], str] | None:
    """Where ``matrix`` breaks the published schema and how (None when it does not)."""
    schema = matrix_schema()
    if not isinstance(matrix, dict):
        return [], "a matrix is a JSON object"
    shell = {k: ([] if k in ITEMISED and isinstance(v, list) else v) for k, v in matrix.items()}
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(shell)
    )
    if error is not None:
        return list(error.absolute_path), error.message
    salt = hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()
    try:
        known = set(_memo_path().read_text(encoding="utf-8").split())
    except OSError:
        known = set()
    seen: set[str] = set()
    for name in ITEMISED:
        items = matrix.get(name)
        if not isinstance(items, list):
            continue
        check = jsonschema.Draft202012Validator(schema["properties"][name]["items"])
        for index, item in enumerate(items):
            text = json.dumps([salt, item], sort_keys=True, ensure_ascii=False)
            digest = hashlib.sha256(text.encode()).hexdigest()
            seen.add(digest)
            if digest in known:
                continue
            error = jsonschema.exceptions.best_match(check.iter_errors(item))
            if error is not None:
                return [name, index, *error.absolute_path], error.message
    if seen != known:
        with contextlib.suppress(CompareError):  # an unwritable memo only costs time
            _atomic.write_text(_memo_path(), "\n".join(sorted(seen | known)[-20000:]) + "\n")
    return None


def validate_matrix(matrix: dict[str, Any]) -> None:
    """Refuse to write an export that does not match its own published schema."""
    found = matrix_error(matrix)
    if found is not None:
        where, message = found
        loc = "/".join(str(p) for p in where)
        raise CompareError(
            f"matrix.json would not match matrix.schema.json at /{loc}: {message}",
            "an input file has an unexpected shape; re-run the stage that writes it",
        )


def dumps(matrix: dict[str, Any]) -> str:
    """The exact bytes written for a matrix (sorted, indented, UTF-8); once per document in
    a pipeline run (render and export both write it)."""
    return _same(("matrix-text", id(matrix)), matrix, lambda: _text(matrix))


def _text(matrix: dict[str, Any]) -> str:
    return json.dumps(matrix, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def matrix_of(data: SiteData) -> dict[str, Any]:
    """:func:`build_matrix`, once per pipeline run: render publishes it beside the pages and
    export writes it to ``build/``, the same document (neither changes it)."""
    return _same(("matrix", id(data)), data, lambda: build_matrix(data))


def _same(key: tuple[str, int], source: object, make: Callable[[], T]) -> T:
    """``make()``, remembered with the object it was made from: a key by ``id`` names that
    object only while it lives, and keeping it in the scope keeps it alive."""
    kept_source, value = _memo.remember(key, lambda: (source, make()))
    return value if kept_source is source else make()
