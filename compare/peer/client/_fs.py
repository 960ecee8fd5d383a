"""Mid-cell changes to the cell's own fixture: ``fs`` steps and the symlink ``race``.

Some questions about roots can only be asked by changing the disk while the server runs: a
root that names a missing folder which appears later, a root folder deleted and made again,
a link inside a root swapped for one pointing out between the server's check and its use.
The scenario says what to change; this module does it, only ever inside the cell's own
workspace: a path that is absolute, climbs with ``..`` or resolves (through a link) outside
the workspace is refused and recorded, never touched.

Standard library only, like the rest of the scripted client.
"""

from __future__ import annotations

import os
import shutil
import time

from ._probes import MAX_SILENT, fill, place_values, tool_for

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any


def inside(workspace: str, relative: str) -> str | None:
    """``workspace/relative`` when it stays inside the workspace, else None.

    The path's folder is resolved (links followed) and must lie in the resolved workspace;
    the last part is kept as written, so a link itself can be removed or replaced.
    """
    if not relative or os.path.isabs(relative) or ".." in relative.replace("\\", "/").split("/"):
        return None
    base = os.path.realpath(workspace)
    path = os.path.join(workspace, relative)
    parent = os.path.realpath(os.path.dirname(path))
    if parent != base and not parent.startswith(base + os.sep):
        return None
    if os.path.normpath(path) == os.path.normpath(workspace):
        return None  # the workspace itself is never removed or replaced
    return path


def _replace_link(path: str, target: str) -> None:
    """Point the link at ``path`` to ``target`` in one rename (never a moment without it)."""
    temp = f"{path}.swap-{os.getpid()}"
    if os.path.lexists(temp):
        os.unlink(temp)
    os.symlink(target, temp, target_is_directory=True)
    os.replace(temp, path)


def run_fs(client: Any, step: dict[str, Any], record: dict[str, Any]) -> None:
    """Play an ``fs`` step: mkdir, remove, or link (with ``to``)."""
    spec = step.get("fs") or {}
    workspace = str(client.plan.get("fixture") or client.plan.get("workspace") or "")
    kind = next((k for k in ("mkdir", "remove", "link") if k in spec), "")
    relative = str(spec.get(kind, ""))
    path = inside(workspace, relative) if workspace else None
    if path is None:
        client.tx.note(event="fs", op=kind, path=relative, done=False, why="outside-workspace")
        record.update(outcome="refused-path")
        return
    try:
        if kind == "mkdir":
            os.makedirs(path, exist_ok=True)
            files = (client.plan.get("fixture_files") or {}).get(relative) or {}
            for name, text in files.items():
                with open(os.path.join(path, name), "w", encoding="utf-8") as fh:
                    fh.write(text)
        elif kind == "remove":
            if os.path.islink(path) or os.path.isfile(path):
                os.unlink(path)
            elif os.path.isdir(path):
                shutil.rmtree(path)
        else:
            _replace_link(path, str(spec["to"]))
    except OSError as err:
        client.tx.note(event="fs", op=kind, path=relative, done=False, why=str(err))
        record.update(outcome="fs-error")
        return
    client.tx.note(event="fs", op=kind, path=relative, done=True, to=spec.get("to"))
    record.update(outcome="ok")


def run_race(client: Any, step: dict[str, Any], timeout: float, record: dict[str, Any]) -> None:
    """Play a ``race`` step: ``attempts`` calls through a link swapped out while each runs.

    Every attempt is one note (``event: race``) naming the request's and the answer's lines,
    so the judge reads from the raw answer whether the outside file's marker came back.
    """
    race = step.get("race") or {}
    label = str(step.get("label") or "race")
    plan_probe = client.plan.get("probe") or {}
    operation = (plan_probe.get("operations") or {}).get(race.get("operation")) or {}
    place = (plan_probe.get("places") or {}).get(race.get("place"))
    workspace = str(client.plan.get("fixture") or "")
    link = inside(workspace, str(race.get("link", ""))) if workspace else None
    tool = tool_for(operation, client.tools) if operation else None
    if tool is None or place is None or link is None:
        why = "no-tool" if tool is None else "no-place" if place is None else "outside-workspace"
        client.tx.note(event="race-skipped", label=label, why=why)
        record.update(outcome="no-tool" if why == "no-tool" else "refused-path")
        return
    inner, outer = str(race["inside"]), str(race["outside"])
    spread = float(race.get("spread_ms", 0)) / 1000
    values = place_values(place["dir"], str(race["operation"]), label, file=place.get("file"))
    params = {"name": tool, "arguments": fill(operation.get("arguments", {}), values)}
    calls = silent = 0
    try:
        for attempt in range(int(race.get("attempts", 1))):
            if client.closed or silent >= MAX_SILENT:
                why = "server-closed" if client.closed else "server-silent"
                client.tx.note(event="race-skipped", label=label, attempt=attempt, why=why)
                break
            _replace_link(link, inner)
            client.next_id += 1
            rid = client.next_id
            sent = client.send(
                {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
            )
            time.sleep(spread * (attempt % 5) / 4)
            _replace_link(link, outer)
            swapped = round(client.tx.now(), 6)
            client.wait(lambda rid=rid: rid in client.responses, timeout)
            got = client.responses.get(rid)
            calls += 1
            silent = 0 if got else silent + 1
            client.tx.note(
                event="race", label=label, attempt=attempt, id=rid, request=sent,
                response=got and got[0], swapped_t=swapped, tool=tool,
            )  # fmt: skip
    except OSError as err:
        client.tx.note(event="race-skipped", label=label, why=str(err))
    finally:
        try:  # noqa: SIM105 - contextlib would cost start-up time
            _replace_link(link, inner)
        except OSError:
            pass
    record.update(outcome="ok" if calls else "no-answer", calls=calls)
