"""Cells: target × variant × scenario × revision, where each one's results live, and reading
them back for the later stages.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare import _memo, _paths
from compare.exchange._host_plan import lacks_key, needs
from compare.exchange._scenarios import Scenario
from compare.exchange._targets import Target
from compare.judge._verdict import Verdict, VerdictError, load_object, parse_verdict
from compare.play import _integrity

#: Bumped when the harness changes how a cell is played; invalidates cached cells.
HARNESS_VERSION = "1"
HERE = Path(__file__).resolve().parent
_PEER_DIR = HERE.parent / "peer"
#: The code that turns a transcript into checks: a change here means re-judging, not re-running.
#: A folder stands for every ``*.py`` in it (the peer's era test is the judge's too).
#: Each by a fixed label: the key hashes the label with the content, never the file's
#: place, so moving a file (issue 22's split of this package) re-judges nothing.
JUDGE_SOURCES = (
    ("_judge.py", HERE.parent / "judge" / "_judge.py"),
    ("_rules", HERE.parent / "judge" / "rules"),
    ("_uri.py", HERE.parent / "judge" / "_uri.py"),
    ("_validate.py", HERE.parent / "judge" / "_validate.py"),
    ("_transcript.py", HERE.parent / "judge" / "_transcript.py"),
    ("_scenarios.py", HERE.parent / "exchange" / "_scenarios.py"),
    ("peer/_era.py", HERE.parent / "peer" / "_era.py"),
    # the added root's folder name, which the judge looks for (said once there)
    ("hosts/variants.yaml", HERE.parent / "hosts" / "variants.yaml"),
)


def _judge_sources() -> list[tuple[str, Path]]:
    """:data:`JUDGE_SOURCES` with the generated models every message is validated with, from
    where validation reads them (``MCP_COMPARE_SCHEMAS``), beside the validator."""
    models = _paths.schemas_dir() / "models"
    out = list(JUDGE_SOURCES)
    if models.is_dir():
        out.insert(out.index(("_validate.py", HERE.parent / "judge" / "_validate.py")) + 1,
                   ("models", models))  # fmt: skip
    return out


def _sources(path: Path) -> list[Path]:
    return sorted(path.glob("*.py")) if path.is_dir() else [path]


#: Scenario keys that only grade (checks) or describe; every other key shapes the peer's play.
_JUDGE_ONLY_KEYS = frozenset({"checks", "title", "description", "outside_window"})


@functools.cache
def harness_version(side: str = "client") -> str:
    """The version plus the peer's source hash: a changed peer plays differently. A server
    cell is played by the scripted client (``peer/client``), so its sources count there too;
    a proxy cell by both ends, with the plans and the merge of ``_proxy.py`` (whose HTTP end
    a server played over HTTP shares).

    Memoised per process: every cell's key asks for it, and the sources do not change while
    a run reads them."""
    digest = hashlib.sha256()
    places = [_PEER_DIR]
    places += (
        [HERE.parent / "peer" / "client", HERE / "_server_plan.py"] if side != "client" else []
    )
    places += [HERE / "_proxy.py"] if side in ("proxy", "server") else []
    for path in [p for place in places for p in _sources(place)]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    peer = digest.hexdigest()[:16]
    return f"{HARNESS_VERSION}+peer.{peer}"


@functools.cache
def judge_version() -> str:
    """sha256 over the judging code, so an edited rule re-judges every cached cell (memoised
    per process, as :func:`harness_version`)."""
    digest = hashlib.sha256()
    for label, place in _judge_sources():
        for path in _sources(place):
            rel = f"{label}/{path.name}" if place.is_dir() else label
            digest.update(rel.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


#: Host programs of ours: a target names one as ``{hosts}/<file>`` in its entry, or is built
#: from the folder ``hosts/<target id>/`` (Go, Rust, JVM hosts).
HOSTS = HERE.parent / "hosts"
_HOST_FILE = re.compile(r"\{hosts\}/([\w.-]+)")


@functools.cache
def host_version(target_id: str, entry: str) -> str | None:
    """sha256 of the host program behind a target (None when it has none): a changed host
    plays differently, so it re-runs that target's cells. A Node host counts every ``*.mjs``
    beside it (a target may preload ``loopback.mjs``); a host that reads a host plan counts
    the plan's schema, and a Python one every module beside it that it imports (the plan
    reader, the shared session helpers), and theirs. ``entry`` is the target's
    entry as JSON (memoised per process, as :func:`harness_version`)."""
    files: set[Path] = set()
    for name in _HOST_FILE.findall(entry):
        files.add(HOSTS / name)
        if name.endswith(".mjs"):
            files.update(HOSTS.glob("*.mjs"))
        if name.endswith(".py"):
            files.update(_local_imports(HOSTS / name))
    if "{host_plan}" in entry:
        files.add(HOSTS / "host-plan.schema.json")
    own = HOSTS / target_id
    built = re.search(r'"installed_by": "([a-z0-9-]+)"', entry)
    if not own.is_dir() and built:  # the HTTP mode of another target's host program
        own = HOSTS / built.group(1)
    if own.is_dir():
        files.update(p for p in own.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if not files:
        return None
    digest = hashlib.sha256()
    for path in sorted(files):
        data = path.read_bytes() if path.is_file() else b"(missing)"
        digest.update(path.relative_to(HOSTS).as_posix().encode() + b"\0" + data)
    return digest.hexdigest()


#: ``import NAME`` or ``from NAME import``, at the start of a line.
_IMPORT = re.compile(r"^(?:from|import)\s+([A-Za-z_]\w*)", re.MULTILINE)


def _local_imports(host: Path) -> set[Path]:
    """The modules beside a Python host that it imports, and those they import in turn."""
    found: set[Path] = set()
    todo = [host]
    while todo:
        try:
            text = todo.pop().read_text(encoding="utf-8")
        except OSError:
            continue
        for name in _IMPORT.findall(text):
            module = HOSTS / f"{name}.py"
            if module.is_file() and module not in found:
                found.add(module)
                todo.append(module)
    return found


@functools.cache
def _file_digest(path: Path) -> str:
    """sha256 of one source file (memoised per process, as :func:`harness_version`)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _digest(material: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


DEFAULT_VARIANT = "default"


@dataclass(frozen=True)
class Cell:
    target: Target
    variant: str
    scenario: Scenario
    revision: str

    @property
    def label(self) -> str:
        variant = "" if self.variant == DEFAULT_VARIANT else f"~{self.variant}"
        return f"{self.target.id}{variant} {self.scenario.id} {self.revision}"

    def folder(self, results: Path) -> Path:
        leaf = (
            self.revision if self.variant == DEFAULT_VARIANT else f"{self.revision}~{self.variant}"
        )
        return results / self.target.id / self.target.version / self.scenario.id / leaf

    def play_key(self) -> str:
        """What the client and the peer did: target entry, peer, harness and scenario steps.

        A change here re-runs the client; a change only in the judge does not (see key).
        """
        steps = {k: v for k, v in self.scenario.raw.items() if k not in _JUDGE_ONLY_KEYS}
        material: dict[str, Any] = {
            "target": self.target.entry_hash,
            "harness": harness_version(self.target.side),
            "steps": steps,
            "revision": self.revision,
            "variant": self.variant,
        }
        raw = json.dumps(self.target.raw, sort_keys=True, ensure_ascii=False)
        host = host_version(self.target.id, raw)
        if host is not None:  # absent for targets without a host: their keys stay as they were
            material["host"] = host
        if self.target.model_endpoint:  # the stand-in model answers what the client asks it
            material["model_endpoint"] = _file_digest(HOSTS / "model_endpoint.py")
        if self.target.variants:  # the host plan's fragment (common variants live elsewhere)
            fragment = self.target.variants.get(self.variant) or {}
            material["host_plan"] = {k: v for k, v in fragment.items() if k != "description"}
        return _digest(material)

    def judge_key(self, spec_commit: str) -> str:
        """What judged it: spec commit (the models), scenario file with the common checks,
        and the judging code."""
        return _digest(
            {
                "spec_commit": spec_commit,
                "scenario": self.scenario.file_hash,
                "judge": judge_version(),
            }
        )

    def key(self, spec_commit: str) -> str:
        """What produced this cell: a changed input means the cached verdict is stale."""
        return _digest({"play": self.play_key(), "judge": self.judge_key(spec_commit)})

    def stored_verdict(self, results: Path) -> str | None:
        """The verdict word of this cell's stored ``verdict.json`` (None when there is none or
        it cannot be read or is not what was written): ``mcp-compare run`` decides from it
        what may be reused."""
        stored = _integrity.inspect(self.folder(results))
        if stored.verdict is None or stored.damage:
            return None
        try:
            return parse_verdict(stored.verdict).verdict
        except VerdictError:
            return None

    def not_run_reason(self) -> str | None:
        """Why this cell cannot be played, phrased "not run, because …"; None when it can."""
        t, s = self.target, self.scenario
        if t.kind == "cited":
            return "not run, because this implementation is cited, not run (no runnable package)"
        if not s.plays(self.revision):
            until = s.revisions.get("until") or "the latest"
            why = f": {s.raw['outside_window']}" if s.raw.get("outside_window") else ""
            return (
                f"not run, because {s.id} applies to revisions {s.revisions['from']} … {until}{why}"
            )
        for feature in needs(t.variants.get(self.variant)):
            if feature in t.lacks:
                why = " ".join(t.lacks[feature]["why"].split())
                return f"not run, because {t.name} lacks {feature}: {why}"
        if "stdio" in s.requires and (t.connects_by_url or t.serves_http):
            return (
                f"not run, because {s.id} is about the stdio transport, and {t.name} is played"
                " over HTTP"
            )
        if "can_change_roots" in s.requires and not t.can_change_roots:
            return f"not run, because {t.name} cannot add a root while connected"
        if "model" in s.requires and not t.model_endpoint:
            return (
                f"not run, because {t.name} asks no model of ours what to do, so no tool call"
                " can be asked of it"
            )
        if "session" in s.requires and not t.scripts_session:
            return (
                f"not run, because no host of ours makes client requests through {t.name}'s"
                " API from a script, which this scenario needs"
            )
        for kind in dict.fromkeys(lacks_key(r) for r in s.raw.get("host_session") or []):
            if kind in t.lacks:
                why = " ".join(t.lacks[kind]["why"].split())
                return f"not run, because {t.name} lacks {kind}: {why}"
        if "host_plan" in s.requires and not t.variants:
            return (
                f"not run, because {t.name} is run as it is: no host of ours can tell it what to"
                " answer, which this scenario sets"
            )
        if s.id in t.not_run:
            reason = " ".join(t.not_run[s.id].split())
            return reason if reason.startswith("not run") else f"not run, because {reason}"
        return None


def _plays_over(target: Target, scenario: Scenario) -> bool:
    """Whether a target plays this scenario on its transport: the transport's own scenarios
    (``requires: [http]``) only over HTTP (a server we reach by URL, a client we hand ours);
    the rest over stdio, or over HTTP where the target plays everything that way
    (``transports.plays: all``, what check does)."""
    over_http = target.serves_http or target.connects_by_url
    if "http" in scenario.requires:
        return over_http
    return not over_http or target.plays_all_over_http


def plan_cells(
    targets: list[Target],
    scenarios: list[Scenario],
    revisions: list[str],
    variant: str | None = None,
) -> list[Cell]:
    """Every cell of the selection; a scenario limited to some variants skips the others.

    A target without variants plays every scenario once (variant ``default``).
    """
    cells: list[Cell] = []
    for target in targets:
        if target.is_template:
            continue  # a generic template needs --command
        for name in target.variant_names():
            if variant is not None and name != variant and name != DEFAULT_VARIANT:
                continue
            for scenario in scenarios:
                if scenario.side != target.side:
                    continue  # a server target plays server scenarios, a client the others
                if target.side != "proxy" and not _plays_over(target, scenario):
                    continue
                if target.variants and scenario.variants and name not in scenario.variants:
                    continue
                for revision in revisions:
                    cells.append(Cell(target, name, scenario, revision))
    return cells


@dataclass(frozen=True)
class CellResult:
    """One ``verdict.json`` as read back (``compare.judge._verdict``, the one reader);
    ``current`` marks the pinned (or newest) version of its target, the other versions being
    history."""

    path: Path
    record: Verdict
    current: bool

    @property
    def verdict(self) -> dict[str, Any]:
        """The verdict object as written."""
        return self.record.raw

    @property
    def target(self) -> str:
        return self.record.target

    @property
    def version(self) -> str:
        return self.record.target_version

    @property
    def folder(self) -> Path:
        return self.path.parent


@dataclass(frozen=True)
class Unreadable:
    """A ``verdict.json`` that could not be used, and why, so a later stage can show it."""

    path: Path
    why: str


@dataclass
class CellScan:
    """Everything under a results folder: usable cells and the files that were not."""

    cells: list[CellResult] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """A sort key that puts ``1.10.0`` after ``1.9.2`` (numbers compare as numbers)."""
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in re.split(r"[.+-]", version))


def scan_cells(results: Path, pinned: dict[str, str] | None = None) -> CellScan:
    """Every ``verdict.json`` under ``results`` (a missing folder is no cells), each either a
    cell or an unreadable file with the reason — never raised, so one damaged file cannot
    hide the others. A cell whose verdict or recorded files changed after they were written
    (``_integrity``) is unreadable too, named by its first damaged file.

    Older versions' folders stay as history. ``current`` marks, per target, the version in
    ``pinned`` (target id -> pinned version, see ``pinned_versions``) when given, else the
    newest version found — a pinned downgrade must not leave the newer cells current.
    """
    key = ("scan_cells", str(results), tuple(sorted((pinned or {}).items())))
    return _memo.remember(key, lambda: _scan(results, pinned))


def _scan(results: Path, pinned: dict[str, str] | None) -> CellScan:
    scan = CellScan()
    found: list[tuple[Path, Verdict]] = []
    for path in sorted(results.glob("*/*/*/*/verdict.json")):
        if any(part.startswith(".") or ".old-" in part for part in path.parts[-5:-1]):
            continue  # a staging or superseded folder left by an interrupted run
        try:
            before = path.stat()  # before the read (``_integrity.check``)
            raw = load_object(path)
            value = parse_verdict(raw)
        except (OSError, VerdictError) as err:
            scan.unreadable.append(Unreadable(path, str(err)))
            continue
        legacy = "seal" not in raw and "written" not in raw
        damage = [] if legacy else _integrity.check(path.parent, raw, before)[0]
        if damage:  # the first damaged file stands for the cell (a transcript before others)
            first = damage[0]
            why = f"{first.what}; `mcp-compare run` plays the cell again"
            scan.unreadable.append(Unreadable(first.path, why))
            continue
        found.append((path, value))
    _integrity.save_intact()
    newest: dict[str, str] = {}
    for _, v in found:
        target, version = v.target, v.target_version
        if target not in newest or version_key(version) > version_key(newest[target]):
            newest[target] = version
    newest.update(pinned or {})
    scan.cells = [CellResult(p, v, newest.get(v.target) == v.target_version) for p, v in found]
    return scan


def load_cells(results: Path, pinned: dict[str, str] | None = None) -> list[CellResult]:
    """The readable cells of ``scan_cells``; damaged files are skipped, not raised."""
    return scan_cells(results, pinned).cells


def pinned_versions(targets: list[Target]) -> dict[str, str]:
    """Target id -> pinned package version, the ``pinned`` argument of ``scan_cells``.

    Only targets with a package have one: a cited target never runs and an ad-hoc
    ``--command`` target's version is a hash of its launch line, so for those the newest
    results found stay current.
    """
    return {t.id: t.version for t in targets if t.package}
