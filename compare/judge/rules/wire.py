"""The wire itself: checks every scenario gets (``scenarios/_wire.yaml``) — parseable lines,
no flood, and how the client's process ended. Who answers what (ids, notifications, progress
tokens) is in ``hygiene.py``.
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, _ev, rule


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
