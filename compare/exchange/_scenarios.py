"""Scenarios: what the peer plays and how each check's outcomes are graded, read from YAML.

The steps go to the peer verbatim (in ``plan.json``); the checks stay with the judge. A
scenario grades every outcome its rule can produce, so a new outcome in code cannot slip into
a verdict unnoticed: loading fails until the YAML grades it. Two shared files say what every
check would otherwise repeat: ``scenarios/_gates.yaml`` grades the gate outcomes (a check
inherits them unless it grades one itself), and a check's refs name sentences of
``scenarios/_sentences.yaml``, expanded here into one ref per revision (``_sentences``). A
server scenario's probe names its operations, defined once in ``scenarios/_operations.yaml``
and put in place here (``_operations``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from compare import _memo, _proofs
from compare._errors import CompareError
from compare.exchange._host_plan import check_requests
from compare.exchange._operations import expand_probe
from compare.exchange._params import check_params, step_requests
from compare.exchange._yaml import check_schema, check_schema_value, load_yaml
from compare.judge._sentences import Sentence, expand_refs, load_sentences, sentences_file
from compare.judge.rules import RULES
from compare.models import first_modern
from compare.pin import release_order

HERE = Path(__file__).resolve().parent
SCENARIOS_DIR = HERE / "scenarios"
SCENARIO_SCHEMA = HERE / "scenario.schema.json"
GATES_FILE = SCENARIOS_DIR / "_gates.yaml"
GATES_SCHEMA = HERE / "gates.schema.json"


def in_window(revision: str, window: dict[str, Any] | None) -> bool:
    """Whether ``revision`` lies in ``{from, until}`` (inclusive), in release order."""
    if not window:
        return True
    until = window.get("until")
    at = release_order(revision)
    return release_order(window["from"]) <= at and (until is None or at <= release_order(until))


@dataclass(frozen=True)
class Check:
    id: str
    title: str
    rule: str
    expected: str
    outcomes: dict[str, dict[str, str]]
    refs: list[dict[str, Any]]
    revisions: dict[str, Any] | None
    #: Server scenarios: the probe step and places an enforcement rule reads.
    probes: dict[str, Any] | None = None
    #: The sentences (scenarios/_sentences.yaml) its refs name.
    sentences: tuple[str, ...] = ()
    #: What a generic rule reads from the check (``with:``): its method, definition, …
    params: dict[str, Any] = field(default_factory=dict)
    #: Earlier checks this one's result follows from (``follows:``, judged in order).
    follows: tuple[dict[str, Any], ...] = ()

    def refs_for(self, revision: str, transport: str | None = None) -> list[dict[str, Any]]:
        """The references whose window holds ``revision``; with ``transport`` (``stdio`` or
        ``http``), without those about the other transport (a ref's ``transport``: the
        sentence of one transport's page, such as what may go on stdout)."""
        return [
            r
            for r in self.refs
            if in_window(revision, r) and r.get("transport", transport) == transport
        ]


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    description: str
    path: Path
    raw: dict[str, Any]
    revisions: dict[str, Any]
    variants: list[str]
    requires: list[str]
    steps: list[dict[str, Any]]
    checks: list[Check]
    #: ``client``: the peer plays it against client targets; ``server``: the scripted client
    #: plays it against server targets; ``proxy``: both, the proxy between them.
    side: str = "client"

    @property
    def file_hash(self) -> str:
        """sha256 of the scenario as the judge reads it, its checks and the common checks
        expanded (inherited gate grades, refs resolved from the sentence file): a change that
        alters no expanded check — moving a grade or a quote to a shared file — keeps the
        cached verdicts, and a fixed line number in the sentence file re-judges the cells."""
        material = {
            "scenario": {k: v for k, v in self.raw.items() if k != "checks"},
            "checks": [_judged(c) for c in [*self.checks, *common_checks(self.side)]],
        }
        text = json.dumps(material, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def plays(self, revision: str) -> bool:
        return in_window(revision, self.revisions)


def parse_scenario(data: object, source: Path, *, expected_id: str | None = None) -> Scenario:
    """Validate one scenario (schema, then semantics) and build a :class:`Scenario`."""
    check_schema(data, SCENARIO_SCHEMA, source, remember=True)
    assert isinstance(data, dict)
    grounds_proof = _grounds_proof(data, source)
    data = expand_probe(data, source)
    sid = str(data["id"])
    if expected_id is not None and sid != expected_id:
        raise CompareError(
            f"{source}: key id: {sid!r} does not match the file name {expected_id!r}",
            f"rename the file to {sid}.yaml",
        )
    _check_window(data["revisions"], "revisions", source)
    labels: set[str] = set()
    side = str(data.get("side", "client"))
    if ("upstream_steps" in data) != (side == "proxy"):
        raise CompareError(
            f"{source}: key upstream_steps: {'required' if side == 'proxy' else 'only'} for"
            " side: proxy",
            "a proxy scenario gives the host's steps and the upstream peer's upstream_steps",
        )
    if "propose_version" in data and side != "server":
        raise CompareError(
            f"{source}: key propose_version: only for side: server",
            "only the scripted client (a server cell's) proposes a version of our choosing",
        )
    if ("model" in data) != ("model" in data.get("requires", [])) or (
        "model" in data and side != "client"
    ):
        raise CompareError(
            f"{source}: key model: a client scenario's, and beside requires: [model]",
            "the stand-in model asks a client for a tool call; a scenario that has it plays"
            " only where there is one",
        )
    if ("session" in data.get("requires", [])) and "host_session" not in data:
        raise CompareError(
            f"{source}: key requires: session without a host_session to make",
            "give the requests under host_session:, or drop session from requires",
        )
    if "host_session" in data and side != "client":
        raise CompareError(
            f"{source}: key host_session: only a client scenario's",
            "a session script is made by a host of ours, which only client cells run",
        )
    if "host_session" in data:
        check_requests(data["host_session"], source)
    if "initialized_delay_s" in data and side != "server":
        raise CompareError(
            f"{source}: key initialized_delay_s: only for side: server",
            "only the scripted client (a server cell's) sends notifications/initialized",
        )
    for key in ("steps", "upstream_steps"):
        for i, step in enumerate(data.get(key, [])):
            # the scripted client labels its own handshake "initialize"
            label = step.get("label")
            if label in labels or (label == "initialize" and side != "client"):
                raise CompareError(f"{source}: key {key}.{i}.label: {label!r} used twice", None)
            if label:
                labels.add(label)
    if side == "server" and _opens_with_discover(data["revisions"]):
        # from 2026-07-28 the scripted client opens with its own server/discover probe,
        # labelled "discover" (compare.peer.client._modern), as it labels "initialize" before
        if "discover" in labels:
            raise CompareError(f"{source}: key steps: the label 'discover' is the probe's", None)
        labels.add("discover")
    _check_releases(data, side, source)
    _check_requests(data, side, source)
    _check_fixture_steps(data, side, source)
    sentences = load_sentences(sentences_file(source.parent))
    requests = step_requests(data)
    answer = data.get("answer_revision")
    checks: list[Check] = []
    seen: set[str] = set()
    for i, raw in enumerate(data["checks"]):
        if raw["id"] in seen or raw["id"] in {c.id for c in common_checks(side)}:
            raise CompareError(
                f"{source}: key checks.{i}.id: {raw['id']!r} used twice",
                "ids must be unique, and distinct from the common checks in _wire.yaml",
            )
        seen.add(raw["id"])
        plays = _meet(data["revisions"], raw.get("revisions"))
        checks.append(
            _build_check(
                raw, f"checks.{i}", source, labels, side, plays, sentences, requests, answer
            )
        )
    _check_follows(checks, source)
    _check_indexes(checks, len(data.get("host_session") or []), source)
    if grounds_proof is None or not _proofs.holds("grounds", grounds_proof):
        _lint_grounds(checks, data["revisions"], source, side)
        if grounds_proof is not None:
            _proofs.record("grounds", grounds_proof)
    return Scenario(
        id=sid,
        title=data["title"],
        description=data["description"],
        path=source,
        # the checks as the judge reads them (gate grades inherited, sentences expanded), so
        # every reader of ``raw`` (the site's cell pages) sees what it saw before they moved
        raw={
            **data,
            "checks": [_expanded(r, c) for r, c in zip(data["checks"], checks, strict=True)],
        },
        revisions=data["revisions"],
        variants=list(data.get("variants", [])),
        requires=list(data.get("requires", [])),
        steps=list(data["steps"]),
        checks=checks,
        side=side,
    )


def _check_indexes(checks: list[Check], script: int, source: Path) -> None:
    """A parameter that names a request of the scenario's ``host_session`` names one it has."""
    for i, check in enumerate(checks):
        for name, spec in RULES[check.rule].params.items():
            if spec.kind == "index" and name in check.params and int(check.params[name]) >= script:
                raise CompareError(
                    f"{source}: key checks.{i}.with.{name}: host_session has {script}"
                    f" request(s), so no request {check.params[name]}",
                    "count from 0",
                )


def _check_follows(checks: list[Check], source: Path) -> None:
    """A ``follows`` entry names an earlier check of the scenario, outcomes that check has,
    and (``own``, ``reads``) outcomes of its own: the judge reads them in order, so a check
    can only follow one it comes after."""
    earlier: dict[str, Check] = {}
    for i, check in enumerate(checks):
        for j, entry in enumerate(check.follows):
            where = f"{source}: key checks.{i}.follows.{j}"
            other = earlier.get(str(entry["check"]))
            if other is None:
                raise CompareError(
                    f"{where}.check: {entry['check']!r} is not an earlier check of this scenario",
                    "a check follows only from a check listed before it",
                )
            for key, pool in (("when", other.outcomes), ("own", check.outcomes)):
                unknown = [o for o in entry.get(key, []) if o not in pool]
                if unknown:
                    raise CompareError(
                        f"{where}.{key}: {unknown} not graded by check"
                        f" {(other if key == 'when' else check).id!r}",
                        "name outcomes that check's outcomes grade",
                    )
            if entry["reads"] not in check.outcomes:
                raise CompareError(
                    f"{where}.reads: {entry['reads']!r} not graded by check {check.id!r}",
                    "grade the outcome the check reads when it follows from another",
                )
        earlier[check.id] = check


def _check_fixture_steps(data: dict[str, Any], side: str, source: Path) -> None:
    """``fs`` and ``race`` steps change the cell's fixture, which only a server scenario's
    scripted client owns; a race names a probe operation and place the scenario defines."""
    probe = data.get("probe") or {}
    for i, step in enumerate(data.get("steps", [])):
        kind = next((k for k in ("fs", "race") if k in step), None)
        if kind is None:
            continue
        where = f"{source}: key steps.{i}.{kind}"
        if side != "server" or not data.get("fixture"):
            raise CompareError(
                f"{where}: only a server scenario with a fixture changes its fixture",
                "move the step into a side: server scenario that declares fixture",
            )
        race = step.get("race") or {}
        for key, names in (("operation", "operations"), ("place", "places"), ("direct", "places")):
            if key in race and race[key] not in (probe.get(names) or {}):
                raise CompareError(
                    f"{where}.{key}: {race[key]!r} is not one of probe.{names}",
                    f"name one of: {', '.join(sorted(probe.get(names) or {}))}",
                )


def _opens_with_discover(window: dict[str, Any]) -> bool:
    """Whether every revision of the window opens with server/discover (none has initialize)."""
    modern = first_modern()
    return modern is not None and release_order(str(window["from"])) >= release_order(modern)


def _check_releases(data: dict[str, Any], side: str, source: Path) -> None:
    """A ``release`` step sends a reply the peer held: only the peer plays it (a client
    scenario's steps, a proxy scenario's upstream_steps), and only for a held method."""
    held = set(data.get("hold_replies") or [])
    peer_key = {"client": "steps", "proxy": "upstream_steps"}.get(side)
    for key in ("steps", "upstream_steps"):
        for i, step in enumerate(data.get(key, [])):
            if "release" not in step:
                continue
            if key != peer_key:
                raise CompareError(
                    f"{source}: key {key}.{i}.release: only the peer plays a release step",
                    "put it in the peer's steps (upstream_steps in a proxy scenario)",
                )
            if step["release"] not in held:
                raise CompareError(
                    f"{source}: key {key}.{i}.release: {step['release']!r} is not in hold_replies",
                    f"add {step['release']!r} to hold_replies, or release a held method",
                )


@cache
def _methods() -> dict[str, frozenset[str]]:
    """The method lists of scenario.schema.json's ``$defs`` (server_request, client_request,
    input_request), read from the schema so the list is written once."""
    defs = json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))["$defs"]
    return {
        name: frozenset(defs[name]["enum"])
        for name in ("server_request", "client_request", "input_request")
    }


def _check_requests(data: dict[str, Any], side: str, source: Path) -> None:
    """Every ``request`` step names a method its sender may send: the peer (a client
    scenario's steps, a proxy scenario's upstream_steps) a server-to-client request, the
    scripted client (the other steps) a client-to-server one; an ``embed`` step, only the
    peer's, a request an InputRequiredResult may hold. So a typo or a method of the wrong
    direction is refused here, not played as a request the other end can only refuse."""
    if "client_features" in data and side == "client":
        raise CompareError(
            f"{source}: key client_features: only for side: server or proxy",
            "the scripted client declares them; a client scenario's client is the target",
        )
    if "serves" in data and side == "server":
        raise CompareError(
            f"{source}: key serves: only for side: client or proxy",
            "the peer serves what it serves as the server (to a client, or as a proxy's"
            " upstream); a server scenario's server is the target",
        )
    if "server_capabilities" in data and side == "server":
        raise CompareError(
            f"{source}: key server_capabilities: only for side: client or proxy",
            "the peer declares them when it is the server (a proxy's upstream); a server"
            " scenario's server is the target",
        )
    methods = _methods()
    peer_key = {"client": "steps", "proxy": "upstream_steps"}.get(side)
    for key in ("steps", "upstream_steps"):
        labels: set[str] = set()
        sent: set[str] = set()
        for i, step in enumerate(data.get(key, [])):
            _check_params_from(source, f"{key}.{i}", step, labels)
            by_peer = key == peer_key
            _check_scripted_only(source, f"{key}.{i}", step, by_peer, sent)
            if step.get("label"):
                labels.add(str(step["label"]))
                if "request" in step or "tool_call" in step:
                    sent.add(str(step["label"]))
            if "request" not in step and "paginate" not in step:
                continue
            method = step["request"] if "request" in step else step["paginate"]
            if not isinstance(method, str) or not method:
                raise CompareError(
                    f"{source}: key {key}.{i}: the step names no method ({method!r})",
                    "write the JSON-RPC method it sends, e.g. tools/list",
                )
            if "paginate" in step and by_peer:
                raise CompareError(
                    f"{source}: key {key}.{i}.paginate: only the scripted client walks a list",
                    "move the step into a server scenario's steps",
                )
            if "meta" in step and by_peer:
                raise CompareError(
                    f"{source}: key {key}.{i}.meta: only the scripted client's requests carry"
                    " a _meta of ours",
                    "drop meta, or move the step into the scripted client's steps (a server"
                    " scenario's steps, a proxy scenario's host steps)",
                )
            if "embed" in step and not by_peer:
                raise CompareError(
                    f"{source}: key {key}.{i}.embed: only the peer embeds a request",
                    "put it in the peer's steps (upstream_steps in a proxy scenario)",
                )
            kind = (
                "input_request"
                if "embed" in step
                else ("server_request" if by_peer else "client_request")
            )
            if method not in methods[kind]:
                who = {
                    "input_request": "an InputRequiredResult may embed",
                    "server_request": "a server may send a client (the peer plays the server)",
                    "client_request": "a client may send a server (the scripted client plays it)",
                }[kind]
                raise CompareError(
                    f"{source}: key {key}.{i}.request: {method!r} is not a request {who} at "
                    "any pinned revision",
                    f"use one of {', '.join(sorted(methods[kind]))} (scenario.schema.json "
                    f"$defs.{kind})",
                )


def _check_scripted_only(
    source: Path | str, where: str, step: dict[str, Any], by_peer: bool, sent: set[str]
) -> None:
    """``wait: false`` and ``cancel`` are the scripted client's (the peer answers; it does
    not leave its own requests open to cancel them), and a cancel names an earlier request
    or tool_call step by its label, so a typo is refused here, not played as a cancel of
    nothing."""
    for name in ("wait", "cancel", "omit_id"):
        if name in step and by_peer:
            raise CompareError(
                f"{source}: key {where}.{name}: only the scripted client's steps take {name}",
                "move the step into a server or proxy scenario's steps",
            )
    if "wait" in step and "request" not in step and "tool_call" not in step:
        raise CompareError(
            f"{source}: key {where}.wait: only a request or tool_call step can be left open",
            "put wait beside request or tool_call",
        )
    for name in ("reason", "omit_id"):
        if name in step and "cancel" not in step:
            raise CompareError(
                f"{source}: key {where}.{name}: only a cancel step takes {name}",
                "put it beside cancel",
            )
    if "cancel" in step and step["cancel"] not in sent:
        raise CompareError(
            f"{source}: key {where}.cancel: no earlier request or tool_call step is labelled"
            f" {step['cancel']!r}",
            "name the label of the request to cancel, sent before this step (wait: false)",
        )
    if "token_of" in step and not by_peer:
        # the peer takes a token from a request it received; the scripted client is the one
        # that chooses tokens, so it has none to take
        raise CompareError(
            f"{source}: key {where}.token_of: only the peer's notify steps take token_of",
            "put it in the peer's steps (upstream_steps in a proxy scenario)",
        )


def _check_params_from(
    source: Path | str, where: str, step: dict[str, Any], labels: set[str]
) -> None:
    """``params_from`` reads an answer that exists by then: an earlier step's label (or one
    of a walk's later pages, ``<label>:page-<n>``), on a request step."""
    spec = step.get("params_from")
    if not spec:
        return
    if "request" not in step:
        raise CompareError(
            f"{source}: key {where}.params_from: only a request step fills its params",
            "put params_from beside request",
        )
    for name, entry in spec.items():
        origin = str(entry.get("from", "")).split(":page-")[0]
        if origin not in labels:
            raise CompareError(
                f"{source}: key {where}.params_from.{name}.from: no earlier step is labelled"
                f" {origin!r}",
                "name the label of a request or paginate step before this one",
            )


def _expanded(raw: dict[str, Any], check: Check) -> dict[str, Any]:
    return {**raw, "outcomes": check.outcomes, "refs": check.refs}


def _judged(check: Check) -> dict[str, Any]:
    """What of a check reaches a verdict: everything but its provenance."""
    fields = ("id", "title", "rule", "expected", "outcomes", "refs", "revisions", "probes")
    judged = {k: getattr(check, k) for k in fields}
    if check.params:  # absent when empty: a check without with: hashes as it always did
        judged["params"] = check.params
    if check.follows:  # the same: absent when empty
        judged["follows"] = list(check.follows)
    return judged


def _meet(a: dict[str, Any], b: dict[str, Any] | None) -> dict[str, Any]:
    """The revisions both windows hold (a check's own window inside its scenario's)."""
    if not b:
        return a
    untils = [u for u in (a.get("until"), b.get("until")) if u is not None]
    return {"from": max(a["from"], b["from"]), "until": min(untils) if untils else None}


@cache
def gates(side: str) -> dict[str, dict[str, str]]:
    """The default grade of each gate outcome of ``side`` (``scenarios/_gates.yaml``)."""
    data = load_yaml(GATES_FILE)
    check_schema(data, GATES_SCHEMA, GATES_FILE, remember=True)
    assert isinstance(data, dict)
    return dict(data.get(side) or {})


def _build_check(
    raw: dict[str, Any],
    where: str,
    source: Path,
    labels: set[str],
    side: str,
    plays: dict[str, Any] | None,
    sentences: dict[str, Sentence],
    requests: set[str] | None = None,
    answer_revision: str | None = None,
) -> Check:
    rule = RULES.get(raw["rule"])
    if rule is None:
        raise CompareError(
            f"{source}: key {where}.rule: unknown rule {raw['rule']!r}",
            "known rules: " + ", ".join(sorted(RULES)),
        )
    params = dict(raw.get("with") or {})
    check_params(
        rule,
        params,
        f"{source}: key {where}",
        labels,
        requests or set(),
        _played_at(plays, answer_revision),
    )
    produces = rule.produces(params)
    defaults = gates(side)
    # the check's own grades win; a gate outcome it leaves out gets the side's default
    outcomes = dict(raw["outcomes"]) | {
        o: g for o, g in defaults.items() if o in produces and o not in raw["outcomes"]
    }
    # an outcome a check reads when it follows from an earlier one is graded here too
    graded = set(outcomes)
    produced = set(produces) | {str(f["reads"]) for f in raw.get("follows", [])}
    if graded != produced:
        missing = ", ".join(sorted(produced - graded)) or "-"
        extra = ", ".join(sorted(graded - produced)) or "-"
        raise CompareError(
            f"{source}: key {where}.outcomes: rule {raw['rule']} produces "
            f"{sorted(produced)}; ungraded: {missing}; unknown: {extra}",
            f"grade exactly the outcomes the rule produces (the gate outcomes of side {side}"
            f" are graded in {GATES_FILE.name} unless the check grades them)",
        )
    refs, names = expand_refs(raw["refs"], plays, sentences, f"{source}: key {where}")
    for need in rule.labels:
        if need not in labels:
            raise CompareError(
                f"{source}: key {where}.rule: {raw['rule']} needs a step labelled {need!r}",
                "add label: to the step it reads",
            )
    for j, ref in enumerate(refs):
        _check_window(ref, f"{where}.refs.{j}", source)
    if raw.get("revisions"):
        _check_window(raw["revisions"], f"{where}.revisions", source)
    return Check(
        id=raw["id"],
        title=raw["title"],
        rule=raw["rule"],
        expected=raw["expected"],
        outcomes=outcomes,
        refs=refs,
        revisions=raw.get("revisions"),
        probes=raw.get("probes"),
        sentences=names,
        params=params,
        follows=tuple(raw.get("follows", [])),
    )


def _played_at(plays: dict[str, Any] | None, answer_revision: str | None) -> list[str]:
    """The pinned revisions a check is judged at (``plays``), and the revision the peer
    answers initialize with when the scenario fixes one: a rule validates at either."""
    from compare.pin import load_pins

    played = [r.name for r in load_pins().revisions if in_window(r.name, plays)]
    if answer_revision and answer_revision not in played:
        played.append(answer_revision)
    return played


def _grounds_proof(data: dict[str, Any], source: Path) -> str | None:
    """The proof key of a scenario's grounds (``_lint_grounds``): what the lint reads — the
    scenario, the shared files of its folder and of the shipped one (gates, sentences, common
    checks, operations), the pins and the state of each fetched spec page (a page fetched,
    replaced or removed later is a new key) — and the code that reads it. None when the
    scenario holds a value JSON cannot carry exactly: linted every time."""
    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    shared = _shared_grounds(source.parent)
    if shared is None:
        return None
    code, rest = shared
    return _proofs.key(
        "grounds", [code, source.stem.encode(), text.encode("utf-8", "surrogatepass"), *rest]
    )


#: While one load of a folder runs (``_load``), the grounds every scenario of it shares, read
#: once: the shared files and the state of every pinned spec file are the same for each of
#: them, and reading them again per scenario was half the cost of loading the scenarios.
_SHARED_GROUNDS: dict[Path, tuple[bytes, list[bytes]] | None] | None = None


def _shared_grounds(folder: Path) -> tuple[bytes, list[bytes]] | None:
    """The code identity, and the shared files' and pinned spec files' state, for the
    scenarios of ``folder`` (None when a shared file cannot be read)."""
    if _SHARED_GROUNDS is not None and folder in _SHARED_GROUNDS:
        return _SHARED_GROUNDS[folder]
    found = _read_shared_grounds(folder)
    if _SHARED_GROUNDS is not None:
        _SHARED_GROUNDS[folder] = found
    return found


def _read_shared_grounds(folder: Path) -> tuple[bytes, list[bytes]] | None:
    from compare.pin import load_pins, spec_cache

    here = Path(__file__).resolve()
    code = _proofs.code_identity(
        here,
        here.parent.parent / "judge" / "_grounds.py",
        here.parent.parent / "judge" / "_sentences.py",
        here.parent.parent / "cite" / "_clause.py",
        here.parent.parent / "cite" / "_text.py",
    )
    parts: list[bytes] = []
    shared = {p for where in (SCENARIOS_DIR, folder) for p in where.glob("_*.yaml")}
    for path in sorted(shared):
        try:
            parts.append(str(path).encode() + b"\0" + path.read_bytes())
        except OSError:
            return None
    pins = load_pins()
    parts.append(pins.origin.read_bytes())
    cache = spec_cache(pins.commit)
    for pinned in pins.files:
        try:
            stat = (cache / pinned.path).stat()
            state = f"{pinned.path} {stat.st_ino} {stat.st_size} {stat.st_mtime_ns}"
        except OSError:
            state = f"{pinned.path} absent"
        parts.append(state.encode())
    return code, parts


def _lint_grounds(
    checks: list[Check], window: dict[str, Any], source: Path, side: str = "client"
) -> None:
    """Refuse a scenario whose fail / non-strict grades lack normative text (see _grounds)."""
    from compare.judge._grounds import pinned_clause, unearned_passes, ungrounded
    from compare.pin import load_pins

    revisions = [r.name for r in load_pins().revisions]
    clause = pinned_clause()
    every = [*checks, *common_checks(side)]
    problems = [p for check in every for p in unearned_passes(check)] + [
        p
        for check in every
        for p in ungrounded(check, revisions, lambda rev: in_window(rev, window), clause)
    ]
    if problems:
        shown = "; ".join(problems[:5]) + (
            f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        )
        raise CompareError(
            f"{source}: {shown}",
            "grade a pass only where another outcome of the check is graded fail or non-strict"
            " (else grade it informational, or not-exercised where what the check grades never"
            " happened); cite the MUST (for fail) or SHOULD (for non-strict) sentence of that"
            " revision in the check's refs (its quote must hold the keyword and the whole"
            " sentence, a lead-in with its list item; a wrapped sentence cites its line range"
            " path:L1-L2; `supports:`"
            " names the outcomes a ref grounds), or grade the outcome informational",
        )


def _check_window(window: dict[str, Any], where: str, source: Path) -> None:
    until = window.get("until")
    if until is not None and until < window["from"]:
        raise CompareError(
            f"{source}: key {where}: until {until} is before from {window['from']}",
            "swap them, or use until: null for 'still current'",
        )


COMMON_FILE = SCENARIOS_DIR / "_wire.yaml"
#: The common checks per side: a server's lines are held to the server's stdio rules.
COMMON_FILES = {
    "client": COMMON_FILE,
    "server": SCENARIOS_DIR / "_wire-server.yaml",
    "proxy": SCENARIOS_DIR / "_wire-proxy.yaml",
}


@cache
def common_checks(side: str = "client") -> list[Check]:
    """Checks every scenario of ``side`` gets (``scenarios/_wire.yaml``, for server scenarios
    ``_wire-server.yaml``): the connection itself."""
    path = COMMON_FILES[side]
    data = load_yaml(path)
    schema = json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))
    wrapper = {
        "type": "object",
        "additionalProperties": False,
        "required": ["checks"],
        "properties": {"checks": {"type": "array", "items": {"$ref": "#/$defs/check"}}},
        "$defs": schema["$defs"],
    }
    check_schema_value(data, wrapper, path, remember=True)
    sentences = load_sentences()
    return [
        _build_check(raw, f"checks.{i}", path, set(), side, raw.get("revisions"), sentences)
        for i, raw in enumerate(data["checks"])
    ]


def load_scenario_file(path: Path) -> Scenario:
    return parse_scenario(load_yaml(path), path, expected_id=path.stem)


def scenario_files(directory: Path | None = None) -> dict[str, Path]:
    """The scenario files of ``directory`` (default: the shipped ``scenarios/``) by id (a
    scenario's id is its file's name), sorted by id; none is read."""
    folder = directory or SCENARIOS_DIR
    if not folder.is_dir():
        raise CompareError(f"no scenarios folder at {folder}", "create one <id>.yaml per scenario")
    return {p.stem: p for p in sorted(folder.glob("[!_]*.yaml"))}


def load_scenarios(
    directory: Path | None = None, only: Iterable[str] | None = None
) -> list[Scenario]:
    """Every scenario in ``directory`` (default: the shipped ``scenarios/``), sorted by id;
    with ``only``, just those of these ids that have a file (a command that plays one
    scenario reads one file, not all of them)."""
    wanted = None if only is None else frozenset(only)
    key = ("scenarios", str(directory or SCENARIOS_DIR), wanted)
    return list(_memo.remember(key, lambda: _load(directory, wanted)))


def _load(directory: Path | None, wanted: frozenset[str] | None) -> tuple[Scenario, ...]:
    global _SHARED_GROUNDS
    files = scenario_files(directory)
    if wanted is not None:
        files = {i: p for i, p in files.items() if i in wanted}
    outer, _SHARED_GROUNDS = _SHARED_GROUNDS, {}  # the shared grounds, read once for all
    try:
        return tuple(load_scenario_file(p) for p in files.values())
    finally:
        _SHARED_GROUNDS = outer
