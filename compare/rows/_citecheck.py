"""Walk the area files and the scenarios' refs, verify every citation once, write the record.

The rows stage owns the area files and already reads the scenarios (through the exchange
stage) for their checks, so it is the one place that knows every citation of a run: it hands
the strings to ``compare.cite`` (one source cache for all of them) and writes
``build/citations.json``. ``mcp-compare rows`` writes it as part of its run, and ``cite
--check`` reuses it instead of verifying again when its inputs are unchanged: the ``inputs``
key is a hash of the area files, the scenario files, the pins, the tools lock files, the
verifier's own code and which upstream clones exist. A record whose failures came from a
source that is missing on this machine (a spec file not fetched, a package not installed) or
that skipped an unreadable area file is never reused: fetching or fixing it changes the answer
without changing any of those inputs.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Literal

from compare import _seal
from compare._atomic import write_json
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT, build_dir, cache_dir, tools_dir
from compare._yaml import load_yaml
from compare.cite import SourceCache, parse_citation, verify_refs
from compare.rows._citations import placed_citations
from compare.rows._evidence import FORMAT, Checked, Report, display_path
from compare.rows._load import area_files

_TIP = (
    "tip: quote the whole clause the check rests on, copied from the cited lines (the "
    "sentence with its MUST/SHOULD, on one line), and cite the lines it spans (path:L1-L2)"
)
_CITE_CODE = PROJECT_ROOT / "compare" / "cite"
#: Host programs of ours: their locks (go.sum, Cargo.lock, deps.lock) fix the versions the
#: go:, crate: and maven: citations read.
_HOSTS = PROJECT_ROOT / "compare" / "hosts"
#: Which scenarios' refs a check covers: a folder, None for the shipped ones, False for none.
Folder = Path | None | Literal[False]


def citations_file() -> Path:
    return build_dir() / "citations.json"


def check_area_files(
    files: list[Path], cache: SourceCache | None = None, *, skip_unreadable: bool = False
) -> Report:
    """Verify every citation in the given area files (an unreadable one raises, or is skipped)."""
    sources = cache or SourceCache()
    report = Report()
    for path in files:
        try:
            area = load_yaml(path)
            if not isinstance(area, dict):
                raise CompareError(f"{path} is not a mapping", "an area file is a YAML mapping")
        except CompareError:
            if not skip_unreadable:
                raise
            report.skipped.append(display_path(path))
            continue
        file = display_path(path)
        for placed in placed_citations(area):
            try:
                cit = parse_citation(placed.ref)
            except CompareError as err:
                report.checked.append(
                    Checked(
                        file, placed.row, placed.field, placed.ref, placed.context, None, str(err)
                    )
                )
                continue
            result = sources.verify(cit)
            report.checked.append(
                Checked(file, placed.row, placed.field, placed.ref, placed.context, result)
            )
            if result.open_question and placed.context != "open-question":
                report.warnings.append(
                    f"{placed.row} {placed.field}: quote sits in an SEP's open questions; mark "
                    "it `context: open-question` and cite the normative text in "
                    "`contradicted_by` if the spec settles it otherwise"
                )
    return report


def check_scenario_refs(
    directory: Path | None = None, cache: SourceCache | None = None
) -> list[Checked]:
    """Verify every scenario ref (default: the shipped scenarios); a token quote is rejected."""
    from compare.judge._refs import scenario_refs

    refs = scenario_refs(directory)
    results = verify_refs([r.ref for r in refs], cache, standalone=True)
    out: list[Checked] = []
    for ref, res in zip(refs, results, strict=True):
        error = None
        if res.result is None:
            error = f"{ref.place}: {res.problem}"
        elif res.problem is not None:
            error = f"{ref.place}: {res.problem}. {_TIP}"
        elif res.result.status == "moved" and ref.revision is None:
            # `cite --fix` edits area files and the sentence file: a literal ref by hand.
            fix = "`mcp-compare cite --fix` rewrites it"
            by_hand = f"change `cite:` of {ref.place} in {ref.file.name} by hand"
            res.result.message = res.result.message.replace(fix, by_hand)
        if ref.revision is not None:  # a sentence of the sentence file, at one revision
            placed = (f"sentence {ref.check}", f"at.{ref.revision}", "sentence")
        else:
            placed = (f"{ref.scenario}/{ref.check}", f"refs[{ref.index}]", "scenario")
        out.append(
            Checked(
                display_path(ref.file),
                placed[0],
                placed[1],
                res.ref,
                None,
                res.result,
                error,
                origin=placed[2],
                scenario=ref.scenario if ref.revision is None else None,
                check=ref.check,
                ref_index=ref.index if ref.revision is None else None,
            )
        )
    return out


def _scenario_folder(files: list[Path] | None, scenarios: Path | bool | None) -> Folder:
    """The scenarios to check: a folder, None for the shipped ones, False for none.

    Left None, the shipped ones go with the shipped area files, and none when ``files`` names
    the area files (a check of a hand-picked file should not fail on data it was not asked
    about).
    """
    if scenarios is None:
        scenarios = files is None
    if scenarios is False:
        return False
    if scenarios is True:
        return None
    return scenarios


def inputs_key(areas: list[Path], scenarios: Folder) -> str:
    """The hash of everything a citation's verdict depends on (see the module docstring)."""
    from compare.pin import pins_file

    digest = hashlib.sha256()

    def add(role: str, path: Path) -> None:
        data = path.read_bytes() if path.is_file() else b"(missing)"
        digest.update(f"{role}\0{path.name}\0{len(data)}\0".encode())
        digest.update(data)

    for path in areas:
        add("area", path)
    if scenarios is not False:
        from compare.judge._refs import scenario_files

        digest.update(f"scenarios\0{scenarios is None}\0".encode())
        for path in scenario_files(scenarios):
            add("scenario", path)
    add("pins", pins_file())
    lock = tools_dir()
    own_trees = sorted(lock.glob("npm/*/package-lock.json"))  # targets' own npm trees
    for path in [lock / "package-lock.json", *own_trees, *sorted(lock.glob("requirements/*.txt"))]:
        add("lock", path)
    for path in sorted((PROJECT_ROOT / "compare" / "hosts").glob("*/go.sum")):
        add("lock", path)  # a Go host's lock: which module versions go: citations read
    for path in sorted(_HOSTS.glob("*/Cargo.lock")):  # the crates a crate: citation reads
        add("lock", path)
    # Maven hosts: their jar locks, and the stamps naming the sources jars `maven:` reads.
    for path in sorted(_HOSTS.glob("*/deps.lock")):
        add("lock", path)
    for path in sorted((lock / "hosts").glob("*/.mcp-compare-stamp")):
        add("host-stamp", path)
    for path in sorted(_CITE_CODE.glob("*.py")):
        add("verifier", path)
    clones = sorted(p.relative_to(cache_dir()).as_posix() for p in cache_dir().glob("repos/*/*"))
    digest.update(("clones\0" + "\n".join(clones)).encode())
    return digest.hexdigest()


def _reusable(report: Report) -> bool:
    local_gap = any(
        c.result is not None and c.result.status == "unavailable" and c.result.offline
        for c in report.checked
    )
    return not report.skipped and not local_gap


def stored_document(key: str) -> dict[str, Any] | None:
    """``build/citations.json`` when it was written for exactly these inputs and is still what
    was written (its seal holds), else None: a damaged or hand-edited file is verified anew,
    and said so on stderr."""
    path = citations_file()
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        _say(f"{path} is damaged ({err}); verifying every citation again")
        return None
    ok = isinstance(data, dict) and data.get("format") == FORMAT and data.get("inputs") == key
    if not ok or not isinstance(data.get("citations"), list):
        return None
    document: dict[str, Any] = data
    if not _seal.holds(document):
        _say(f"{path} was changed after it was written (seal mismatch); verifying again")
        return None
    return document


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def check_citations(
    files: list[Path] | None = None,
    *,
    scenarios: Path | bool | None = None,
    write: bool = True,
    skip_unreadable: bool = False,
) -> Report:
    """Verify every citation of the area files (default: all) and of the scenarios' refs.

    ``scenarios``: a folder of scenario files, True for the shipped ones, False for none, None
    for the shipped ones exactly when ``files`` is None. With ``write``, ``build/citations.json``
    is written atomically, keyed by its inputs when the report may be reused.
    """
    areas = files or area_files()
    folder = _scenario_folder(files, scenarios)
    cache = SourceCache()
    report = check_area_files(areas, cache, skip_unreadable=skip_unreadable)
    if folder is not False:
        try:
            report.checked += check_scenario_refs(folder, cache)
        except CompareError as err:
            if not skip_unreadable:
                raise
            # The rows lints say "cannot check …" for scenarios that do not load; the record
            # says which refs it lacks, and is not reused.
            report.skipped.append(f"scenarios: {err.message}")
            report.warnings.append(f"scenario refs not checked: {err.message}")
    if write:
        key = inputs_key(areas, folder) if _reusable(report) else None
        write_json(citations_file(), _seal.sealed(report.as_dict(key)))
    return report


def checked_document(
    files: list[Path] | None = None, *, scenarios: Path | bool | None = None
) -> tuple[dict[str, Any], bool]:
    """``cite --check``: the ``citations.json`` document for these inputs, and whether it was
    reused. The one written by ``mcp-compare rows`` for the same inputs is read back; anything
    else is verified now (and written)."""
    areas = files or area_files()
    key = inputs_key(areas, _scenario_folder(files, scenarios))
    stored = stored_document(key)
    if stored is not None:
        return stored, True
    report = check_citations(files, scenarios=scenarios)
    return _seal.sealed(report.as_dict(key if _reusable(report) else None)), False
