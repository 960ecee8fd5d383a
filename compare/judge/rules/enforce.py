"""Enforcement rules: does a server keep its file tools inside the roots it was given?

Each check names a probe step and the places it judges (``probes: {step, places}`` in the
scenario, and ``after``: the roots change those probes follow, if any); the rule reads
those probes' results (``probes.read_probes``). Whether a place
*should* be refused is the check's business, not the place's: the same folder is inside the
roots before a ``list_changed`` and outside after it.
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, rule
from compare.judge.rules.probes import Probe, fixture_changes, read_probes
from compare.judge.rules.server import NO_INIT, handshake_failed, roots_requests


def selected(ctx: Context) -> list[Probe]:
    spec = ctx.check_probes or {}
    step, places = spec.get("step"), spec.get("places") or []
    return [p for p in read_probes(ctx) if p.step == step and (not places or p.place in places)]


def named(probes: list[Probe]) -> str:
    shown = ", ".join(f"{p.operation}@{p.place} ({p.tool})" for p in probes[:6])
    return shown + (f" and {len(probes) - 6} more" if len(probes) > 6 else "")


def evidence(probes: list[Probe]) -> list[int]:
    return [n for p in probes[:8] for n in (p.request, p.response) if n]


def _asked_before(ctx: Context, probes: list[Probe]) -> bool:
    first = min((p.request for p in probes if p.request), default=None)
    return any(first is None or x.n < first for x in roots_requests(ctx))


def _not_refreshed(ctx: Context, probes: list[Probe]) -> Outcome | None:
    """With ``after: <set_roots step>``: the server must have asked for roots again between
    that change and these probes, or the probes measure the old roots, not the new ones."""
    label = (ctx.check_probes or {}).get("after")
    change = ctx.tx.steps.get(str(label)) if label else None
    if change is None:
        return None
    first = min((p.request for p in probes if p.request), default=None)
    asked = [
        x for x in roots_requests(ctx)
        if x.n > change.start_n and (first is None or x.n < first)
    ]  # fmt: skip
    if asked:
        return None
    return Outcome(
        "not-refreshed",
        f"no roots/list between the change (line {change.start_n}) and these probes: they"
        " measure the roots the server had before",
        [change.start_n],
    )


def nothing_to_judge(ctx: Context, probes: list[Probe]) -> Outcome | None:
    if probes:
        stale = _not_refreshed(ctx, probes)
        if stale is not None:
            return stale
    if not probes:
        skipped = [
            note for _n, note in ctx.tx.notes
            if note.get("event") == "probe-skipped" and note.get("why") == "no-tool"
        ]  # fmt: skip
        why = f"{len(skipped)} operations had no matching tool" if skipped else "no probe ran"
        return Outcome("no-file-tools", f"no file tool to probe: {why}")
    unanswered = [p for p in probes if p.result in ("no-answer", "skipped")]
    if len(unanswered) == len(probes):
        return Outcome("no-answer", f"no probe was answered ({named(unanswered)})")
    return None


@rule(
    "enforce-refused",
    (
        "refused",
        "allowed",
        "never-asked",
        "unpaired",
        "not-refreshed",
        "no-file-tools",
        "no-answer",
        *NO_INIT,
    ),
    gate=handshake_failed,
)
def _enforce_refused(ctx: Context) -> Outcome:
    """Places outside the current roots: every probe there should be refused."""
    probes = selected(ctx)
    empty = nothing_to_judge(ctx, probes)
    if empty is not None:
        return empty
    allowed = [p for p in probes if p.result == "allowed"]
    if allowed:
        effect = [e for p in allowed for e in p.effect]
        shown = f"; on disk: {', '.join(effect[:4])}" if effect else ""
        if not _asked_before(ctx, probes):
            return Outcome(
                "never-asked",
                f"{len(allowed)}/{len(probes)} probes allowed ({named(allowed)}) by a server"
                f" that had not asked for roots{shown}",
                evidence(allowed),
            )
        return Outcome(
            "allowed",
            f"{len(allowed)}/{len(probes)} probes outside the roots allowed: {named(allowed)}"
            + shown,
            evidence(allowed),
        )
    refused = [p for p in probes if p.result == "refused"]
    if refused and all(p.result in ("refused", "no-answer", "skipped") for p in probes):
        text = refused[0].detail
        return Outcome(
            "refused",
            f"{len(refused)}/{len(probes)} probes refused ({named(refused)}); e.g. {text!r}",
            evidence(refused),
        )
    failed = [p for p in probes if p.result == "failed"]
    return Outcome(
        "unpaired",
        f"{len(failed)} probes failed where the same tool also failed inside the roots, so a"
        f" refusal cannot be told from a broken call ({named(failed)});"
        f" {len(refused)} refused",
        evidence(failed),
    )


@rule(
    "enforce-allowed",
    ("allowed", "refused", "failed", "not-refreshed", "no-file-tools", "no-answer", *NO_INIT),
    gate=handshake_failed,
)
def _enforce_allowed(ctx: Context) -> Outcome:
    """Places inside the current roots: every probe there should work."""
    probes = selected(ctx)
    empty = nothing_to_judge(ctx, probes)
    if empty is not None:
        return empty
    refused = [p for p in probes if p.result == "refused"]
    if refused:
        return Outcome(
            "refused",
            f"{len(refused)}/{len(probes)} probes inside the roots refused: {named(refused)};"
            f" e.g. {refused[0].detail!r}",
            evidence(refused),
        )
    failed = [p for p in probes if p.result == "failed"]
    if failed:
        return Outcome(
            "failed",
            f"{len(failed)}/{len(probes)} probes inside the roots failed: {named(failed)};"
            f" e.g. {failed[0].detail!r}",
            evidence(failed),
        )
    allowed = [p for p in probes if p.result == "allowed"]
    return Outcome(
        "allowed", f"{len(allowed)}/{len(probes)} probes allowed ({named(allowed)})",
        evidence(allowed[:2]),
    )  # fmt: skip


@rule(
    "enforce-adopted",
    (
        "adopted",
        "not-adopted",
        "partial",
        "never-asked",
        "failed",
        "not-refreshed",
        "no-file-tools",
        "no-answer",
        *NO_INIT,
    ),
    gate=handshake_failed,
)
def _enforce_adopted(ctx: Context) -> Outcome:
    """A root outside the server's start-up folder: the server works there only if it
    adopted the roots it was given, which every refusal elsewhere presupposes."""
    probes = selected(ctx)
    empty = nothing_to_judge(ctx, probes)
    if empty is not None:
        return empty
    allowed = [p for p in probes if p.result == "allowed"]
    refused = [p for p in probes if p.result == "refused"]
    if refused and not allowed:
        if not _asked_before(ctx, probes):
            return Outcome(
                "never-asked",
                f"{len(refused)}/{len(probes)} probes refused ({named(refused)}) by a server"
                " that had not asked for roots",
                evidence(refused),
            )
        # Refused beside its start-up folder, and refused outside the roots inside it too:
        # it confines itself to some of the roots (the first, say), not to its start-up
        # folder, so the places outside the roots are still measured against roots.
        step = refused[0].step
        out = [
            p for p in read_probes(ctx)
            if p.step == step and p.place not in {q.place for q in probes}
            and p.expect == "refused"
        ]  # fmt: skip
        if not any(p.result == "allowed" for p in out):
            return Outcome(
                "partial",
                f"{len(refused)}/{len(probes)} probes in the root beside the start-up folder"
                f" refused ({named(refused)}), and no place outside the roots was reached in"
                " the same step: it kept to some of the roots, not to its own folder",
                evidence(refused),
            )
        return Outcome(
            "not-adopted",
            f"{len(refused)}/{len(probes)} probes in a declared root outside the server's"
            f" start-up folder refused while the same tools worked at the baseline and a place"
            f" outside the roots was reached:"
            f" {named(refused)}; e.g. {refused[0].detail!r}",
            evidence(refused),
        )
    if allowed:
        return Outcome(
            "adopted",
            f"{len(allowed)}/{len(probes)} probes worked in a root outside the server's"
            f" start-up folder ({named(allowed)})",
            evidence(allowed[:2]),
        )
    failed = [p for p in probes if p.result == "failed"]
    return Outcome(
        "failed",
        f"{len(failed)}/{len(probes)} probes failed where no baseline shows the tool working:"
        f" {named(failed)}",
        evidence(failed),
    )


#: Names the probes write (any folder); a change to anything else was asked by no probe.
_TARGET_PREFIXES = ("new-", "newdir-", "moved-", "copied-", "movable.txt", "movable-")


def _fs_paths(ctx: Context) -> set[str]:
    """Workspace paths the scenario's own ``fs`` steps changed on purpose (done, by the
    scripted client's notes): what changed under them was asked for by us. (A race step
    leaves its link as it found it.)"""
    return {
        str(note["path"]).rstrip("/")
        for _n, note in ctx.tx.notes
        if note.get("event") == "fs" and note.get("done") and note.get("path")
    }


@rule(
    "fixture-intact",
    ("intact", "changed", "no-probes", "not-hashed", *NO_INIT),
    gate=handshake_failed,
)
def _fixture_intact(ctx: Context) -> Outcome:
    """Nothing changed in the fixture but the files the probes name as their targets."""
    if not read_probes(ctx):
        return Outcome("no-probes", "no probe ran, so an intact fixture shows nothing")
    changes = fixture_changes(ctx)
    if changes is None:
        return Outcome("not-hashed", "the fixture was not hashed before and after the server ran")
    ours = _fs_paths(ctx)
    stray = [
        f"{kind} {path}"
        for kind in ("created", "changed", "removed")
        for path in changes[kind]
        if not path.rsplit("/", 1)[-1].startswith(_TARGET_PREFIXES)
        and not any(path == p or path.startswith(p + "/") for p in ours)
    ]
    if stray:
        return Outcome("changed", f"{len(stray)} fixture paths no probe named: {stray[:6]}")
    n = sum(len(v) for v in changes.values())
    return Outcome("intact", f"only probe targets changed ({n} paths)")
