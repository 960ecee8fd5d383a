"""Client rules over stdio: what a client does with the lines and the stderr of the server it
started, when the peer (the server) does what servers do in the field.

- ``string-id-answered``: the peer's request with a string id (step ``step``), read beside a
  request with a number id sent later (step ``numbered``): ``answered``, ``dropped`` (the
  string id went unanswered while the number id was answered), ``no-ping-answered``
  (neither was: nothing to tell about ids), ``closed``.
- ``stderr-chatter``: the peer wrote a burst of log lines to its stderr (step ``step``), then
  asked something (step ``after``): ``went-on`` (written, and answered), ``stopped``
  (written, and the client answered nothing more while it stayed), ``closed`` (it left
  before an answer: done with its work or put off, which the wire does not tell),
  ``blocked`` (the writes waited at the step's bound: the client reads none of its server's
  stderr, and the pipe filled).
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, Param, _ev, rule, stopped_early


@rule(
    "string-id-answered",
    ("answered", "dropped", "no-ping-answered", "closed", "not-asked", *EARLY),
    gate=stopped_early,
    params={
        "step": Param("label", "the peer's request with a string id"),
        "numbered": Param("label", "a later request of the peer's with a number id"),
    },
)
def _string_id(ctx: Context) -> Outcome:
    kind, line = ctx.reply(str(ctx.params["step"]))
    if kind in ("result", "error"):
        return Outcome("answered", (line.raw or "")[:300] if line else "", _ev(line))
    if kind in ("closed", "not-asked"):
        return Outcome(kind, f"the request with a string id: {kind}")
    later, other = ctx.reply(str(ctx.params["numbered"]))
    if later in ("result", "error"):
        return Outcome(
            "dropped",
            "no answer to the request with a string id, while a later one with a number id"
            " was answered",
            _ev(other),
        )
    return Outcome("no-ping-answered", f"neither request was answered (the later one: {later})")


@rule(
    "stderr-chatter",
    ("went-on", "stopped", "closed", "blocked", "not-asked", *EARLY),
    gate=stopped_early,
    params={
        "step": Param("label", "the peer's step that writes to its stderr"),
        "after": Param("label", "the peer's request after it"),
    },
)
def _stderr_chatter(ctx: Context) -> Outcome:
    trace = ctx.tx.steps.get(str(ctx.params["step"]))
    written = next(
        ((n, note) for n, note in ctx.tx.notes if note.get("event") == "stderr-written"), None
    )
    if trace is None or written is None:
        return Outcome("not-asked", "the session ended before the peer wrote to its stderr")
    n, note = written
    if not note.get("complete"):
        return Outcome(
            "blocked",
            f"writing {note.get('bytes')} bytes to its stderr still waited at the step's bound:"
            " the client reads none of its server's stderr",
            [n],
        )
    kind, line = ctx.reply(str(ctx.params["after"]))
    if kind in ("result", "error"):
        return Outcome(
            "went-on", f"{note.get('bytes')} bytes on stderr, then answered", [n, *_ev(line)]
        )
    if kind == "closed":  # it left: done with its work, or put off by the output; not told
        return Outcome(
            "closed", f"{note.get('bytes')} bytes on stderr, then the client left before the next"
            " request was answered", [n]
        )  # fmt: skip
    return Outcome(
        "stopped", f"{note.get('bytes')} bytes on stderr, then the next request: {kind}", [n]
    )


@rule("server-environment", ("inherited", "filtered", "host-chose", "not-recorded"))
def _server_environment(ctx: Context) -> Outcome:
    """Whether the client started its server with its own environment: the harness sets a
    variable in the client's, and the peer notes whether it reached it (``inherited``), or
    not (``filtered``: the client passes a chosen subset, or none). A host of ours (a target
    with variants) hands the server its whole environment by contract: that is our choice,
    not the SDK's (``host-chose``)."""
    if ctx.plan.get("variant") not in (None, "default"):
        return Outcome("host-chose", "our host program starts the server with its environment")
    found = next(
        ((n, note) for n, note in ctx.tx.notes
         if note.get("event") == "start" and "client_env" in note),
        None,
    )  # fmt: skip
    if found is None:
        return Outcome("not-recorded", "the peer noted nothing of its environment")
    n, note = found
    cwd = note.get("cwd")
    where = ""  # the folder is named by what it is, not by its path on this machine
    if cwd:
        where = "; started in the cell's workspace" if cwd == ctx.workspace else (
            "; started in a folder other than the client's workspace"
        )  # fmt: skip
    if note["client_env"]:
        return Outcome(
            "inherited", f"a variable of the client's own environment reached it{where}", [n]
        )
    return Outcome(
        "filtered", f"a variable of the client's own environment did not reach it{where}", [n]
    )


@rule(
    "answered-after",
    ("answered", "no-answer", "not-asked", *EARLY),
    gate=stopped_early,
    params={"step": Param("label", "the peer's request after what it did to the client")},
)
def _answered_after(ctx: Context) -> Outcome:
    """Whether the client went on after what the peer did (a banner, a long line): its
    request of step ``step`` was ``answered``, or got ``no-answer`` (the client fell silent,
    closed the connection or killed its server: one behaviour, however the end came, which
    is a race inside the client)."""
    kind, line = ctx.reply(str(ctx.params["step"]))
    if kind in ("result", "error"):
        return Outcome("answered", (line.raw or "")[:300] if line else "", _ev(line))
    if kind == "not-asked":
        return Outcome("not-asked", "the session ended before the request")
    how = {"silence": "it fell silent", "closed": "the connection ended"}.get(kind, kind)
    return Outcome("no-answer", f"no answer: {how}")
