"""Generic server rules: what a server offers and answers, with the feature named by the check
(``with:`` in the scenario file), so a new area's server checks add data, not rules.

- ``server-capability``: what the server declares as ``capability`` (in its initialize
  result, or its server/discover result from 2026-07-28).
- ``server-version``: the protocolVersion the server answered our initialize with, beside the
  one we proposed (the cell's revision, or the scenario's ``propose_version``): the same, a
  pinned revision, or a version the pins do not hold; an error or no answer as such.
- ``server-info``: what the server's ``serverInfo`` carries beside its required name and
  version (the optional ``Implementation`` members later revisions add).
- ``server-log-threshold``: after our logging/setLevel of step ``step``, whether the
  server's notifications/message were all at that level or more severe; an earlier setLevel
  at debug (``control``) must have drawn messages first, or there is nothing to judge.
- ``server-exit``: how the server went once our scripted client closed its stdin (the stdio
  shutdown): by itself, on SIGTERM or on SIGKILL, and after how long.
- ``server-error-valid``: whether the server's error answer to step ``step`` with ``code`` is
  valid as ``definition`` at the cell's revision (an error that carries data the page
  requires, such as URLElicitationRequiredError's list of URL-mode elicitations).
- ``server-early-requests``: whether the server's own requests (pings aside) waited for our
  notifications/initialized: a scenario's ``initialized_delay_s`` holds it back for a while.
- ``server-answered``: how the server answered the scripted client's request of step
  ``step``: a result, an error (with the ``code`` the check names, or another), silence, or a
  close; with ``given``, only where that earlier step went as planned (``not-given`` else).
  With ``capability`` and ``when``, only servers that declared it (``when: declared``) or only
  those that did not (``when: undeclared``) are judged; the others read as the gate says, so
  a rule about what a capability promises never lands on a server that promised nothing,
  and a rule about servers without it never lands on one that has it.

In a server cell the scripted client is ours: ``out`` lines are its, ``in`` lines the
server's, and the server's capabilities are in its answer to our initialize (to our
server/discover from 2026-07-28).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compare.judge._transcript import Line
from compare.judge._validate import validate_as
from compare.judge.rules._context import Context
from compare.judge.rules._info import read_info
from compare.judge.rules._registry import NO_ANSWER, Outcome, Param, _ev, error_code, rule
from compare.judge.rules.server import NO_INIT, _initialized_n, handshake_failed
from compare.judge.rules.server_modern import EITHER_GATE, either_gate, modern

_CAPABILITY = Param("server_capability", "the server capability the request belongs to")


def initialize_answer(ctx: Context) -> tuple[Line | None, dict[str, Any] | None]:
    """The server's answer to our initialize as the scripted client recorded it, and its
    object (None for a damaged line, which holds none)."""
    trace = ctx.tx.steps.get("initialize")
    line = ctx.tx.by_n(trace.evidence) if trace is not None else None
    obj = line.obj if line is not None else None
    return line, (obj if isinstance(obj, dict) else None)


def _initialize_result(ctx: Context) -> tuple[Line | None, dict[str, Any] | None]:
    """That answer's line and its result object, when it is one."""
    line, obj = initialize_answer(ctx)
    result = obj.get("result") if obj is not None else None
    return line, (result if isinstance(result, dict) else None)


def server_capabilities(ctx: Context) -> tuple[dict[str, Any], list[int]]:
    """The capabilities the server declared, and that line as evidence: in its initialize
    result before 2026-07-28, in its server/discover result from then on (the era has no
    handshake; the discover answer is where a server says what it offers)."""
    if modern(ctx):
        trace = ctx.tx.steps.get("discover")
        line = ctx.tx.by_n(trace.evidence) if trace is not None else None
        obj = line.obj if line is not None else None
        found = obj.get("result") if isinstance(obj, dict) else None
        result = found if isinstance(found, dict) else None
    else:
        line, result = _initialize_result(ctx)
    caps = result.get("capabilities") if result is not None else None
    return (caps if isinstance(caps, dict) else {}), _ev(line)


@rule(
    "server-capability",
    ("declared", "absent", *EITHER_GATE),
    gate=either_gate,
    params={"capability": Param("server_capability", "the capability to read", required=True)},
)
def _server_capability(ctx: Context) -> Outcome:
    name = str(ctx.params["capability"])
    caps, evidence = server_capabilities(ctx)
    if name in caps:
        return Outcome("declared", f"{name} = {caps[name]}", evidence)
    return Outcome("absent", f"no {name} capability", evidence)


_ANSWERS = ("result", "error", "silence", "closed")
#: A request whose params come from an earlier answer (``params_from``) that held nothing to
#: fill them with was never sent: graded in _gates.yaml, so no check has to name it.
NO_VALUE = "no-value"
#: A request read only where an earlier step did what it was for (``given``): a ping after a
#: cancel says nothing when there was nothing to cancel.
NOT_GIVEN = "not-given"
#: ``when`` → the outcome of the servers it leaves out.
_OTHER_SIDE: dict[str, tuple[str, ...]] = {"declared": ("undeclared",), "undeclared": ("declared",)}


def _answer_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    code = ("code",) if params.get("code") else ()
    gate = _OTHER_SIDE.get(str(params.get("when")), ())
    given = (NOT_GIVEN,) if params.get("given") else ()
    return (*_ANSWERS, *code, NO_VALUE, *given, *gate, *EITHER_GATE)


def _gate(ctx: Context) -> Outcome | None:
    # the opening of the cell's own era: server/discover from 2026-07-28, initialize before
    early = either_gate(ctx)
    if early is not None:
        return early
    name, when = ctx.params.get("capability"), ctx.params.get("when")
    if not name or not when:
        return None
    caps, evidence = server_capabilities(ctx)
    if when == "declared" and name not in caps:
        return Outcome("undeclared", f"no {name} capability: nothing was promised", evidence)
    member = ctx.params.get("member")
    value = caps.get(name)
    if when == "declared" and member and not (isinstance(value, dict) and value.get(str(member))):
        said = f"{name} = {value}, without {member}: nothing was promised"
        return Outcome("undeclared", said, evidence)
    if when == "undeclared" and name in caps:
        return Outcome("declared", f"{name} = {caps[name]}: judged where it is declared", evidence)
    return None


@rule(
    "server-answered",
    (*_ANSWERS, "code", NO_VALUE, NOT_GIVEN, "undeclared", "declared", *EITHER_GATE),
    gate=_gate,
    params={
        "step": Param("label", "the step whose request is read", required=True),
        "given": Param("label", "read only where this earlier step went as planned (ok, or sent)"),
        "code": Param("code", "the JSON-RPC error code an error should carry"),
        "capability": _CAPABILITY,
        "when": Param(
            "text",
            "declared or undeclared: judge only servers that have the capability, or not",
            needs="capability",
        ),
        "member": Param(
            "member",
            "with when: declared, judge only servers whose capability also sets this member"
            " (resources: subscribe)",
            needs="when",
        ),
    },
    outcomes_for=_answer_outcomes,
)
def _server_answered(ctx: Context) -> Outcome:
    label = str(ctx.params["step"])
    given = ctx.params.get("given")
    before = ctx.tx.steps.get(str(given)) if given else None
    if given and (before is None or before.outcome not in ("ok", "sent")):
        why = before.outcome if before is not None else "never played"
        return Outcome(NOT_GIVEN, f"step {given} did not go as planned ({why}): nothing to follow")
    trace = ctx.tx.steps.get(label)
    if trace is not None and trace.outcome == NO_VALUE:
        return Outcome(NO_VALUE, "not sent: the server's earlier answer held nothing to ask about")
    kind, line = ctx.reply(label)
    if line is None:
        if kind == "not-asked":
            return Outcome("closed", "the request was never sent: the server had closed")
        return Outcome(kind, NO_ANSWER[kind])
    shown = (line.raw or "")[:300]
    if kind == "result":
        return Outcome("result", shown, _ev(line))
    code, wanted = error_code(line), ctx.params.get("code")
    if wanted and code is not None and str(code) == str(wanted):
        return Outcome("code", shown, _ev(line))
    return Outcome("error", shown, _ev(line))


@rule("server-version", ("same", "pinned", "unpinned", "error", "unanswered"))
def _server_version(ctx: Context) -> Outcome:
    # No handshake gate: an initialize refused with an error is itself an answer to judge.
    asked = next(
        (x for x in ctx.tx.lines if x.dir == "out" and x.is_request and x.method == "initialize"),
        None,
    )
    proposed = asked.params.get("protocolVersion") if asked is not None else None
    line, obj = initialize_answer(ctx)
    if line is None or obj is None or not ("result" in obj or "error" in obj):
        return Outcome("unanswered", f"proposed {proposed}; no answer to initialize", _ev(asked))
    evidence = _ev(asked, line)
    if "error" in obj:
        return Outcome("error", f"proposed {proposed}; {(line.raw or '')[:300]}", evidence)
    result = obj.get("result")
    answered = result.get("protocolVersion") if isinstance(result, dict) else None
    said = f"proposed {proposed}, answered {answered!r}"
    if isinstance(answered, str) and answered == proposed:
        return Outcome("same", said, evidence)
    pinned = isinstance(answered, str) and answered in ctx.known_revisions and answered != "draft"
    return Outcome("pinned" if pinned else "unpinned", said, evidence)


@rule("server-info", ("extended", "name-version", "incomplete", *NO_INIT), gate=handshake_failed)
def _server_info(ctx: Context) -> Outcome:
    line, result = _initialize_result(ctx)
    outcome, detail = read_info(result.get("serverInfo") if result is not None else None)
    return Outcome(outcome, detail, _ev(line))


#: The logging levels from the least to the most severe (syslog's order, which LoggingLevel
#: names in every revision).
SEVERITY = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def _set_level(ctx: Context, label: str) -> tuple[Line | None, int | None]:
    """Our logging/setLevel of step ``label``, and the line number of the next one we sent
    (the end of its window), if any."""
    trace = ctx.tx.steps.get(label)
    ours = [x for x in ctx.tx.lines if x.dir == "out" and x.method == "logging/setLevel"]
    sent = next((x for x in ours if trace is not None and x.n > trace.start_n), None)
    after = next((x.n for x in ours if sent is not None and x.n > sent.n), None)
    return sent, after


def _messages(ctx: Context, sent: Line, until: int | None) -> list[Line]:
    """The server's notifications/message after ``sent`` and before line ``until``."""
    return [
        x for x in ctx.tx.incoming()
        if x.method == "notifications/message" and x.n > sent.n and (until is None or x.n < until)
    ]  # fmt: skip


@rule(
    "server-log-threshold",
    ("honoured", "below", "silent", "undeclared", *EITHER_GATE),
    gate=_gate,
    params={
        "step": Param("label", "the logging/setLevel step whose level is the threshold", True),
        "control": Param(
            "label", "an earlier setLevel step at debug: its window shows the server logs", True
        ),
        "capability": _CAPABILITY,
        "when": Param("text", "declared: judge only servers that declared it", needs="capability"),
    },
)
def _server_log_threshold(ctx: Context) -> Outcome:
    control, control_end = _set_level(ctx, str(ctx.params["control"]))
    sent, end = _set_level(ctx, str(ctx.params["step"]))
    level = sent.params.get("level") if sent is not None else None
    if control is None or sent is None or level not in SEVERITY:
        return Outcome("silent", "the two logging/setLevel requests were not both sent")
    logged = _messages(ctx, control, control_end)
    if not logged:
        said = "no notifications/message while every level was asked for: nothing to judge"
        return Outcome("silent", said, _ev(control))
    messages = _messages(ctx, sent, end)
    floor = SEVERITY.index(str(level))
    below = [x for x in messages if x.params.get("level") not in SEVERITY[floor:]]
    if below:
        shown = ", ".join(str(x.params.get("level")) for x in below[:5])
        said = (
            f"{len(below)} of {len(messages)} message(s) after setLevel {level} below it: {shown}"
        )
        return Outcome("below", said, _ev(sent, *below[:5]))
    said = (
        f"{len(logged)} message(s) at any level first; after setLevel {level}, "
        f"{len(messages)}, none below it"
    )
    return Outcome("honoured", said, _ev(logged[0], sent, *messages[:4]))


#: The server-exit note's ``ended_by`` → the outcome it reads as.
_ENDED = {"self": "on-close", "sigterm": "on-sigterm", "sigkill": "on-sigkill"}


@rule("server-exit", ("on-close", "on-sigterm", "on-sigkill", "not-recorded"))
def _server_exit(ctx: Context) -> Outcome:
    # No handshake gate: a server that never answered initialize still had to go.
    if ctx.transport == "http":
        return Outcome("not-recorded", "played over HTTP: its stdin is not how a session ends")
    note = next(((n, f) for n, f in ctx.tx.notes if f.get("event") == "server-exit"), None)
    if note is None or note[1].get("ended_by") not in _ENDED:
        return Outcome("not-recorded", "the scripted client wrote no server-exit note")
    n, fields = note
    after = fields.get("after_s")
    took = f" {after} s after its stdin closed" if isinstance(after, int | float) else ""
    grace = ctx.plan.get("shutdown_s", 2)
    said = f"ended {fields['ended_by']}{took} (exit code {fields.get('code')}; {grace} s per step)"
    return Outcome(_ENDED[str(fields["ended_by"])], said, [n])


@rule(
    "server-error-valid",
    ("valid", "invalid", "other", "unanswered", *EITHER_GATE),
    gate=_gate,
    params={
        "step": Param("label", "the step whose answer is read", required=True),
        "code": Param("code", "the error code the definition is about", required=True),
        "definition": Param("definition", "what that error must validate as", required=True),
    },
)
def _server_error_valid(ctx: Context) -> Outcome:
    kind, line = ctx.reply(str(ctx.params["step"]))
    if line is None:
        return Outcome("unanswered", f"no answer from the server ({kind})")
    shown = (line.raw or "")[:300]
    if kind != "error" or str(error_code(line)) != str(ctx.params["code"]):
        return Outcome("other", shown, _ev(line))
    ok, errors = validate_as(line.obj, str(ctx.params["definition"]), ctx.revision)
    if ok:
        return Outcome("valid", shown, _ev(line))
    return Outcome("invalid", "; ".join(errors)[:300], _ev(line))


#: What the lifecycle page lets a server send before it receives notifications/initialized:
#: pings and logging (notifications, which no request list holds anyway).
_EARLY_ALLOWED = frozenset({"ping"})


@rule("server-early-requests", ("waited", "early", "none", *NO_INIT), gate=handshake_failed)
def _server_early_requests(ctx: Context) -> Outcome:
    """Whether the server's own requests waited for our notifications/initialized (the
    lifecycle page's SHOULD NOT; the scenario's pause gives a server the time to show it)."""
    init_line, _obj = initialize_answer(ctx)
    ready = _initialized_n(ctx)
    asked = [x for x in ctx.tx.incoming() if x.is_request and x.method not in _EARLY_ALLOWED]
    if not asked:
        return Outcome("none", "the server sent no request", _ev(init_line))
    early = [x for x in asked if ready is None or x.n < ready]
    if early:
        names = ", ".join(sorted({str(x.method) for x in early}))
        return Outcome(
            "early", f"{names} before notifications/initialized", _ev(init_line, early[0])
        )
    first = asked[0]
    return Outcome(
        "waited", f"first request {first.method} after notifications/initialized", _ev(first)
    )
