"""Judge rules: each reads a transcript and names one outcome; the scenario YAML grades it.

A rule returns an outcome name, what it observed and the transcript lines that show it. It
never decides pass or fail itself — that lives in the scenario file beside the spec
references, so a reviewer can see and change a grading without reading code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compare.exchange._transcript import Line, Transcript
from compare.exchange._uri import judge_file_uri, rank
from compare.exchange._validate import validate_as, validate_line

# One era test for the peer and the judge: the peer is standard-library only and importable
# without side effects, so the judge reads the very function the peer plays by.
from compare.exchange.peer import META_VERSION, is_modern

#: URI outcomes that name the right folder: the correct form, and file-URI forms RFC 8089
#: allows besides ``file:///`` (graded apart from a broken encoding of the same folder).
OTHER_FORM = ("localhost-authority", "no-authority")
RIGHT_PLACE = ("encoded", "non-ascii-raw", *OTHER_FORM)
RIGHT_PATH_BAD_FORM = ("space-unencoded", "invalid-uri")
#: The right folder, written so that it is not a correct file:// URI.
MISENCODED = ("non-ascii-raw", *RIGHT_PATH_BAD_FORM, "hash-unencoded")
ADDED_ROOT = "added root ü"


@dataclass
class Context:
    """Everything a rule may read about one cell."""

    tx: Transcript
    plan: dict[str, Any]
    revision: str
    known_revisions: list[str]
    process: dict[str, Any] | None = None

    @property
    def workspace(self) -> str:
        return str(self.plan.get("workspace", ""))

    @property
    def initialize(self) -> Line | None:
        return next(
            (x for x in self.tx.incoming() if x.is_request and x.method == "initialize"), None
        )

    @property
    def init_params(self) -> dict[str, Any]:
        init = self.initialize
        return init.params if init else {}

    @property
    def roots_capability(self) -> dict[str, Any] | None:
        caps = self.init_params.get("capabilities")
        roots = caps.get("roots") if isinstance(caps, dict) else None
        if roots is None:
            roots = self._modern_caps().get("roots")
        return roots if isinstance(roots, dict) else None

    def _modern_caps(self) -> dict[str, Any]:
        for line in self.tx.incoming():
            meta = line.params.get("_meta")
            if isinstance(meta, dict):
                caps = meta.get("io.modelcontextprotocol/clientCapabilities")
                if isinstance(caps, dict):
                    return caps
        return {}

    @property
    def negotiated(self) -> str:
        """The revision the exchange ran at: the peer's initialize answer, else the cell's."""
        if self.initialize is not None:
            return str(self.plan.get("answer_revision", self.revision))
        return self.revision

    def ended_at(self) -> int | None:
        """The note where the connection ended: stdin closed, a signal, or a failed write."""
        for n, note in self.tx.notes:
            if note.get("event") in ("stdin-closed", "signal", "write-failed"):
                return n
        return None

    def write_failed(self, n: int | None) -> bool:
        """Whether the peer's line ``n`` never reached the client (its write failed)."""
        return n is not None and any(
            note.get("event") == "write-failed" and note.get("n") == n for _, note in self.tx.notes
        )

    def modern_requests(self) -> list[Line]:
        out = []
        for line in self.tx.incoming():
            meta = line.params.get("_meta")
            if line.is_request and isinstance(meta, dict) and is_modern(meta.get(META_VERSION)):
                out.append(line)
        return out

    def reply(self, label: str) -> tuple[str, Line | None]:
        """How the client answered the peer's request of step ``label``.

        ``silence`` only when the connection stayed open until the step's bound ran out with
        no answer (a request left hanging); ``closed`` when the connection ended first, which
        says nothing about whether an answer would have come.
        """
        trace = self.tx.steps.get(label)
        if trace is None or trace.id is None:
            sent = self._sent_after(trace.start_n if trace else None, trace)
            if sent is None:
                return "not-asked", None
            rid = sent.obj.get("id")
        else:
            rid = trace.id
        line = self.tx.response_to(rid)
        if line is not None:
            return ("error" if "error" in line.obj else "result"), line
        closed = self.ended_at()
        bound = trace.done_n if trace is not None else None
        if closed is not None and (bound is None or closed < bound):
            return "closed", None
        if (self.process or {}).get("ended_by") == "self" and bound is None:
            return "closed", None
        return "silence", None

    def _sent_after(self, start: int | None, trace: Any) -> Line | None:
        if start is None or trace is None:
            return None
        method = trace.step.get("request")
        return next(
            (x for x in self.tx.lines if x.dir == "out" and x.n > start and x.method == method),
            None,
        )


@dataclass
class Outcome:
    name: str
    observed: str
    evidence: list[int] = field(default_factory=list)


RuleFn = Callable[[Context], Outcome]
#: Runs before a rule: an outcome when the exchange never reached what the rule reads.
Gate = Callable[[Context], Outcome | None]


@dataclass(frozen=True)
class Rule:
    name: str
    outcomes: tuple[str, ...]
    labels: tuple[str, ...]
    fn: RuleFn


RULES: dict[str, Rule] = {}


def rule(
    name: str, outcomes: tuple[str, ...], labels: tuple[str, ...] = (), gate: Gate | None = None
) -> Callable[[RuleFn], RuleFn]:
    """Register ``fn`` as rule ``name``; with a ``gate``, the gate's outcome (when it names
    one) is the rule's, so the rule body only reads an exchange that got far enough."""

    def register(fn: RuleFn) -> RuleFn:
        RULES[name] = Rule(name, outcomes, labels, fn if gate is None else _gated(gate, fn))
        return fn

    return register


def _gated(gate: Gate, fn: RuleFn) -> RuleFn:
    def gated(ctx: Context) -> Outcome:
        early = gate(ctx)
        return early if early is not None else fn(ctx)

    return gated


#: Outcomes of rules that need the exchange past initialization when it never got there.
EARLY = ("no-initialize", "exited-before-initialize", "version-refused")


def measured_start_failure(ctx: Context) -> Outcome | None:
    """The client exited with an error before it wrote a byte, in a variant whose target says
    that is what it measures (``start_failure_findings``); None otherwise."""
    p = ctx.process or {}
    failed = p.get("ended_by") == "self" and p.get("exit_code") not in (0, None)
    if failed and not ctx.tx.incoming() and ctx.plan.get("start_failure_is_finding"):
        return Outcome(
            "exited-before-initialize",
            f"the client exited with {p.get('exit_code')} before it sent a single line;"
            " its stderr (on the cell page) says why",
        )
    return None


def stopped_early(ctx: Context) -> Outcome | None:
    """Why the scenario never got past the handshake, if it did not.

    ``exited-before-initialize``: in a variant whose target declares that a start failure is
    what it measures (``start_failure_findings``: an SDK rejecting the roots its own docs
    show), the client exited with an error before it wrote a byte — a finding about the
    client, with its stderr as the evidence. ``no-initialize``: otherwise, it sent neither
    initialize nor a 2026-07-28 request (it crashed at start, hung, or left), so nothing the
    scenario tests happened and the cell is an error to look into, never a finding.
    ``version-refused``: it asked
    for one version, the peer answered another and the client left without initialized —
    the lifecycle page says a client SHOULD disconnect from a version it does not support,
    so this is allowed behaviour, measured per revision by version-window.
    """
    init = ctx.initialize
    if init is None and not ctx.modern_requests():
        p = ctx.process or {}
        measured = measured_start_failure(ctx)
        if measured is not None:
            return measured
        how = ""
        if p.get("ended_by") == "self":
            how = f" (it exited with {p.get('exit_code')})"
        elif p.get("ended_by"):
            how = f" (ended by {p.get('ended_by')})"
        return Outcome("no-initialize", f"the client ended before initialize{how}")
    if init is None:
        return None
    asked = ctx.init_params.get("protocolVersion")
    answer = ctx.plan.get("answer_revision", ctx.revision)
    went_on = any(x.method == "notifications/initialized" for x in ctx.tx.incoming())
    left = ctx.ended_at() is not None or (ctx.process or {}).get("ended_by") == "self"
    if asked != answer and not went_on and left:
        return Outcome(
            "version-refused",
            f"client does not accept {answer}: it asked for {asked!r} and left without "
            "notifications/initialized",
            _ev(init),
        )
    return None


def _ev(*lines: Line | None) -> list[int]:
    return [x.n for x in lines if x is not None]


def _roots(value: Any) -> list[dict[str, Any]]:
    roots = value.get("roots") if isinstance(value, dict) else None
    return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []


def best_root(roots: list[dict[str, Any]], folder: str) -> tuple[str, str, dict[str, Any] | None]:
    """The root that best matches ``folder``: (uri outcome, explanation, root)."""
    best: tuple[str, str, dict[str, Any] | None] = ("wrong-path", "no roots listed", None)
    for root in roots:
        uri = root.get("uri")
        if not isinstance(uri, str):
            continue
        outcome, why = judge_file_uri(uri, folder)
        if best[2] is None or rank(outcome) > rank(best[0]):
            best = (outcome, f"{uri!r}: {why}", root)
    return best


# -- handshake --------------------------------------------------------------------------------
@rule(
    "initialize-valid",
    ("valid", "invalid", "absent", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _initialize_valid(ctx: Context) -> Outcome:
    init = ctx.initialize
    if init is None or init.raw is None:
        return Outcome("absent", "no initialize request in the transcript")
    ok, errors = validate_line(init.raw, ctx.revision)
    if ok:
        return Outcome("valid", f"valid at {ctx.revision}", _ev(init))
    return Outcome("invalid", "; ".join(errors[:5]), _ev(init))


@rule(
    "protocol-version",
    ("known", "unknown", "absent", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _protocol_version(ctx: Context) -> Outcome:
    init = ctx.initialize
    version = ctx.init_params.get("protocolVersion")
    if not isinstance(version, str):
        return Outcome("absent", "no protocolVersion", _ev(init))
    known = version in ctx.known_revisions and version != "draft"
    return Outcome("known" if known else "unknown", f"asked for {version}", _ev(init))


@rule("client-info", ("present", "absent", "exited-before-initialize"), gate=measured_start_failure)
def _client_info(ctx: Context) -> Outcome:
    info = ctx.init_params.get("clientInfo")
    if isinstance(info, dict) and isinstance(info.get("name"), str) and "version" in info:
        return Outcome("present", f"{info['name']} {info.get('version')}", _ev(ctx.initialize))
    return Outcome("absent", f"clientInfo = {info!r}", _ev(ctx.initialize))


@rule(
    "roots-capability",
    ("roots-list-changed", "roots", "absent", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _roots_capability(ctx: Context) -> Outcome:
    roots = ctx.roots_capability
    if roots is None:
        return Outcome("absent", "no roots capability", _ev(ctx.initialize))
    name = "roots-list-changed" if roots.get("listChanged") is True else "roots"
    return Outcome(name, f"roots = {roots}", _ev(ctx.initialize))


@rule(
    "initialized-sent",
    ("sent", "absent", "version-refused", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _initialized_sent(ctx: Context) -> Outcome:
    line = next((x for x in ctx.tx.incoming() if x.method == "notifications/initialized"), None)
    if line is None:
        early = stopped_early(ctx)
        if early is not None and early.name == "version-refused":
            return early
        return Outcome("absent", "no notifications/initialized")
    return Outcome("sent", f"at t={line.t:.3f} s", _ev(line))


@rule(
    "discover-first",
    ("discover", "initialize-only", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _discover_first(ctx: Context) -> Outcome:
    disc = next((x for x in ctx.tx.incoming() if x.method == "server/discover"), None)
    init = ctx.initialize
    if disc is not None and (init is None or disc.n < init.n):
        return Outcome("discover", "server/discover before initialize", _ev(disc, init))
    return Outcome("initialize-only", "no server/discover before initialize", _ev(init))


# -- roots/list -------------------------------------------------------------------------------
_NO_ANSWER = {
    "silence": "no response while the connection stayed open for the step's whole bound",
    "closed": "the client ended the connection before it answered",
    "not-asked": "the request was never sent: the client stopped first",
}
UNDECLARED = "no roots capability; see roots-undeclared"


def _without_roots(name: str, observed: str) -> Gate:
    """A gate: the handshake never completed, or the client has no roots capability (outcome
    ``name``), so a rule about its roots does not apply."""

    def gate(ctx: Context) -> Outcome | None:
        early = stopped_early(ctx)
        if early is not None:
            return early
        if ctx.roots_capability is None:
            return Outcome(name, observed, _ev(ctx.initialize))
        return None

    return gate


_early_or_undeclared = _without_roots("undeclared", UNDECLARED)
_early_or_no_roots = _without_roots("no-roots", "no roots capability")


@rule(
    "roots-answered",
    ("result", "error", "silence", "closed", "not-asked", "undeclared", *EARLY),
    ("roots",),
    gate=_without_roots("undeclared", "the client did not declare roots"),
)
def _roots_answered(ctx: Context) -> Outcome:
    kind, line = ctx.reply("roots")
    observed = line.raw[:300] if line and line.raw else _NO_ANSWER[kind]
    return Outcome(kind, observed, _ev(line))


def _roots_result(ctx: Context, label: str) -> tuple[Any, Line | None]:
    kind, line = ctx.reply(label)
    if kind != "result" or line is None:
        return None, None
    return line.obj.get("result"), line


@rule(
    "roots-result-valid",
    ("valid", "invalid", "no-result", "undeclared", *EARLY),
    ("roots",),
    gate=_early_or_undeclared,
)
def _roots_result_valid(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    if line is None:
        return Outcome("no-result", "no roots/list result")
    ok, errors = validate_as(result, "ListRootsResult", ctx.negotiated)
    if ok:
        return Outcome("valid", f"valid ListRootsResult at {ctx.negotiated}", _ev(line))
    return Outcome("invalid", f"at {ctx.negotiated}: " + "; ".join(errors[:5]), _ev(line))


@rule(
    "workspace-root",
    ("present", "absent", "no-result", "undeclared", *EARLY),
    ("roots",),
    gate=_early_or_undeclared,
)
def _workspace_root(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    if line is None:
        return Outcome("no-result", "no roots/list result")
    outcome, why, _ = best_root(_roots(result), ctx.workspace)
    if outcome in RIGHT_PLACE + RIGHT_PATH_BAD_FORM:
        return Outcome("present", why, _ev(line))
    return Outcome("absent", why, _ev(line))


@rule(
    "root-uri-encoding",
    (
        *RIGHT_PLACE,
        *RIGHT_PATH_BAD_FORM,
        "hash-unencoded",
        "query",
        "host-authority",
        "relative",
        "not-file",
        "wrong-path",
        "no-result",
        "undeclared",
        *EARLY,
    ),
    ("roots",),
    gate=_early_or_undeclared,
)
def _root_uri_encoding(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    roots = _roots(result)
    if line is None or not roots:
        return Outcome("no-result", "no roots to judge", _ev(line))
    outcome, why, _ = best_root(roots, ctx.workspace)
    return Outcome(outcome, why, _ev(line))


@rule(
    "root-name",
    ("named", "unnamed", "no-result", "undeclared", *EARLY),
    ("roots",),
    gate=_early_or_undeclared,
)
def _root_name(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "roots")
    _, _, root = best_root(_roots(result), ctx.workspace)
    if line is None or root is None:
        return Outcome("no-result", "no roots", _ev(line))
    name = root.get("name")
    if isinstance(name, str) and name:
        return Outcome("named", f"name {name!r}", _ev(line))
    return Outcome("unnamed", "no name", _ev(line))


@rule(
    "undeclared-answer",
    (
        "method-not-found",
        "invalid-request",
        "other-error",
        "empty-list",
        "roots-returned",
        "silence",
        "closed",
        "not-asked",
        "declared",
        *EARLY,
    ),
    ("roots",),
    gate=stopped_early,
)
def _undeclared_answer(ctx: Context) -> Outcome:
    if ctx.roots_capability is not None:
        return Outcome("declared", f"roots = {ctx.roots_capability}", _ev(ctx.initialize))
    kind, line = ctx.reply("roots")
    if line is None:
        return Outcome(kind, _NO_ANSWER[kind])
    observed = (line.raw or "")[:300]
    if kind == "error":
        error = line.obj.get("error")
        code = error.get("code") if isinstance(error, dict) else None
        name = {-32601: "method-not-found", -32600: "invalid-request"}.get(code, "other-error")  # type: ignore[arg-type]
        return Outcome(name, observed, _ev(line))
    roots = (
        line.obj.get("result", {}).get("roots")
        if isinstance(line.obj.get("result"), dict)
        else None
    )
    return Outcome("empty-list" if roots == [] else "roots-returned", observed, _ev(line))


# -- unknown notification ---------------------------------------------------------------------
def _probe_sent(ctx: Context) -> int | None:
    """The transcript line of the unknown notification, if it reached the client's pipe."""
    probe = ctx.tx.steps.get("probe")
    start = probe.evidence if probe and probe.evidence else None
    return None if start is None or ctx.write_failed(start) else start


@rule(
    "unknown-notification-reply",
    ("no-reply", "replied", "not-sent", *EARLY),
    ("probe", "ping"),
    gate=stopped_early,
)
def _unknown_reply(ctx: Context) -> Outcome:
    start = _probe_sent(ctx)
    if start is None:
        return Outcome("not-sent", "the notification was never sent: the client closed first")
    ping = ctx.tx.steps.get("ping")
    ping_id = ping.id if ping else None
    ours = {x.obj.get("id") for x in ctx.tx.lines if x.dir == "out" and x.is_request}
    replies = [
        x
        for x in ctx.tx.incoming()
        if x.n > start
        and (x.is_response or (isinstance(x.obj, dict) and "error" in x.obj))
        and (x.obj.get("id") != ping_id and x.obj.get("id") not in ours - {None})
    ]
    if replies:
        return Outcome("replied", (replies[0].raw or "")[:300], _ev(*replies[:5]))
    return Outcome("no-reply", "nothing answered the notification")


@rule(
    "still-responsive",
    ("answered", "silent", "closed-after-probe", "closed-before-probe", *EARLY),
    ("probe", "ping"),
    gate=stopped_early,
)
def _still_responsive(ctx: Context) -> Outcome:
    """Whether the connection outlived the notification, told apart from a client that simply
    ends after its own job: the scenario keeps a quiet window (nothing sent) right before the
    notification, so a client that closes without provocation does so there, before it.
    A close after the notification is recorded with that control beside it, never assumed
    to be caused by it; only an unanswered ping on an open connection breaks a MUST."""
    kind, line = ctx.reply("ping")
    if line is not None:
        return Outcome("answered", (line.raw or "")[:200], _ev(line))
    probe = _probe_sent(ctx)
    closed = ctx.ended_at()
    if probe is None or (closed is not None and closed < probe):
        where = f" (closed at line {closed})" if closed is not None else ""
        return Outcome(
            "closed-before-probe",
            "the client ended the connection by itself, before the notification was sent" + where,
            [n for n in (closed,) if n is not None],
        )
    if kind == "silence":
        return Outcome("silent", "ping sent on an open connection, never answered", [probe])
    quiet = ctx.tx.steps.get("quiet")
    control = (
        f"; it had stayed open through the {quiet.step.get('observe_s')} s quiet window before it"
        if quiet is not None and quiet.done_n is not None and quiet.done_n < probe
        else "; no quiet window was played before it, so nothing shows whether it would have"
        " ended anyway"
    )
    where = f"line {closed}" if closed is not None else "an unrecorded point"
    return Outcome(
        "closed-after-probe",
        f"the connection ended at {where}, after the notification (line {probe}){control}",
        [n for n in (probe, closed) if n is not None],
    )


# -- list changed -----------------------------------------------------------------------------
@rule(
    "list-changed-notification",
    (
        "sent-declared",
        "missing-declared",
        "sent-undeclared",
        "missing-undeclared",
        "no-roots",
        *EARLY,
    ),
    ("signal",),
    gate=_early_or_no_roots,
)
def _list_changed(ctx: Context) -> Outcome:
    roots = ctx.roots_capability or {}  # the gate saw it declared
    signal = ctx.tx.steps.get("signal")
    after = signal.start_n if signal else 10**12
    note = next(
        (
            x
            for x in ctx.tx.incoming()
            if x.n > after and x.method == "notifications/roots/list_changed"
        ),
        None,
    )
    declared = roots.get("listChanged") is True
    sent = note is not None
    name = ("sent-" if sent else "missing-") + ("declared" if declared else "undeclared")
    return Outcome(name, f"listChanged={roots.get('listChanged')!r}; notified={sent}", _ev(note))


@rule(
    "new-root-listed",
    (
        "listed",
        "listed-other-form",
        "listed-misencoded",
        "missing",
        "no-result",
        "no-roots",
        *EARLY,
    ),
    ("after",),
    gate=_early_or_no_roots,
)
def _new_root(ctx: Context) -> Outcome:
    result, line = _roots_result(ctx, "after")
    if line is None:
        return Outcome("no-result", "no result for the second roots/list")
    outcome, why, _ = best_root(_roots(result), f"{ctx.workspace}/{ADDED_ROOT}")
    if outcome == "encoded":
        return Outcome("listed", why, _ev(line))
    if outcome in OTHER_FORM:
        return Outcome("listed-other-form", why, _ev(line))
    if outcome in MISENCODED:
        return Outcome("listed-misencoded", why, _ev(line))
    return Outcome("missing", why, _ev(line))


# -- version window ---------------------------------------------------------------------------
@rule("revision-accepted", ("accepted", "disconnected", "no-initialize"))
def _revision_accepted(ctx: Context) -> Outcome:
    init = ctx.initialize
    if init is None:
        return Outcome("no-initialize", "no initialize request")
    note = next((x for x in ctx.tx.incoming() if x.method == "notifications/initialized"), None)
    answer = ctx.plan.get("answer_revision")
    if note is not None:
        return Outcome("accepted", f"went on after the server chose {answer}", _ev(init, note))
    return Outcome("disconnected", f"no initialized after the server chose {answer}", _ev(init))


# -- mrtr -------------------------------------------------------------------------------------
def _mrtr_calls(ctx: Context) -> tuple[Line | None, Line | None]:
    first = retry = None
    for line in ctx.modern_requests():
        if line.method != "tools/call":
            continue
        if "inputResponses" in line.params or "requestState" in line.params:
            retry = retry or line
        elif first is None:
            first = line
    return first, retry


@rule("speaks-modern", ("modern", "legacy"))
def _speaks_modern(ctx: Context) -> Outcome:
    modern = ctx.modern_requests()
    if modern:
        return Outcome("modern", f"{modern[0].method} carried 2026-07-28 _meta", _ev(modern[0]))
    init = ctx.initialize
    asked = ctx.init_params.get("protocolVersion")
    return Outcome(
        "legacy", f"initialize with {asked!r}" if init else "no modern request", _ev(init)
    )


@rule("mrtr-retried", ("retried", "retried-without-input", "no-retry", "no-call", "legacy"))
def _mrtr_retried(ctx: Context) -> Outcome:
    if not ctx.modern_requests():
        return Outcome("legacy", "the client does not speak 2026-07-28")
    first, retry = _mrtr_calls(ctx)
    if first is None and retry is None:
        return Outcome("no-call", "no 2026-07-28 tools/call")
    if retry is None:
        return Outcome("no-retry", "the input-required call was not retried", _ev(first))
    key = ctx.plan.get("mrtr", {}).get("key")
    responses = retry.params.get("inputResponses")
    if isinstance(responses, dict) and key in responses:
        return Outcome("retried", f"inputResponses has {key!r}", _ev(first, retry))
    return Outcome(
        "retried-without-input", f"inputResponses = {responses!r}"[:300], _ev(first, retry)
    )


def _retry_or(ctx: Context) -> tuple[Outcome | None, Line | None, Line | None]:
    if not ctx.modern_requests():
        return Outcome("legacy", "the client does not speak 2026-07-28"), None, None
    first, retry = _mrtr_calls(ctx)
    if retry is None:
        return Outcome("no-retry", "no retry", _ev(first)), first, None
    return None, first, retry


@rule("mrtr-request-state", ("exact", "altered", "missing", "no-retry", "legacy"))
def _mrtr_state(ctx: Context) -> Outcome:
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    want = ctx.plan.get("mrtr", {}).get("request_state")
    got = retry.params.get("requestState")
    if got is None:
        return Outcome("missing", "no requestState", _ev(first, retry))
    name = "exact" if got == want else "altered"
    return Outcome(name, f"sent {want!r}, got back {got!r}", _ev(first, retry))


@rule("mrtr-new-id", ("new", "reused", "no-retry", "legacy"))
def _mrtr_new_id(ctx: Context) -> Outcome:
    early, first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    a = first.obj.get("id") if first else None
    b = retry.obj.get("id")
    return Outcome(
        "reused" if a == b else "new", f"first id {a!r}, retry id {b!r}", _ev(first, retry)
    )


@rule("mrtr-retry-valid", ("valid", "invalid", "no-retry", "legacy"))
def _mrtr_valid(ctx: Context) -> Outcome:
    early, _first, retry = _retry_or(ctx)
    if early or retry is None or retry.raw is None:
        return early or Outcome("no-retry", "no retry")
    ok, errors = validate_line(retry.raw, ctx.revision)
    key = ctx.plan.get("mrtr", {}).get("key")
    responses = retry.params.get("inputResponses")
    if isinstance(responses, dict) and key in responses:
        ok2, errors2 = validate_as(responses[key], "ListRootsResult", ctx.revision)
        ok, errors = ok and ok2, errors + [f"inputResponses.{key}: {e}" for e in errors2]
    if ok:
        return Outcome("valid", f"valid at {ctx.revision}", _ev(retry))
    return Outcome("invalid", "; ".join(errors[:5]), _ev(retry))


@rule(
    "mrtr-retry-roots",
    ("encoded", "other-form", "misencoded", "absent", "no-retry", "legacy"),
)
def _mrtr_roots(ctx: Context) -> Outcome:
    early, _first, retry = _retry_or(ctx)
    if early or retry is None:
        return early or Outcome("no-retry", "no retry")
    key = ctx.plan.get("mrtr", {}).get("key")
    responses = retry.params.get("inputResponses")
    value = responses.get(key) if isinstance(responses, dict) else None
    outcome, why, root = best_root(_roots(value), ctx.workspace)
    if root is None or outcome not in ("encoded", *OTHER_FORM, *MISENCODED):
        return Outcome("absent", why, _ev(retry))
    name = "misencoded" if outcome in MISENCODED else outcome
    return Outcome("other-form" if outcome in OTHER_FORM else name, why, _ev(retry))


# -- the wire itself (checks every scenario gets) ---------------------------------------------
@rule("wire-json", ("clean", "blank-lines", "invalid-json", "oversized"))
def _wire_json(ctx: Context) -> Outcome:
    bad = [x for x in ctx.tx.incoming() if x.parse_error]
    big = [x for x in bad if x.truncated]
    if big:
        return Outcome("oversized", f"{len(big)} line(s) over the cap", _ev(*big[:5]))
    broken = [x for x in bad if x.parse_error != "blank line"]
    if broken:
        first = broken[0]
        shown = (first.raw or "<not UTF-8>")[:80]
        return Outcome("invalid-json", f"{len(broken)} line(s), first {shown!r}", _ev(*broken[:5]))
    if bad:
        return Outcome("blank-lines", f"{len(bad)} blank line(s)", _ev(*bad[:5]))
    return Outcome("clean", f"{len(ctx.tx.incoming())} line(s) parsed")


@rule("wire-ids", ("matched", "unknown-id"))
def _wire_ids(ctx: Context) -> Outcome:
    ours = [x.obj.get("id") for x in ctx.tx.lines if x.dir == "out" and x.is_request]
    strays = [
        x
        for x in ctx.tx.incoming()
        if x.is_response
        and x.obj.get("id") is not None
        and not any(type(i) is type(x.obj.get("id")) and i == x.obj.get("id") for i in ours)
    ]
    if strays:
        return Outcome(
            "unknown-id", f"id {strays[0].obj.get('id')!r} was never sent", _ev(*strays[:5])
        )
    return Outcome("matched", f"{len(ours)} request(s) of the peer")


@rule("wire-volume", ("normal", "flood"))
def _wire_volume(ctx: Context) -> Outcome:
    for n, note in ctx.tx.notes:
        if note.get("event") == "lines-not-stored":
            return Outcome("flood", f"{note.get('count')} line(s) beyond the cap", [n])
    return Outcome("normal", f"{len(ctx.tx.lines)} line(s)")


@rule(
    "client-exit",
    ("clean", "lingered", "crashed", "ignored-sigterm", "leftovers", "timeout", "not-recorded"),
)
def _client_exit(ctx: Context) -> Outcome:
    p = ctx.process
    if not p or "ended_by" not in p:
        return Outcome("not-recorded", "no process facts")
    said = f"ended_by={p.get('ended_by')}, exit={p.get('exit_code')}"
    if p.get("ended_by") == "timeout":
        return Outcome("timeout", said)
    if p.get("sigkill"):
        return Outcome("ignored-sigterm", said)
    if p.get("leftover_killed"):
        return Outcome("leftovers", f"{said}, {p['leftover_killed']} leftover(s)")
    complete = any(
        note.get("event") == "done" and note.get("reason") == "steps complete"
        for _, note in ctx.tx.notes
    )
    if p.get("ended_by") == "self" and p.get("exit_code") not in (0, None) and not complete:
        return Outcome("crashed", said)
    if p.get("ended_by") == "harness" and p.get("ends") == "self":
        return Outcome("lingered", said)
    return Outcome("clean", said)
