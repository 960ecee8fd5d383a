"""Everything the site shows, read from the files earlier stages wrote (CONTRACTS.md).

Inputs that are missing are *not run* states with the command that makes them, so the site can
be built at any point of the pipeline and says plainly what it lacks. Inputs that are present
but malformed stop the render with a :class:`CompareError` naming the file and the fix: a page
built from half-read data would be a page with bare claims.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from compare import _memo, _paths
from compare._errors import CompareError
from compare._yaml import read_text
from compare.diff import diff_shape
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import load_targets
from compare.models import module_path
from compare.pin import load_pins, pins_file
from compare.site._cells import Cell, Problem, load_cells
from compare.site._escape import slug
from compare.site._models_view import diff_sections, model_classes, model_names


@dataclass
class Citation:
    """One citation with the verifier's verdict on it (``cite --check``)."""

    ref: str
    status: str
    link: str | None = None
    detail: str = ""
    provenance: str = ""
    open_question: bool = False
    context: str = ""


@dataclass
class RowStatus:
    """One implementation's computed state for a row, with the cells that are its evidence."""

    state: str
    label: str = ""
    note: str = ""
    #: The client version an authored note describes (shown beside it: notes go stale).
    note_version: str = ""
    reason: str = ""
    cells: list[str] = field(default_factory=list)
    per_revision: list[tuple[str, str, str]] = field(default_factory=list)  # key, cell, verdict
    sources: list[Citation] = field(default_factory=list)
    cited_state: str = ""
    #: (version, state, label) for every version with results, oldest first (rows.json).
    history: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class Row:
    """One ROOT-xx row with its computed columns (``build/rows.json``)."""

    id: str
    area: str
    difference: str
    labels: list[str]
    where: dict[str, str]
    deprecated: set[str]
    where_reason: str
    status: dict[str, RowStatus]
    value: str
    effort: str
    risk: str
    details: list[tuple[str, str]]
    sources: list[Citation]
    #: The scenario the row's status query reads (``status_query.scenario``), or "" when the
    #: row has no exchange check: it says which kind of implementation the row can apply to.
    scenario: str = ""
    #: revision → the diff's change sentences behind the row's where state there.
    where_changes: dict[str, list[str]] = field(default_factory=dict)
    #: revision → the row's schema items defined there (where a "where" link lands).
    where_present: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Area:
    """One area file's title and summary (``roots`` first)."""

    id: str
    title: str
    summary: str


@dataclass
class SiteData:
    """The inputs of one render, plus what was missing or unusable."""

    revisions: list[str]
    revision_status: dict[str, str]
    repository: str | None
    commit: str | None
    diff: dict[str, Any] | None
    rows: list[Row] | None
    areas: list[Area]
    impl_info: dict[str, dict[str, Any]]  # rows.json implementations: name, kind, why_not_run
    citations: dict[str, Citation] | None
    cells: list[Cell]
    targets: dict[str, dict[str, Any]]
    scenarios: dict[str, dict[str, Any]]
    models: dict[str, dict[str, dict[str, str]]]  # revision → area → class name → source
    problems: list[Problem]
    missing: dict[str, str]  # input → the command that makes it

    @cached_property
    def measured(self) -> tuple[str, str] | None:
        """When the published results were played: the first and the newest start time
        (``started_at``, UTC) of the current cells, None before any was. From the results,
        not the clock, so a render of the same inputs is the same page."""
        times = sorted(
            c.data["started_at"]
            for c in self.cells
            if c.current and isinstance(c.data.get("started_at"), str)
        )
        return (times[0], times[-1]) if times else None

    @cached_property
    def impl_pages(self) -> dict[str, str]:
        """Implementation id → its page's name under ``implementations/`` (no suffix). Two ids
        that slug alike (``ts-sdk`` and a results folder ``ts_sdk``) would share one page and
        one would overwrite the other; the second and later get a short hash of their id."""
        names = sorted(
            {c.target for c in self.cells} | set(self.targets) | set(self.impl_info),
            key=lambda n: (n != slug(n), n),  # an id that is its own slug keeps the plain name
        )
        out: dict[str, str] = {}
        taken: set[str] = set()
        for name in names:
            page = slug(name)
            if page in taken:
                page = f"{page}--{hashlib.sha256(name.encode()).hexdigest()[:8]}"
            taken.add(page)
            out[name] = page
        return out

    def impl_page(self, name: str) -> str:
        """``implementations/<page>.md`` of an implementation (see ``impl_pages``)."""
        return f"implementations/{self.impl_pages.get(name) or slug(name)}.md"

    @cached_property
    def cells_by_rel(self) -> dict[str, Cell]:
        """The cells by their results path, indexed once (the cells are read once per render).
        A full render looks cells up about 90,000 times; scanning the list each time was half
        of its time."""
        return {c.rel: c for c in self.cells}


def _read_json(path: Path, made_by: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise CompareError(
            f"{path} is not readable JSON: {err}", f"re-create it: {made_by}"
        ) from err


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _state(value: object) -> str:
    """A computed column's state name, whatever small shape the producer used."""
    if isinstance(value, bool):
        return "present" if value else "absent"
    if isinstance(value, dict):
        for key in ("state", "verdict", "status", "change"):
            if isinstance(value.get(key), str):
                return str(value[key])
        if isinstance(value.get("present"), bool):
            return "present" if value["present"] else "absent"
        return "unknown"
    return "unknown" if value is None else str(value)


@lru_cache(maxsize=8)
def _results_name(_moved: str | None) -> str:
    """The results folder's name (by the variable that moves it: asked once per value, not
    once for each of the 17,000 cell names rows.json holds)."""
    return _paths.results_dir().name


def _cell_rel(text: str) -> str:
    """A cell folder as rows.json names it, relative to the results root."""
    text = text.strip("/")
    first, _, rest = text.partition("/")
    moved = os.environ.get("MCP_COMPARE_RESULTS")
    if rest and first in ("results", _results_name(moved)):
        text = rest
    for tail in ("/verdict.json", "/transcript.jsonl"):
        text = text.removesuffix(tail)
    return text


_DETAIL_FIELDS = (
    ("what", "What"),
    ("where_detail", "Where it exists"),
    ("status_detail", "Status per implementation"),
    ("value_detail", "Value"),
    ("effort_detail", "Effort"),
    ("risk_detail", "Risk"),
    ("detail", "Detail"),
)


def _citation(item: object) -> Citation:
    if not isinstance(item, dict):
        return Citation(str(item), "not-checked")
    link = item.get("link")
    return Citation(
        ref=str(item.get("ref") or item.get("cite") or ""),
        status=str(item.get("status") or "not-checked"),
        link=link if isinstance(link, str) else None,
        detail=str(item.get("message") or ""),
        provenance=str(item.get("provenance") or ""),
        open_question=bool(item.get("open_question")),
        context=str(item.get("context") or ""),
    )


def _status(value: object) -> RowStatus:
    if not isinstance(value, dict):
        return RowStatus(_state(value))
    per_rev = []
    revs = value.get("revisions")
    if isinstance(revs, dict):
        for key, entry in revs.items():
            if isinstance(entry, dict) and isinstance(entry.get("cell"), str):
                per_rev.append((str(key), _cell_rel(entry["cell"]), str(entry.get("verdict"))))
    evidence = value.get("evidence")
    cells = [_cell_rel(str(e)) for e in evidence] if isinstance(evidence, list) else []
    sources = value.get("sources")
    return RowStatus(
        state=_state(value),
        label=str(value.get("label") or ""),
        note=str(value.get("note") or ""),
        note_version=str(value.get("note_version") or ""),
        reason=str(value.get("reason") or ""),
        cells=cells or [c for _, c, _ in per_rev],
        per_revision=per_rev,
        sources=[_citation(s) for s in sources] if isinstance(sources, list) else [],
        cited_state=str(value.get("cited_state") or ""),
        history=[
            (str(h["version"]), _state(h), str(h.get("label") or _state(h)))
            for h in _list(value.get("history"))
            if isinstance(h, dict) and isinstance(h.get("version"), str)
        ],
    )


def _row(raw: object, area: str, index: int) -> Row:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise CompareError(
            f"build/rows.json: row {index} of area {area!r} has no string id",
            "re-create it: mcp-compare rows",
        )
    where_raw = _dict(raw.get("where"))
    revs = _dict(where_raw.get("revisions"))
    where = {str(k): _state(v) for k, v in revs.items()}
    deprecated = {str(k) for k, v in revs.items() if isinstance(v, dict) and v.get("deprecated")}
    status_raw = _dict(raw.get("status"))
    labels = raw.get("labels")
    sources = raw.get("sources")
    return Row(
        id=raw["id"],
        area=area,
        difference=str(raw.get("difference") or ""),
        labels=[str(x) for x in labels] if isinstance(labels, list) else [],
        where=where,
        deprecated=deprecated,
        where_reason="" if where else str(where_raw.get("reason") or "not computed"),
        status={str(k): _status(v) for k, v in status_raw.items()},
        value=str(raw.get("value") or ""),
        effort=str(raw.get("effort") or ""),
        risk=str(raw.get("risk") or ""),
        details=[(title, str(raw[key])) for key, title in _DETAIL_FIELDS if raw.get(key)],
        sources=[_citation(s) for s in sources] if isinstance(sources, list) else [],
        scenario=str(_dict(raw.get("status_query")).get("scenario") or ""),
        where_changes={
            str(rev): [
                str(c)
                for item in _dict(_dict(body).get("items")).values()
                for c in _list(_dict(item).get("changes"))
            ]
            for rev, body in revs.items()
        },
        where_present={
            str(rev): [
                str(name)
                for name, item in _dict(_dict(body).get("items")).items()
                if _dict(item).get("present")
            ]
            for rev, body in revs.items()
        },
    )


def _citations(raw: object) -> dict[str, Citation]:
    items = raw.get("citations") if isinstance(raw, dict) else None
    if not isinstance(items, list):
        raise CompareError(
            "build/citations.json has no list of citations", "re-create: mcp-compare cite --check"
        )
    out: dict[str, Citation] = {}
    for item in items:
        cit = _citation(item)
        out.setdefault(cit.ref, cit)
    return out


def _engine_files(items: list[Any]) -> dict[str, dict[str, Any]]:
    """Targets or scenarios (as the exchange loaded them) keyed by id, each file's text kept."""
    return {
        item.id: {**item.raw, "_file": item.path.name, "_text": read_text(item.path)}
        for item in items
    }


def _exchange_data(problems: list[Problem]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The target and scenario files, read by the exchange's own loaders; files those refuse
    are a problem shown on the site (the pages then go without them), not a crash."""
    found: list[dict[str, Any]] = []
    for where, load in (
        ("compare/exchange/targets/", load_targets),
        ("compare/exchange/scenarios/", load_scenarios),
    ):
        try:
            found.append(_engine_files(load()))
        except CompareError as err:
            problems.append(Problem(where, f"unreadable files ({err.message})"))
            found.append({})
    return found[0], found[1]


def load_site_data() -> SiteData:
    """Read every input of the site; missing ones are recorded, malformed ones raise. Within
    one pipeline run ``render`` and ``export`` share one reading (``compare._memo``)."""
    return _memo.remember(("site_data", str(_paths.build_dir())), _load_site_data)


def _load_site_data() -> SiteData:
    missing: dict[str, str] = {}
    build = _paths.build_dir()
    revisions: list[str] = []
    revision_status: dict[str, str] = {}
    repository = commit = None
    if pins_file().is_file():  # read by the pin stage's own loader (malformed pins raise)
        pins = load_pins()
        repository, commit = pins.repository or None, pins.commit or None
        for pinned in pins.revisions:
            revisions.append(pinned.name)
            revision_status[pinned.name] = pinned.status
    else:
        missing["schemas/revisions.toml"] = "mcp-compare pin add REV"

    diff = None
    if (build / "diff.json").is_file():
        diff = _read_json(build / "diff.json", "mcp-compare diff")
        if not isinstance(diff, dict):
            raise CompareError("build/diff.json is not an object", "re-create it: mcp-compare diff")
        wrong = diff_shape(diff)
        if wrong:
            raise CompareError(
                f"build/diff.json has an unexpected shape: {wrong}",
                "re-create it: mcp-compare diff",
            )
        if not revisions and isinstance(diff.get("revisions"), list):
            revisions = [str(r) for r in diff["revisions"]]
        commit = commit or diff.get("spec_commit")
    else:
        missing["build/diff.json"] = "mcp-compare diff"

    rows: list[Row] | None = None
    areas: list[Area] = []
    impl_info: dict[str, dict[str, Any]] = {}
    if (build / "rows.json").is_file():
        raw = _read_json(build / "rows.json", "mcp-compare rows")
        if not isinstance(raw, dict) or not isinstance(raw.get("areas"), list):
            raise CompareError(
                "build/rows.json has no list of areas", "re-create: mcp-compare rows"
            )
        rows = []
        for area in raw["areas"]:
            if not isinstance(area, dict):
                continue
            name = str(area.get("area") or "roots")
            areas.append(Area(name, str(area.get("title") or name), str(area.get("summary") or "")))
            rows += [_row(item, name, i) for i, item in enumerate(_list(area.get("rows")))]
        for impl in raw.get("implementations") or []:
            if isinstance(impl, dict) and isinstance(impl.get("id"), str):
                impl_info[impl["id"]] = impl
    else:
        missing["build/rows.json"] = "mcp-compare rows"

    citations = None
    if (build / "citations.json").is_file():
        citations = _citations(_read_json(build / "citations.json", "mcp-compare cite --check"))
    else:
        missing["build/citations.json"] = "mcp-compare cite --check"

    cells, problems = load_cells(_paths.results_dir())
    targets, scenarios = _exchange_data(problems)
    if not cells:
        missing["results/"] = "mcp-compare run"
    for cell in cells:
        if cell.revision not in revisions:
            revisions.append(cell.revision)

    models: dict[str, dict[str, dict[str, str]]] = {}
    wanted = {area: model_names(section) for area, section in diff_sections(diff).items()}
    for rev in revisions:
        path = module_path(rev)
        if path.is_file():
            models[rev] = model_classes(path, wanted)

    return SiteData(
        revisions=revisions,
        revision_status=revision_status,
        repository=repository,
        commit=str(commit) if commit else None,
        diff=diff,
        rows=rows,
        areas=areas,
        impl_info=impl_info,
        citations=citations,
        cells=cells,
        targets=targets,
        scenarios=scenarios,
        models=models,
        problems=problems,
        missing=missing,
    )
