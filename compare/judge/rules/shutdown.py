"""How a client on stdio ends the server it started, read from what our peer (that server)
noticed and from how the client process ended.

The lifecycle page (the stdio page from 2026-07-28) says a client should end a stdio server by
closing its stdin first, then waiting, then SIGTERM, then SIGKILL. Our peer notes each of these
that reaches it: ``stdin-closed`` when its input ends, ``signal`` with the signal's name, and
``exit`` as it leaves; SIGKILL leaves no note. The harness says how the client process ended
and whether anything of the cell was left running after it.

- ``stdio-shutdown``: ``stdin-first`` (the peer's input ended before any signal reached it:
  the client closed it, or its exit did), ``signal-first`` (SIGTERM, SIGINT or SIGHUP before
  its input ended), ``killed`` (the peer was gone without a note of either: SIGKILL),
  ``left-running`` (the client exited and our server was still running, until the harness
  ended it), and where the client did not end its server itself — nothing to read —
  ``server-ended`` (the peer's window passed and it closed first: the client kept the
  session) or ``harness-ended`` (the client did not end by itself; the harness ended the
  process group, server included). The evidence is the peer's notes.
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, rule, stopped_early

#: The peer's notes this rule reads.
_EVENTS = ("stdin-closed", "signal", "exit", "done")


@rule(
    "stdio-shutdown",
    (
        "stdin-first",
        "signal-first",
        "killed",
        "left-running",
        "server-ended",
        "harness-ended",
        "not-recorded",
        *EARLY,
    ),
    gate=stopped_early,
)
def _stdio_shutdown(ctx: Context) -> Outcome:
    p = ctx.process
    if not p or "ended_by" not in p:
        return Outcome("not-recorded", "no process facts")
    notes = [(n, note) for n, note in ctx.tx.notes if note.get("event") in _EVENTS]
    done = next(((n, note) for n, note in notes if note.get("event") == "done"), None)
    # What reached our server while it was still playing: once it is done, a signal may be
    # the harness ending the cell's processes, not the client.
    ends = [
        (n, note)
        for n, note in notes
        if note.get("event") in ("stdin-closed", "signal") and (done is None or n < done[0])
    ]
    evidence = [n for n, _note in ends]
    if not ends and done is not None and done[1].get("reason") == "steps complete":
        return Outcome(
            "server-ended",
            "our server's window passed with the session still open, so it closed first: the"
            " client did not end it",
        )
    if p.get("ended_by") != "self":
        return Outcome(
            "harness-ended",
            f"the client did not end by itself (ended_by={p.get('ended_by')}): the harness"
            " ended it and our server with it",
            evidence,
        )
    first = ends[0][1] if ends else None
    if first is not None and first.get("event") == "stdin-closed":
        return Outcome("stdin-first", "our server's stdin was closed first", evidence)
    if first is not None:
        return Outcome(
            "signal-first",
            f"our server received {first.get('signal')} while its stdin was still open",
            evidence,
        )
    if p.get("leftover_killed"):
        return Outcome(
            "left-running",
            "the client exited with our server still running, its stdin open; the harness"
            f" ended {p['leftover_killed']} leftover process(es)",
        )
    if not any(note.get("event") == "exit" for _n, note in notes):
        return Outcome(
            "killed", "our server ended without a note of its stdin closing or a signal: SIGKILL"
        )
    return Outcome("server-ended", "our server left by itself before the client ended it")
