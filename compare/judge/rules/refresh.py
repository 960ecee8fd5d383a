"""What a server does with its roots when a refresh fails.

The scripted client changes its roots, sends ``notifications/roots/list_changed`` and then
answers the server's ``roots/list`` badly (a JSON-RPC error, a malformed result, or not at
all: a ``set_roots`` step's ``answer``). The probes after that show which of three things the
server did: kept the roots it had (the old root works, outside stays refused), fell back to
its start-up folders (outside now reached: a widening), or refused everything (the old root
refused too, where the same operation worked before the change).

A widening is only a widening when the probes before the change were refused outside: a
server that reached outside before the failure already ignored its roots, which the
enforcement scenario grades; here that is ``already-wide``. Which place is inside the old
roots and which outside them is each place's ``expect``; the probes before the change are
the check's ``with: {before: <probe step>}``.
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, rule
from compare.judge.rules.enforce import evidence, named, nothing_to_judge, selected
from compare.judge.rules.probes import Probe, read_probes
from compare.judge.rules.server import NO_INIT, handshake_failed, roots_requests

_BEFORE = Param("label", "the probe step played before the roots change", required=True)
#: Results that say nothing about the server's roots (the call was never answered or made).
_SILENT = ("no-answer", "skipped")


def _asked(ctx: Context, probes: list[Probe]) -> list[int]:
    """The server's roots/list lines between the change and these probes (our bad answers
    went to them)."""
    label = (ctx.check_probes or {}).get("after")
    change = ctx.tx.steps.get(str(label)) if label else None
    first = min((p.request for p in probes if p.request), default=None)
    start = change.start_n if change is not None else 0
    return [x.n for x in roots_requests(ctx) if x.n > start and (first is None or x.n < first)]


def _expect(ctx: Context, probe: Probe) -> str:
    """The probe's place's ``expect`` (inside the old roots or not), from the plan."""
    places = (ctx.plan.get("probe") or {}).get("places") or {}
    spec = places.get(probe.place)
    return str(spec.get("expect")) if isinstance(spec, dict) else probe.expect


@rule(
    "refresh-failure",
    (
        "kept",
        "refused-all",
        "widened",
        "already-wide",
        "mixed",
        "not-refreshed",
        "no-file-tools",
        "no-answer",
        *NO_INIT,
    ),
    gate=handshake_failed,
    params={"before": _BEFORE},
)
def _refresh_failure(ctx: Context) -> Outcome:
    """After a failed refresh: the old roots kept, widened to the start-up folder, or none."""
    probes = selected(ctx)
    empty = nothing_to_judge(ctx, probes)
    if empty is not None:
        return empty
    asked = _asked(ctx, probes)
    inside = [p for p in probes if _expect(ctx, p) == "allowed" and p.result not in _SILENT]
    outside = [p for p in probes if _expect(ctx, p) == "refused" and p.result not in _SILENT]
    reached = [p for p in outside if p.result == "allowed"]
    if reached:
        before = str(ctx.params.get("before", ""))
        places = {p.place for p in reached}
        earlier = [
            p for p in read_probes(ctx)
            if p.step == before and p.place in places and p.result == "allowed"
        ]  # fmt: skip
        if earlier:
            return Outcome(
                "already-wide",
                f"{len(reached)}/{len(outside)} probes outside the old roots allowed after the"
                f" failed refresh ({named(reached)}), as they were before the change"
                f" ({named(earlier)}): the failure widened nothing the server had narrowed",
                evidence(earlier[:2] + reached),
            )
        return Outcome(
            "widened",
            f"{len(reached)}/{len(outside)} probes outside the old roots allowed after the"
            f" failed refresh, refused there before the change: {named(reached)}",
            asked[:1] + evidence(reached),
        )
    refused = [p for p in inside if p.result == "refused"]
    allowed = [p for p in inside if p.result == "allowed"]
    if inside and len(allowed) == len(inside):
        return Outcome(
            "kept",
            f"the old roots kept: {len(allowed)} probes inside them allowed ({named(allowed)}),"
            f" {len(outside)} outside refused",
            asked[:1] + evidence(allowed[:2] + outside),
        )
    if inside and len(refused) == len(inside):
        return Outcome(
            "refused-all",
            f"everything refused after the failed refresh: {len(refused)} probes inside the old"
            f" roots refused where they had worked before ({named(refused)}); e.g."
            f" {refused[0].detail!r}",
            asked[:1] + evidence(refused),
        )
    return Outcome(
        "mixed",
        f"inside the old roots {len(allowed)} probes allowed, {len(refused)} refused and"
        f" {len(inside) - len(allowed) - len(refused)} failed; outside none reached",
        asked[:1] + evidence(inside),
    )
