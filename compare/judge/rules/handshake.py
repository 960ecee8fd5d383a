"""Handshake rules: what the client's initialize (or first 2026-07-28 request) says, and
whether it went on after the peer chose a version. What it declares as a capability is the
generic ``capability-declared`` rule (``generic.py``). ``client-early-requests`` reads the
order of the client's first requests against our initialize answer and its
notifications/initialized.
"""

from __future__ import annotations

from compare.judge._transcript import Line
from compare.judge._validate import validate_line
from compare.judge.rules._context import Context
from compare.judge.rules._info import read_info
from compare.judge.rules._registry import (
    Outcome,
    _ev,
    measured_start_failure,
    rule,
    stopped_early,
)


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
    "client-info-fields",
    ("extended", "name-version", "incomplete", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _client_info_fields(ctx: Context) -> Outcome:
    """What clientInfo carries beside its name and version (``client-info`` grades those)."""
    outcome, detail = read_info(ctx.init_params.get("clientInfo"))
    return Outcome(outcome, detail, _ev(ctx.initialize))


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


# -- before the session is ready --------------------------------------------------------------
#: Requests the lifecycle page lets a client send before initialize is answered (ping), and
#: the 2026-07-28 probe a dual-era client opens with before it falls back to initialize.
_ALWAYS_ALLOWED = frozenset({"ping", "server/discover"})


@rule(
    "client-early-requests",
    ("waited", "before-answer", "before-initialized", "exited-before-initialize"),
    gate=measured_start_failure,
)
def _client_early_requests(ctx: Context) -> Outcome:
    """Whether the client held its requests until the session was ready: none but pings
    before our initialize answer went out (the page's SHOULD NOT), and, recorded apart,
    none between that answer and its own notifications/initialized.

    A client may open several sessions in one cell (a host that reconnects: the transcript
    then holds each after the other, its line numbers starting again), so the lines are cut
    into sessions at each initialize and read in file order; the worst session is reported."""
    lines = ctx.tx.lines
    starts = [i for i, x in enumerate(lines) if x.dir == "in" and x.method == "initialize"]
    if not starts:
        return Outcome("exited-before-initialize", "no initialize request in the transcript")
    found: dict[str, Outcome] = {}
    before = [x for x in lines[: starts[0]] if _asks(x)]
    if before:
        names = ", ".join(sorted({str(x.method) for x in before}))
        found["before-answer"] = Outcome(
            "before-answer", f"{len(before)} request(s) before initialize: {names}", _ev(before[0])
        )
    for k, start in enumerate(starts):
        session = lines[start : starts[k + 1] if k + 1 < len(starts) else len(lines)]
        outcome = _session_order(session)
        found.setdefault(outcome.name, outcome)
    for name in ("before-answer", "before-initialized", "waited"):
        if name in found:
            return found[name]
    raise AssertionError("a session always reads one of the three")  # pragma: no cover


def _asks(line: Line) -> bool:
    return line.dir == "in" and line.is_request and line.method not in _ALWAYS_ALLOWED


def _session_order(session: list[Line]) -> Outcome:
    """One session's order: its initialize first, then our answer, its initialized and its
    requests, by position in the file."""
    init = session[0]
    rid = init.obj.get("id") if isinstance(init.obj, dict) else None
    at = {id(x): i for i, x in enumerate(session)}
    answer = next(
        (x for x in session[1:] if x.dir == "out" and x.is_response and x.obj.get("id") == rid),
        None,
    )
    ready = next(
        (x for x in session if x.dir == "in" and x.method == "notifications/initialized"), None
    )
    asked = [x for x in session[1:] if _asks(x)]
    early = [x for x in asked if answer is None or at[id(x)] < at[id(answer)]]
    if early:
        names = ", ".join(sorted({str(x.method) for x in early}))
        when = "before initialize was answered" if answer else "while initialize went unanswered"
        return Outcome(
            "before-answer", f"{len(early)} request(s) {when}: {names}", _ev(early[0], answer)
        )
    if answer is not None:
        unready = [x for x in asked if ready is None or at[id(x)] < at[id(ready)]]
        if unready:
            names = ", ".join(sorted({str(x.method) for x in unready}))
            said = (
                "before its notifications/initialized"
                if ready
                else "and never sent notifications/initialized"
            )
            return Outcome("before-initialized", f"{names} {said}", _ev(answer, unready[0], ready))
    # the same words whether or not a later request was read before the peer closed
    return Outcome("waited", "no request before the answer and its initialized", _ev(answer, ready))
