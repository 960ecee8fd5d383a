"""Enforcement probes: the server's file tools called on places inside and outside the roots.

The plan names operations (read, write, list …) by the tool names that perform them and the
arguments to send, with placeholders for the probed place; the server's own ``tools/list``
decides which operations can be probed at all. Each call is one step of its own in the
transcript (label ``<step>:<operation>:<place>``), so the judge pairs a refusal outside the
roots with the same tool working inside them, line by line.

The fixture's files are hashed before the server starts and after it has ended, and both
lists go into the transcript as notes: the judge reads from them whether a write outside the
roots really happened, and whether anything no probe named changed.

Standard library only, like the rest of the scripted client.
"""

from __future__ import annotations

import hashlib
import os
import re

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: After this many probes in a row get no answer, the rest of the step is skipped (recorded).
MAX_SILENT = 3
#: Files above this size are recorded by size only (the fixture's own files are tiny).
HASH_LIMIT = 1 << 20


def fill(template: Any, values: dict[str, str]) -> Any:
    """``template`` with every ``{name}`` in its strings replaced (lists and objects too)."""
    if isinstance(template, str):
        return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), m.group(0)), template)
    if isinstance(template, list):
        return [fill(x, values) for x in template]
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    return template


def place_values(
    directory: str,
    operation: str,
    step: str,
    place: str = "",
    to: str = "",
    file: str | None = None,
) -> dict[str, str]:
    """The placeholders of one probe: the place's folder and the names inside it.

    Names a probe creates carry its step's label, so the fixture hashes tell a write made in
    one step from the same write made in another. ``file`` is the place's own file name
    (a place may name one, e.g. a file that is itself a root); else ``probe.txt``. A
    cross-place probe (``to``: a second folder) moves its own source file
    (``movable-<place>.txt``, made for it by the harness) and names its destinations in the
    second folder, with the place in their names, since several places may share that folder.
    """
    sep = os.sep
    values = {
        "dir": directory,
        "file": f"{directory}{sep}{file or 'probe.txt'}",
        "new": f"{directory}{sep}new-{step}-{operation}.txt",
        "newdir": f"{directory}{sep}newdir-{step}-{operation}",
        "src": f"{directory}{sep}movable.txt",
        "dst": f"{directory}{sep}moved-{step}-{operation}.txt",
        "copy": f"{directory}{sep}copied-{step}-{operation}.txt",
    }
    if to:
        values["src"] = f"{directory}{sep}movable-{place}.txt"
        values["dst"] = f"{to}{sep}moved-{step}-{operation}-{place}.txt"
        values["copy"] = f"{to}{sep}copied-{step}-{operation}-{place}.txt"
    return values


def tool_for(operation: dict[str, Any], tools: list[dict[str, Any]]) -> str | None:
    """The first listed tool whose name matches the operation's ``match`` pattern."""
    try:
        pattern = re.compile(str(operation.get("match", "")))
    except re.error:
        return None
    for tool in tools:
        name = tool.get("name")
        if isinstance(name, str) and pattern.fullmatch(name):
            return name
    return None


def run_setup(
    client: Any, op_name: str, operation: dict[str, Any], timeout: float, label: str
) -> bool:
    """Make an operation's ``setup`` calls, once per cell, before its first probe.

    Some path-taking tools act on something that must exist first (a page holding a file
    input, for an upload); the scenario names those calls as data. Each must name a tool the
    server listed: otherwise the operation is skipped (recorded), as with no tool at all. A
    setup call that errs is recorded and the probes still run: the baseline then shows
    whether the tool works, so a later error is never mistaken for a refusal.
    """
    calls = operation.get("setup") or []
    if not calls or op_name in client.probe_setups:
        return True
    listed = {t.get("name") for t in client.tools}
    missing = [c.get("name") for c in calls if c.get("name") not in listed]
    if missing:
        client.tx.note(event="probe-skipped", label=label, operation=op_name,
                       why="no-setup-tool", tools=missing)  # fmt: skip
        return False
    client.probe_setups.add(op_name)
    for index, call in enumerate(calls):
        params = {"name": call["name"], "arguments": call.get("arguments") or {}}
        rid, got = client.call("tools/call", params, timeout)
        client.tx.note(
            event="probe-setup", label=f"{label}:{op_name}:setup-{index}", tool=call["name"],
            outcome="ok" if got else "timeout", id=rid, evidence=got and got[0],
        )  # fmt: skip
    return True


def snapshot(root: str) -> dict[str, str]:
    """relative path -> content hash (or ``dir`` / ``link:<target>``), without following links."""
    out: dict[str, str] = {}
    for folder, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root)
            try:
                if os.path.islink(path):
                    out[rel] = "link:" + os.readlink(path)
                elif os.path.isdir(path):
                    out[rel] = "dir"
                elif os.path.getsize(path) > HASH_LIMIT:
                    out[rel] = f"size:{os.path.getsize(path)}"
                else:
                    with open(path, "rb") as fh:
                        out[rel] = hashlib.sha256(fh.read()).hexdigest()
            except OSError as err:
                out[rel] = f"unreadable:{err.strerror}"
    return out


def run_probes(client: Any, step: dict[str, Any], timeout: float, record: dict[str, Any]) -> None:
    """Play a ``probe`` step: every selected operation the server has, at every selected place."""
    plan_probe = client.plan.get("probe") or {}
    operations: dict[str, Any] = plan_probe.get("operations") or {}
    places: dict[str, Any] = plan_probe.get("places") or {}
    chosen = step.get("probe") or {}
    op_names = chosen.get("operations") or plan_probe.get("operation_order") or list(operations)
    place_names = chosen.get("places") or plan_probe.get("place_order") or list(places)
    label = step.get("label") or "probe"
    calls = silent = 0
    for op_name in op_names:
        operation = operations.get(op_name) or {}
        tool = tool_for(operation, client.tools)
        if tool is None:
            client.tx.note(event="probe-skipped", label=label, operation=op_name, why="no-tool")
            continue
        if not run_setup(client, op_name, operation, timeout, label):
            continue
        for place_name in place_names:
            place = places.get(place_name)
            if place is None or client.closed:
                continue
            probe_label = f"{label}:{op_name}:{place_name}"
            if silent >= MAX_SILENT:
                client.tx.note(event="probe-skipped", label=probe_label, why="server-silent")
                continue
            values = place_values(
                place["dir"],
                op_name,
                label,
                place_name,
                place.get("to_dir") or "",
                place.get("file"),
            )
            arguments = fill(operation.get("arguments", {}), values)
            params = {"name": tool, "arguments": arguments}
            client.tx.note(event="step", index=record["index"], step={
                "probe": op_name, "place": place_name, "tool": tool, "label": probe_label,
                "expect": place.get("expect"),
            })  # fmt: skip
            rid, got = client.call("tools/call", params, timeout)
            calls += 1
            silent = 0 if got else silent + 1
            client.tx.note(
                event="step-done", index=record["index"], label=probe_label,
                outcome="ok" if got else "timeout", id=rid, evidence=got and got[0],
            )  # fmt: skip
    record.update(outcome="ok" if calls else "no-tool", calls=calls)
