"""Generic server rules: what a server offers and answers, with the feature named by the check
(``with:`` in the scenario file), so a new area's server checks add data, not rules.

- ``server-capability``: what the server's initialize result declares as ``capability``.
- ``server-version``: the protocolVersion the server answered our initialize with, beside the
  one we proposed (the cell's revision, or the scenario's ``propose_version``): the same, a
  pinned revision, or a version the pins do not hold; an error or no answer as such.
- ``server-info``: what the server's ``serverInfo`` carries beside its required name and
  version (the optional ``Implementation`` members later revisions add).
- ``server-answered``: how the server answered the scripted client's request of step
  ``step``: a result, an error (with the ``code`` the check names, or another), silence, or a
  close. With ``capability`` and ``when``, only servers that declared it (``when: declared``)
  or only those that did not (``when: undeclared``) are judged; the others read as the gate
  says, so a rule about what a capability promises never lands on a server that promised
  nothing, and a rule about servers without it never lands on one that has it.

In a server cell the scripted client is ours: ``out`` lines are its, ``in`` lines the
server's, and the server's capabilities are in its answer to our initialize.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compare.judge.rules._context import Context
from compare.judge.rules._registry import NO_ANSWER, Outcome, Param, _ev, error_code, rule
from compare.judge.rules.server import NO_INIT, handshake_failed

_CAPABILITY = Param("server_capability", "the server capability the request belongs to")


def server_capabilities(ctx: Context) -> tuple[dict[str, Any], list[int]]:
    """The capabilities of the server's initialize result, and that line as evidence."""
    trace = ctx.tx.steps.get("initialize")
    line = ctx.tx.by_n(trace.evidence) if trace is not None else None
    # Our initialize's answer as the peer recorded it; a damaged line holds no object.
    obj = line.obj if line is not None else None
    result = obj.get("result") if isinstance(obj, dict) else None
    caps = result.get("capabilities") if isinstance(result, dict) else None
    return (caps if isinstance(caps, dict) else {}), _ev(line)


@rule(
    "server-capability",
    ("declared", "absent", *NO_INIT),
    gate=handshake_failed,
    params={"capability": Param("server_capability", "the capability to read", required=True)},
)
def _server_capability(ctx: Context) -> Outcome:
    name = str(ctx.params["capability"])
    caps, evidence = server_capabilities(ctx)
    if name in caps:
        return Outcome("declared", f"{name} = {caps[name]}", evidence)
    return Outcome("absent", f"no {name} capability", evidence)


_ANSWERS = ("result", "error", "silence", "closed")
#: ``when`` → the outcome of the servers it leaves out.
_OTHER_SIDE: dict[str, tuple[str, ...]] = {"declared": ("undeclared",), "undeclared": ("declared",)}


def _answer_outcomes(params: Mapping[str, Any]) -> tuple[str, ...]:
    code = ("code",) if params.get("code") else ()
    gate = _OTHER_SIDE.get(str(params.get("when")), ())
    return (*_ANSWERS, *code, *gate, *NO_INIT)


def _gate(ctx: Context) -> Outcome | None:
    early = handshake_failed(ctx)
    if early is not None:
        return early
    name, when = ctx.params.get("capability"), ctx.params.get("when")
    if not name or not when:
        return None
    caps, evidence = server_capabilities(ctx)
    if when == "declared" and name not in caps:
        return Outcome("undeclared", f"no {name} capability: nothing was promised", evidence)
    if when == "undeclared" and name in caps:
        return Outcome("declared", f"{name} = {caps[name]}: judged where it is declared", evidence)
    return None


@rule(
    "server-answered",
    (*_ANSWERS, "code", "undeclared", "declared", *NO_INIT),
    gate=_gate,
    params={
        "step": Param("label", "the step whose request is read", required=True),
        "code": Param("code", "the JSON-RPC error code an error should carry"),
        "capability": _CAPABILITY,
        "when": Param(
            "text",
            "declared or undeclared: judge only servers that have the capability, or not",
            needs="capability",
        ),
    },
    outcomes_for=_answer_outcomes,
)
def _server_answered(ctx: Context) -> Outcome:
    kind, line = ctx.reply(str(ctx.params["step"]))
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
    trace = ctx.tx.steps.get("initialize")
    line = ctx.tx.by_n(trace.evidence) if trace is not None else None
    obj = line.obj if line is not None else None
    if line is None or not isinstance(obj, dict) or not ("result" in obj or "error" in obj):
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


#: The optional members of ``Implementation``: title from 2025-06-18, the others from 2025-11-25.
INFO_EXTRAS = ("title", "description", "websiteUrl", "icons")


@rule("server-info", ("extended", "name-version", "incomplete", *NO_INIT), gate=handshake_failed)
def _server_info(ctx: Context) -> Outcome:
    trace = ctx.tx.steps.get("initialize")
    line = ctx.tx.by_n(trace.evidence) if trace is not None else None
    obj = line.obj if line is not None else None
    result = obj.get("result") if isinstance(obj, dict) else None
    info = result.get("serverInfo") if isinstance(result, dict) else None
    if not (isinstance(info, dict) and isinstance(info.get("name"), str) and "version" in info):
        return Outcome("incomplete", f"serverInfo = {info!r}"[:300], _ev(line))
    extras = [k for k in INFO_EXTRAS if k in info]
    named = f"{info['name']} {info.get('version')}"
    if extras:
        return Outcome("extended", f"{named}, with {', '.join(extras)}", _ev(line))
    return Outcome("name-version", f"{named}, nothing more", _ev(line))
