"""Reading enforcement probes back out of a server cell's transcript.

The scripted client calls each file tool at places inside and outside the roots (see
``peer/client/_probes.py``); this module turns every such call into one row of the cell's
enforcement table: allowed, refused, failed or unanswered, with the lines that show it.

A tool error alone does not prove a refusal: a tool can be broken, or its arguments wrong.
So an error counts as **refused** only when the same operation worked at the scenario's
baseline place (inside a root) in the same probe step; otherwise it is **failed**. And a
reply alone does not prove what happened on disk: the fixture's before/after hashes decide
that a write-like probe **took effect** even where the server said it failed.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from compare.judge._transcript import StepTrace
from compare.judge.rules._context import Context

#: What a probe's target files are called (``peer/client/_probes.place_values``).
WRITE_TARGETS = (
    "new-{step}-{op}.txt", "newdir-{step}-{op}", "moved-{step}-{op}.txt", "copied-{step}-{op}.txt",
)  # fmt: skip
#: A cross-place probe's targets (a place with ``to``): in the ``to`` folder, place-named.
CROSS_TARGETS = ("moved-{step}-{op}-{place}.txt", "copied-{step}-{op}-{place}.txt")
#: Probe results, in the order the site lists them.
RESULTS = ("allowed", "refused", "failed", "no-answer", "skipped")


@dataclass
class Probe:
    """One tool call at one place, and what came of it."""

    step: str
    operation: str
    place: str
    tool: str
    expect: str
    request: int
    response: int | None
    reply: str  # ok | tool-error | rpc-error | no-answer
    detail: str
    effect: list[str] = field(default_factory=list)
    result: str = ""

    def as_json(self) -> dict[str, Any]:
        evidence = [n for n in (self.request, self.response) if n]
        return {
            "step": self.step, "operation": self.operation, "place": self.place,
            "tool": self.tool, "expect": self.expect, "result": self.result,
            "reply": self.reply, "detail": self.detail[:300], "effect": self.effect,
            "evidence": evidence,
        }  # fmt: skip


def _text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, list):
        for item in content:
            if isinstance(item, dict) and isinstance(item.get("text"), str):
                return " ".join(item["text"].split())
    return ""


def _reply(ctx: Context, trace: StepTrace) -> tuple[str, int | None, str]:
    line = ctx.tx.by_n(trace.evidence)
    if trace.outcome != "ok" or line is None or not isinstance(line.obj, dict):
        return "no-answer", None, "no response within the probe's bound"
    error = line.obj.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        return "rpc-error", line.n, f"JSON-RPC error: {message}"
    result = line.obj.get("result")
    result = result if isinstance(result, dict) else {}
    if result.get("isError") is True:
        return "tool-error", line.n, _text(result) or "isError with no text"
    return "ok", line.n, _text(result)


def _fixture(ctx: Context, event: str) -> dict[str, str] | None:
    for _n, note in ctx.tx.notes:
        if note.get("event") == event and isinstance(note.get("files"), dict):
            return {str(k): str(v) for k, v in note["files"].items()}
    return None


def fixture_changes(ctx: Context) -> dict[str, list[str]] | None:
    """created / changed / removed paths (relative to the workspace), or None if not hashed."""
    before, after = _fixture(ctx, "fixture-before"), _fixture(ctx, "fixture-after")
    if before is None or after is None:
        return None
    return {
        "created": sorted(set(after) - set(before)),
        "changed": sorted(k for k in set(before) & set(after) if before[k] != after[k]),
        "removed": sorted(set(before) - set(after)),
    }


def _place(ctx: Context, place: str) -> dict[str, Any]:
    places = (ctx.plan.get("probe") or {}).get("places") or {}
    spec = places.get(place)
    return spec if isinstance(spec, dict) else {}


def _real_dir(ctx: Context, place: str) -> str:
    """The place's folder relative to the workspace, with ``..`` and the fixture's links
    resolved (the hashes are taken without following links, so a write lands there)."""
    spec = _place(ctx, place)
    return str(spec.get("real") or posixpath.normpath(str(spec.get("path", place))))


def _effect(ctx: Context, probe: Probe, changes: dict[str, list[str]] | None) -> list[str]:
    """Fixture paths this probe created, moved away or changed, by the hashes."""
    if changes is None:
        return []
    folder = _real_dir(ctx, probe.place)
    spec = _place(ctx, probe.place)
    source = "movable.txt"
    names = [t.format(step=probe.step, op=probe.operation) for t in WRITE_TARGETS]
    hits = [posixpath.join(folder, n) for n in names]
    if spec.get("to_real"):  # a cross-place probe: its own source, its targets over there
        source = f"movable-{probe.place}.txt"
        to = [t.format(step=probe.step, op=probe.operation, place=probe.place)
              for t in CROSS_TARGETS]  # fmt: skip
        hits += [posixpath.join(str(spec["to_real"]), n) for n in to]
    # a tool that gives its output its own extension (a screenshot saved as .png in place of
    # the .txt asked for) still wrote the probe's file: the stem is the probe's own name
    stem = posixpath.join(folder, f"new-{probe.step}-{probe.operation}.")
    seen = [p for p in changes["created"] if p in hits or p.startswith(stem)]
    if posixpath.join(folder, source) in changes["removed"] and probe.operation == "move":
        seen.append(posixpath.join(folder, source) + " (moved away)")
    return seen


def read_probes(ctx: Context) -> list[Probe]:
    """Every probe call in the transcript, each with its final result."""
    changes = fixture_changes(ctx)
    probes: list[Probe] = []
    for label, trace in ctx.tx.steps.items():
        step = trace.step
        if not isinstance(step.get("probe"), str) or trace.outcome is None:
            continue
        reply, response, detail = _reply(ctx, trace)
        probe = Probe(
            step=label.split(":", 1)[0], operation=str(step["probe"]),
            place=str(step.get("place")), tool=str(step.get("tool")),
            expect=str(step.get("expect")), request=trace.start_n, response=response,
            reply=reply, detail=detail,
        )  # fmt: skip
        probe.effect = _effect(ctx, probe, changes)
        probes.append(probe)
    for _n, note in ctx.tx.notes:
        if note.get("event") == "probe-skipped" and note.get("why") == "server-silent":
            parts = [*str(note.get("label")).split(":"), "", ""]
            probes.append(
                Probe(parts[0], parts[1], parts[2], "", "", 0, None, "no-answer", "skipped")
            )
    _pair(ctx, probes)
    return probes


def _pair(ctx: Context, probes: list[Probe]) -> None:
    """Give each probe its result: an error is a refusal only where the same operation
    worked at the baseline in the same step, or at the same place in an earlier step."""
    baseline = str((ctx.plan.get("probe") or {}).get("baseline", ""))
    own = _step_baselines(ctx)
    order = list(dict.fromkeys(p.step for p in probes))
    worked = [p for p in probes if p.reply == "ok" or p.effect]
    same_step = {(p.step, p.operation) for p in worked if p.place == own.get(p.step, baseline)}
    for p in probes:
        base = own.get(p.step, baseline)
        earlier = any(
            w.operation == p.operation
            and w.place == p.place
            and order.index(w.step) < order.index(p.step)
            for w in worked
        )
        if p.detail == "skipped":
            p.result = "skipped"
        elif p.effect or p.reply == "ok":
            p.result = "allowed"
        elif p.reply == "no-answer":
            p.result = "no-answer"
        elif ((p.step, p.operation) in same_step and p.place != base) or earlier:
            p.result = "refused"
        else:
            p.result = "failed"


def _step_baselines(ctx: Context) -> dict[str, str]:
    """Probe step label -> the baseline its own ``probe.baseline`` names (where it has one)."""
    out: dict[str, str] = {}
    for step in ctx.plan.get("steps") or []:
        chosen = step.get("probe") if isinstance(step, dict) else None
        if isinstance(chosen, dict) and chosen.get("baseline") and step.get("label"):
            out[str(step["label"])] = str(chosen["baseline"])
    return out
