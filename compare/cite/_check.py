"""``cite --check``: verify every citation of every area file and write ``citations.json``.

Exit policy (why moved fails too): a moved citation still points readers at the wrong
line, and the repair is one command (``cite --fix``), so CI should not let it through;
``--allow-moved`` exists for a reviewer who wants the other failures first. An upstream
repository that is not reachable is not a failure (it is shown as "not verified: source
unavailable"), but a spec file or an installed package that cannot be read is one: those
are verifiable offline by design, so their absence means a step was skipped.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare._atomic import write_json
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT, build_dir
from compare.cite._parse import Citation, parse_citation
from compare.cite._sources import Source, open_source
from compare.cite._verify import STATUSES, Result, verify


@dataclass
class Checked:
    """One citation in place, verified (or unparseable: ``error`` set, ``result`` None)."""

    file: str
    row: str
    field: str
    ref: str
    context: str | None
    result: Result | None
    error: str | None = None
    #: ``area`` (a row's citation) or ``scenario`` (a scenario check's ref).
    origin: str = "area"
    scenario: str | None = None
    check: str | None = None
    ref_index: int | None = None

    @property
    def status(self) -> str:
        # A citation rejected before or beside verification (unparseable, or a scenario quote
        # that is a token, not a clause) counts as a mismatch: the claim is not supported.
        if self.error is not None or self.result is None:
            return "mismatch"
        return self.result.status

    @property
    def message(self) -> str:
        """Why it was rejected, else what the verifier found."""
        if self.error is not None:
            return self.error
        return self.result.message if self.result else ""

    @property
    def failing(self) -> bool:
        """Whether this citation makes ``cite --check`` fail (moved is judged separately)."""
        if self.result is None or self.error is not None:
            return True
        if self.result.status in {"mismatch", "ambiguous"}:
            return True
        return self.result.status == "unavailable" and self.result.offline

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        out: dict[str, Any] = {
            "file": self.file,
            "row": self.row,
            "field": self.field,
            "ref": self.ref,
            "status": self.status,
            "message": self.message,
            "context": self.context,
            "origin": self.origin,
        }
        if self.origin == "scenario":
            out |= {"scenario": self.scenario, "check": self.check, "ref_index": self.ref_index}
        if r is not None:
            c = r.citation
            out |= {
                "kind": c.kind,
                "path": c.path,
                "start": c.start,
                "end": c.end,
                "quote": c.quote,
                "found_at": r.found_at,
                "provenance": r.provenance,
                "link": r.link,
                "offline": r.offline,
                "open_question": r.open_question,
            }
        return out


@dataclass
class Report:
    """All citations checked, with the tally by status."""

    checked: list[Checked] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def tally(self) -> dict[str, int]:
        counts = Counter(c.status for c in self.checked)
        return {status: counts.get(status, 0) for status in STATUSES}

    def failed(self, allow_moved: bool = False) -> bool:
        if any(c.failing for c in self.checked):
            return True
        return not allow_moved and any(c.status == "moved" for c in self.checked)

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": 1,
            "tally": self.tally(),
            "warnings": self.warnings,
            "citations": [c.as_dict() for c in self.checked],
        }


class SourceCache:
    """Read each cited file once per run, whatever number of citations point into it."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], Source] = {}

    def verify(self, cit: Citation) -> Result:
        key = (cit.kind, cit.source)
        if key not in self._seen:
            self._seen[key] = open_source(cit)
        src = self._seen[key]
        # The link carries the cited lines; re-derive it cheaply for this citation.
        return verify(cit, _with_link(src, cit))


def _with_link(src: Source, cit: Citation) -> Source:
    if src.link is None:
        return src
    base = src.link.split("#", 1)[0]
    if cit.kind == "pypi":
        return src
    anchor = f"#L{cit.start}" if cit.start == cit.end else f"#L{cit.start}-L{cit.end}"
    return Source(src.lines, src.provenance, base + anchor, src.reason, src.offline)


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


def check_files(files: list[Path], cache: SourceCache | None = None) -> Report:
    """Verify every citation in the given area files."""
    from compare.rows import load_yaml, placed_citations

    sources = cache or SourceCache()
    report = Report()
    for path in files:
        area = load_yaml(path)
        if not isinstance(area, dict):
            raise CompareError(f"{path} is not a mapping", "an area file is a YAML mapping")
        for placed in placed_citations(area):
            try:
                cit = parse_citation(placed.ref)
            except CompareError as err:
                report.checked.append(
                    Checked(
                        display_path(path),
                        placed.row,
                        placed.field,
                        placed.ref,
                        placed.context,
                        None,
                        str(err),
                    )
                )
                continue
            result = sources.verify(cit)
            checked = Checked(
                display_path(path), placed.row, placed.field, placed.ref, placed.context, result
            )
            report.checked.append(checked)
            if result.open_question and placed.context != "open-question":
                report.warnings.append(
                    f"{placed.row} {placed.field}: quote sits in an SEP's open questions; mark "
                    "it `context: open-question` and cite the normative text in "
                    "`contradicted_by` if the spec settles it otherwise"
                )
    return report


def check_all(
    files: list[Path] | None = None, write: bool = True, scenarios: Path | bool | None = None
) -> Report:
    """``cite --check``: every area file, ``build/citations.json`` written atomically.

    ``scenarios`` adds the refs of the exchange scenarios, verified the same way: a folder of
    scenario files, True for the shipped ones, False for none. Left None, the shipped ones
    are checked with the shipped area files, and none when ``files`` names the area files
    (a check of a hand-picked file should not fail on data it was not asked about).
    """
    from compare.rows import area_files

    cache = SourceCache()
    report = check_files(files or area_files(), cache)
    if scenarios is None:
        scenarios = files is None
    if scenarios is not False:
        from compare.cite._scenario_refs import check_scenarios

        folder = None if scenarios is True else scenarios
        report.checked += check_scenarios(folder, cache)
    if write:
        write_json(build_dir() / "citations.json", report.as_dict())
    return report
