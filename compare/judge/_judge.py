"""The judge: from a cell's transcript and plan to its checks and its verdict.

Judging happens after the run, in the harness, so old transcripts can be re-judged when a
model or a rule changes (``mcp-compare run --rejudge``) without a client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeGuard

from compare.exchange._host_plan import HOST_PLAN, HOST_SESSION, MAX_RECORD_BYTES
from compare.exchange._scenarios import (
    COMMON_FILES,
    Check,
    Scenario,
    common_checks,
    in_window,
)
from compare.judge._transcript import read_transcript
from compare.judge._validate import NotJudged
from compare.judge._verdicts import UNGRADED, worst
from compare.judge.rules import RULES, Context
from compare.judge.rules._registry import Outcome
from compare.judge.rules.probes import fixture_changes, read_probes

#: Where a cell's model endpoint logs what the client asked of its model, one JSON a line
#: (``compare/hosts/model_endpoint.py``), and how much of it is read: a client's requests carry
#: its whole conversation, so they are large but bounded.
MODEL_LOG = "model-requests.jsonl"
_MODEL_LOG_BYTES = 32 << 20


def _model_log(cell: Path) -> list[dict[str, Any]]:
    """The requests the client sent the cell's model, in order; a line that is not a JSON
    object is left out (the endpoint writes whole lines, so only damage makes one)."""
    return _json_lines(cell / MODEL_LOG, _MODEL_LOG_BYTES) or []


def _host_session(cell: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """The requests our host was asked to make (its plan's ``session.requests``) and its
    record of them (None when it wrote none); a cell without a host plan has neither."""
    try:
        plan = json.loads((cell / HOST_PLAN).read_text(encoding="utf-8"))
        requests = plan["session"].get("requests") or []
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        requests = []
    return list(requests), _json_lines(cell / HOST_SESSION, MAX_RECORD_BYTES)


def _json_lines(path: Path, most: int) -> list[dict[str, Any]] | None:
    """The JSON objects of a log written one a line (the first ``most`` bytes), None when
    there is no file; a line that is not one is left out."""
    try:
        with path.open("rb") as handle:
            data = handle.read(most)
    except OSError:
        return None
    entries: list[dict[str, Any]] = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def judge_checks(
    scenario: Scenario,
    cell: Path,
    plan: dict[str, Any],
    known_revisions: list[str],
    process: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Evaluate every check of ``scenario`` (then the common wire checks) on the transcript."""
    tx = read_transcript(cell / "transcript.jsonl")
    revision = str(plan["revision"])
    requests, record = _host_session(cell)
    ctx = Context(
        tx,
        plan,
        revision,
        known_revisions,
        process,
        model_requests=_model_log(cell),
        host_requests=requests,
        host_session=record,
    )
    checks: list[dict[str, Any]] = []
    for check in [*scenario.checks, *common_checks(scenario.side)]:
        if check.revisions and not in_window(revision, check.revisions):
            continue
        entry: dict[str, Any] = {
            "id": check.id,
            "title": check.title,
            "expected": check.expected,
            # a ref about one transport's page only where the exchange travelled on it
            "refs": check.refs_for(revision, ctx.transport),
        }
        ctx.check_probes = check.probes
        ctx.params = check.params
        earlier = {c["id"]: c for c in checks}
        try:
            out = _follows(check, earlier, None)
            if out is None:
                own = RULES[check.rule].fn(ctx)
                out = _follows(check, earlier, own) or own
        except NotJudged as err:
            entry.update(verdict="error", outcome=None, observed="", reason=str(err), evidence=[])
        except Exception as err:  # a rule bug must not lose the cell; it is reported as such
            failure = f"{type(err).__name__}: {err}"
            entry.update(
                verdict="error",
                outcome=None,
                observed="",
                reason=f"not run, because the rule {check.rule} failed: {failure}",
                evidence=[],
            )
        else:
            grade = check.outcomes[out.name]
            entry.update(
                verdict=grade["verdict"],
                outcome=out.name,
                observed=out.observed,
                reason=f"{grade['means']} ({out.observed})" if out.observed else grade["means"],
                evidence=out.evidence,
            )
        checks.append(entry)
    facts: dict[str, Any] = {
        "client_info": ctx.init_params.get("clientInfo"),
        "client_protocol_version": ctx.init_params.get("protocolVersion"),
        "client_capabilities": ctx.init_params.get("capabilities"),
        "negotiated_revision": ctx.negotiated if ctx.initialize or ctx.modern_requests() else None,
        "transcript_damage": tx.damage,
        "wire_lines": len(tx.lines),
    }
    if scenario.raw.get("probe"):
        # The enforcement table the site draws (operation × place per probe step).
        facts["probes"] = [p.as_json() for p in read_probes(ctx)]
        facts["fixture_changes"] = fixture_changes(ctx)
    if ctx.initialize is None and ctx.modern_requests():
        meta = ctx.modern_requests()[0].params.get("_meta", {})
        facts["client_info"] = meta.get("io.modelcontextprotocol/clientInfo")
        facts["client_protocol_version"] = meta.get("io.modelcontextprotocol/protocolVersion")
        facts["client_capabilities"] = meta.get("io.modelcontextprotocol/clientCapabilities")
    return _writable(checks), _writable(facts)


def _follows(
    check: Check, earlier: dict[str, dict[str, Any]], own: Outcome | None
) -> Outcome | None:
    """The outcome ``check`` reads because an earlier check's result explains it (its
    ``follows``), or None. Without ``own`` (before the rule runs) only a precondition entry
    (no ``own`` list) applies, and the rule never runs; with it, an entry whose ``own``
    holds the rule's outcome. The observation names the earlier check, so one behaviour is
    graded once and the rest say where it is."""
    for entry in check.follows:
        before = earlier.get(str(entry["check"]))
        if before is None or before.get("outcome") not in entry["when"]:
            continue
        mine = entry.get("own")
        if own is None:
            if mine is not None:
                continue
        elif mine is None or own.name not in mine:
            continue
        said = f"follows from check {entry['check']} ({before['outcome']}): {entry['why']}"
        if own is not None and own.observed:
            said += f"; measured here: {own.observed}"
        evidence = own.evidence if own is not None else list(before.get("evidence") or [])
        return Outcome(str(entry["reads"]), said, evidence)
    return None


def _writable(value: Any) -> Any:
    """``value`` with every lone surrogate shown as its escape (``\\ud800``).

    A client can put ``"\\ud800"`` in any string it sends; JSON decodes it to a lone
    surrogate, which no UTF-8 writer accepts, so a verdict quoting it could not be written.
    """
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [_writable(v) for v in value]
    if isinstance(value, dict):
        return {_writable(k): _writable(v) for k, v in value.items()}
    return value


def read_done(cell: Path) -> dict[str, Any] | None:
    """The peer's own account of why it stopped, if it got to write one."""
    try:
        value = json.loads((cell / "done.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _seconds(bound: int | float) -> str:
    """A bound as a reader writes it (``20``, ``2.5``); an integer too large for a float
    (a hand-edited or damaged file) is shown as written rather than raising."""
    try:
        return f"{float(bound):g}"
    except OverflowError:
        return str(bound)


def overall(checks: list[dict[str, Any]], process: dict[str, Any]) -> tuple[str, str]:
    """The cell's verdict and a one-sentence reason a reader can check in the transcript."""
    if process.get("ended_by") == "timeout":
        # ``process`` may come back from a hand-edited verdict.json (``--rejudge``): the
        # bound is shown only when it is a number.
        bound = process.get("timeout_s")
        after = f" after {_seconds(bound)} s" if _is_number(bound) else ""
        return "error", f"timed out{after}; client killed"
    if process.get("setup_failed"):
        return "error", str(process["setup_failed"])
    verdict = worst([c["verdict"] for c in checks])
    culprit = next((c for c in checks if c["verdict"] == verdict), None)
    reason = f"{culprit['id']}: {culprit['reason']}" if culprit else "no checks"
    wire = {c.id for side in COMMON_FILES for c in common_checks(side)}
    own = [c for c in checks if c["id"] not in wire]
    if verdict in ("pass", *UNGRADED) and own and all(c["verdict"] in UNGRADED for c in own):
        # Nothing the scenario is about was graded (the client refused the revision, closed
        # before the scenario's step, the server never used the feature): a clean wire alone
        # must not read as a pass. A check whose precondition never held says why first.
        verdict = worst([c["verdict"] for c in own])
        culprit = next(c for c in own if c["verdict"] == verdict)
        return verdict, f"{culprit['id']}: {culprit['reason']}"
    if verdict in ("pass", *UNGRADED) and checks:
        reason = "; ".join(f"{c['id']}: {c.get('outcome')}" for c in checks)
    extra = []
    if process.get("sigkill"):
        extra.append("the client ignored SIGTERM and was killed")
    if process.get("leftover_killed"):
        extra.append(f"{process['leftover_killed']} leftover process(es) killed")
    if extra:
        reason += " (" + "; ".join(extra) + ")"
    return verdict, reason


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)
