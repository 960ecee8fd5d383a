"""Semantic lints for area files: what the JSON Schema cannot say, each with its fix.

Every lint that depends on another stage (targets, scenarios, the diff) reports "cannot
check …, because …" when that stage's data is missing, so a missing prerequisite is never
a silent pass.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compare._errors import CompareError
from compare._yaml import load_yaml
from compare.cite import SourceCache, normative
from compare.rows._citations import placed_citations
from compare.rows._citecheck import check_area_files
from compare.rows._context import Known
from compare.rows._derive import FACTS
from compare.rows._evidence import Report
from compare.rows._facts import lint_facts
from compare.rows._implementations import declare_issues
from compare.rows._load import Issue, area_diff, area_files, query_checks, schema_issues
from compare.rows._notes import lint_note_versions
from compare.rows._where import lint_where_text

_GOOD = {"verified", "verified-normalised"}


def _previous_ids(path: Path) -> set[str] | None:
    """Row ids in the committed version of the file (None when not in git or not committed)."""
    try:
        import git

        repo = git.Repo(path, search_parent_directories=True)
        relative = path.resolve().relative_to(Path(repo.working_tree_dir or ".").resolve())
        text = repo.git.show(f"HEAD:{relative.as_posix()}")
    except Exception:  # no repository, no commit yet, file new: nothing to compare with
        return None
    return set(re.findall(r"^\s*-\s*id:\s*['\"]?([A-Z]+-\d\d)", text, flags=re.M))


def _lint_ids(area: dict[str, Any], file: str, path: Path) -> list[Issue]:
    issues = []
    prefix = area.get("id_prefix") or str(area.get("area", "")).upper()
    rows = [r for r in area.get("rows") or [] if isinstance(r, dict)]
    ids = [str(r.get("id")) for r in rows]
    for rid, n in Counter(ids).items():
        if n > 1:
            tip = "give each row its own id; take the next free number, never reuse one"
            issues.append(Issue(file, rid, f"id {rid} is used by {n} rows", tip))
    for rid in ids:
        if not re.fullmatch(rf"{re.escape(prefix)}-\d\d", rid):
            tip = f"ids look like {prefix}-01 (the area's prefix, a dash, two digits)"
            issues.append(Issue(file, rid, f"id {rid!r} does not match {prefix}-NN", tip))
    retired = set(area.get("retired_ids") or [])
    for rid in sorted(retired & set(ids)):
        tip = "retired ids stay retired (links point at them); take the next free number"
        issues.append(Issue(file, rid, f"id {rid} is listed in retired_ids", tip))
    before = _previous_ids(path)
    if before is not None:
        for rid in sorted(before - set(ids) - retired):
            tip = f"ids are stable: restore {rid}, or add it to retired_ids if the row is gone"
            issues.append(
                Issue(file, rid, f"id {rid} existed in the last commit and vanished", tip)
            )
    return issues


def _lint_status(area: dict[str, Any], file: str, known: Known) -> list[Issue]:
    registry = known.implementations()
    shown, issues = registry.resolve(area, file)
    cited_ids = {impl.id for impl in shown}
    for cid in sorted(cited_ids & set(known.targets)):
        tip = f"a cited-only column must not also be a run target; drop it from {registry.file}"
        issues.append(Issue(file, f"implementations/{cid}", f"{cid} is also a run target", tip))
    for row in area.get("rows") or []:
        if not isinstance(row, dict) or not isinstance(row.get("status"), dict):
            continue
        rid, status = str(row.get("id")), row["status"]
        issues += lint_note_versions(rid, status, file, known)
        for impl, column in (status.get("cited") or {}).items():
            where = f"{rid}/status/cited/{impl}"
            if impl not in cited_ids:
                tip = "list its id under implementations (declared once in implementations.yaml)"
                issues.append(Issue(file, where, f"cited column {impl!r} is not declared", tip))
            if (
                isinstance(column, dict)
                and column.get("state") == "partial"
                and not column.get("note")
            ):
                tip = "say in a note what works and what does not"
                issues.append(Issue(file, where, "a partial status needs a note", tip))
        query = status.get("query")
        if isinstance(query, dict):
            scenario = query.get("scenario")
            if "scenarios" in known.missing:
                msg = f"cannot check scenario {scenario!r}, because {known.missing['scenarios']}"
                tip = "build compare/exchange/scenarios/ first"
                issues.append(Issue(file, f"{rid}/status/query", msg, tip))
            elif scenario not in known.scenarios:
                tip = "use a scenario id from compare/exchange/scenarios/: " + ", ".join(
                    sorted(known.scenarios)
                )
                issues.append(
                    Issue(file, f"{rid}/status/query", f"unknown scenario {scenario!r}", tip)
                )
            else:
                tip = f"use a check id of {scenario}: " + ", ".join(
                    sorted(known.scenarios[str(scenario)])
                )
                issues.extend(
                    Issue(file, f"{rid}/status/query", f"{scenario} has no check {one!r}", tip)
                    for one in query_checks(query)
                    if one not in known.scenarios[str(scenario)]
                )
        elif isinstance(status.get("derive"), dict):
            issues += lint_derive(status["derive"], f"{rid}/status/derive", file, known)
        elif not status.get("unmeasured"):
            tip = "add status.query (scenario + check), or say why not in status.unmeasured"
            issues.append(Issue(file, f"{rid}/status", "the status column queries nothing", tip))
    return issues


def lint_derive(derive: dict[str, Any], where: str, file: str, known: Known) -> list[Issue]:
    """A derived row reads an enforcement scenario that exists, checks of its several-roots
    scenario that exist (that scenario may not be written yet: its facts then read absent),
    and conditions on facts ``_derive`` computes, with values they can take."""
    issues: list[Issue] = []
    source = derive.get("from") or {}
    enforcement = str((source.get("enforcement") or {}).get("scenario"))
    if "scenarios" not in known.missing and enforcement not in known.scenarios:
        tip = "name a server scenario with probes (e.g. server-enforcement)"
        issues.append(Issue(file, where, f"unknown scenario {enforcement!r}", tip))
    several = source.get("several") or {}
    checks = known.scenarios.get(str(several.get("scenario")))
    for key in ("first", "second"):
        if checks is not None and several.get(key) not in checks:
            tip = f"use a check id of {several.get('scenario')}: " + ", ".join(sorted(checks))
            issues.append(Issue(file, where, f"no check {several.get(key)!r}", tip))
    for category in derive.get("categories") or []:
        for condition in category.get("when") or []:
            for name, wanted in condition.items():
                values = FACTS.get(name)
                if values is None:
                    tip = "a condition may test: " + ", ".join(FACTS)
                    issues.append(
                        Issue(file, f"{where}/{category.get('id')}", f"no fact {name!r}", tip)
                    )
                    continue
                for one in wanted if isinstance(wanted, list) else [wanted]:
                    if one not in values:
                        tip = f"{name} takes: " + ", ".join(str(v) for v in values)
                        issues.append(
                            Issue(
                                file,
                                f"{where}/{category.get('id')}",
                                f"{name} is never {one!r}",
                                tip,
                            )
                        )
    return issues


#: Check grades that make a row's state able to read anything but supported or observed.
FAILING = frozenset({"fail", "non-strict"})


def _lint_can_fail(area: dict[str, Any], file: str, known: Known) -> list[Issue]:
    """A row's state promises something only if its checks can fail: a query whose checks'
    outcomes grade only pass or informational could read supported but never not-supported.
    Such a row says so (``status.informational``) and then reads observed; a declared row
    whose checks can fail is graded after all, so the declaration goes."""
    issues = []
    for row in area.get("rows") or []:
        if not isinstance(row, dict) or not isinstance(row.get("status"), dict):
            continue
        rid, status = str(row.get("id")), row["status"]
        query = status.get("query")
        if not isinstance(query, dict):
            continue
        scenario, names = str(query.get("scenario")), query_checks(query)
        if scenario not in known.scenarios:
            continue  # _lint_status says so, with its fix
        if scenario not in known.grades:
            msg = (
                f"cannot check whether {scenario}'s checks can fail, because its outcome"
                " grades were not read"
            )
            issues.append(Issue(file, f"{rid}/status/query", msg, "load the scenarios first"))
            continue
        grades = set().union(*(known.grades[scenario].get(n, set()) for n in names))
        can_fail = bool(grades & FAILING)
        where = f"{rid}/status/query"
        if not can_fail and not status.get("informational"):
            said = ", ".join(f"{scenario}/{n}" for n in names)
            tip = (
                "add a check whose outcomes can grade fail or non-strict to status.query.check,"
                " or, where the spec leaves the behaviour open, grade the check's outcomes"
                " informational in the scenario and declare the row informational"
                " (status.informational: why), so it reads observed over observed cells, never"
                " over passes (rows --lint compares every state with its cells)"
            )
            msg = (
                f"the query's checks ({said}) grade only {', '.join(sorted(grades))}: the row"
                " could read supported but never not-supported"
            )
            issues.append(Issue(file, where, msg, tip))
        elif can_fail and status.get("informational"):
            tip = "drop status.informational: the row is graded by a check that can fail"
            msg = "declared informational, yet its query's checks can grade fail or non-strict"
            issues.append(Issue(file, where, msg, tip))
    return issues


def _lint_where(area: dict[str, Any], file: str, known: Known) -> list[Issue]:
    issues = []
    for row in area.get("rows") or []:
        if not isinstance(row, dict) or not isinstance(row.get("where"), dict):
            continue
        rid = str(row.get("id"))
        given = [f for f in row["where"].get("facts") or [] if isinstance(f, dict)]
        facts = [f["item"] for f in given if "item" in f]
        named = [str(f["sentence"]) for f in given if "sentence" in f]
        if named:
            from compare.judge._sentences import load_sentences

            known_sentences = load_sentences()
            for name in named:
                if name not in known_sentences:
                    tip = "name a sentence of compare/exchange/scenarios/_sentences.yaml"
                    issues.append(Issue(file, f"{rid}/where", f"no sentence {name!r}", tip))
        for item in dict.fromkeys(list(row["where"].get("items") or []) + facts):
            if known.diff is None:
                msg = f"cannot check diff item {item!r}, because {known.missing.get('diff')}"
                issues.append(Issue(file, f"{rid}/where", msg, "run `mcp-compare diff` first"))
            elif item not in known.diff["items"]:
                close = [k for k in known.diff["items"] if str(item).split(".")[0] in k][:6]
                tip = "use an item name from build/diff.json" + (
                    f" (similar: {', '.join(close)})" if close else ""
                )
                issues.append(Issue(file, f"{rid}/where", f"{item!r} is not in the diff", tip))
    return issues


def _clause_issue(file: str, where: str, result: Any, cache: SourceCache) -> Issue | None:
    """A spec quote that states a requirement must hold its whole clause (the rule the
    scenario loader applies to a fail's or non-strict's refs: ``compare.cite._clause``).

    Row sources ground no verdict themselves (a state comes from cells, whose checks cite
    their own refs, or from a cited column's code), but a quoted MUST or SHOULD is shown as
    the requirement the row is about, and a cut one misstates it just as a verdict's would;
    a quote without a keyword illustrates the prose and may be a phrase.
    """
    cit = result.citation
    if result.status not in _GOOD or not cit.quote or not normative(cit.quote):
        return None
    clause = cache.clause(cit)
    if clause is None or clause.problem is None:
        return None
    tip = "quote the whole sentence (a lead-in with its list), and cite its line range"
    if clause.sentence is not None:
        tip = f"cite the whole sentence, as the source has it: {cit.source}:{clause.lines} “"
        tip += f"{clause.sentence}”"
    return Issue(file, where, f"the quote is not a whole clause: {clause.problem}", tip)


def lint_citations(
    area: dict[str, Any], file: str, verified: dict[str, Any], cache: SourceCache | None = None
) -> list[Issue]:
    """Rows need one verified quote; open-question quotes must say so; a quoted requirement
    holds its whole clause.

    ``verified`` maps a citation string to its ``compare.cite.Result`` (or ``None`` when it
    does not parse), so the caller decides how sources are read and cached.
    """
    issues = []
    sources = cache or SourceCache()
    good: Counter[str] = Counter()
    for placed in placed_citations(area):
        result = verified.get(placed.ref)
        if result is None:
            tip = "write path:LINE “quote” or path:START-END (see `mcp-compare cite --help`)"
            issues.append(Issue(file, f"{placed.row}/{placed.field}", "unparseable citation", tip))
            continue
        cut = _clause_issue(file, f"{placed.row}/{placed.field}", result, sources)
        if cut is not None:
            issues.append(cut)
        if result.status in _GOOD and result.citation.quote and placed.field.startswith("sources"):
            good[placed.row] += 1
        if result.open_question and placed.context != "open-question":
            tip = (
                "mark it `context: open-question` (and cite the normative text in contradicted_by)"
            )
            msg = "quote comes from an SEP's open questions"
            issues.append(Issue(file, f"{placed.row}/{placed.field}", msg, tip))
    for row in area.get("rows") or []:
        if isinstance(row, dict) and good[str(row.get("id"))] == 0:
            tip = "add a quoted citation that `mcp-compare cite --check` verifies"
            issues.append(Issue(file, str(row.get("id")), "no verified citation in sources", tip))
    return issues


def _collapse(issues: list[Issue]) -> list[Issue]:
    """One "cannot check …, because …" per missing input, not one per row that needs it."""
    seen: set[str] = set()
    out = []
    for issue in issues:
        if issue.message.startswith("cannot check"):
            key = issue.message.split(", because ", 1)[-1]
            if key in seen:
                continue
            seen.add(key)
        out.append(issue)
    return out


def lint_file(path: Path, known: Known, verified: dict[str, Any]) -> list[Issue]:
    """All lints of one area file (schema first; semantic lints on what parses)."""
    file = path.name
    try:
        area = load_yaml(path)
    except CompareError as err:
        return [Issue(file, "(file)", err.message, err.hint or "fix the file")]
    issues = schema_issues(area, file)
    if issues:
        # Semantic lints read the shape the schema promises; fix the shape first.
        return issues
    known = replace(known, diff=area_diff(known.diff, area))  # this area's diff section
    issues += _lint_ids(area, file, path)
    issues += _lint_status(area, file, known)
    issues += _lint_can_fail(area, file, known)
    issues += _lint_where(area, file, known)
    issues += lint_where_text(area, file, known)
    issues += lint_citations(area, file, verified)
    issues += lint_facts(area, file, known)
    return _collapse(issues)


@dataclass(frozen=True)
class LintedArea:
    """One area file as loaded and linted; ``area`` is None when it did not load (``issues``
    say why)."""

    path: Path
    area: dict[str, Any] | None
    verified: dict[str, Any]
    issues: list[Issue]


def lint_areas(
    files: list[Path] | None, known: Known, citations: Report | None = None
) -> Iterator[LintedArea]:
    """Load and lint each area file (default: every one) with its citations' results, the
    common first step of a lint-only run and of computing the rows. ``citations`` is the
    run's verified report (``check_citations``); without it the area files' citations are
    verified here."""
    paths = files or area_files()
    report = citations if citations is not None else check_area_files(paths, skip_unreadable=True)
    loaded: list[tuple[Path, Any]] = []
    for path in paths:
        try:
            loaded.append((path, load_yaml(path)))
        except CompareError:
            loaded.append((path, None))  # lint_file reports it with its fix
    # across files: an implementation an area declares itself, named with the other file
    declared = declare_issues(((p.name, a) for p, a in loaded), known.implementations())
    for path, area in loaded:
        verified = report.verified_in(path)
        issues = [i for i in declared if i.file == path.name] + lint_file(path, known, verified)
        yield LintedArea(path, area if isinstance(area, dict) else None, verified, issues)
