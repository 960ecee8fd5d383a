"""The probe fixture of a server cell: folders, files and symlinks inside the cell's workspace.

Enforcement probes ask a server to touch places inside and outside the roots the scripted
client declares. Every such place is made here, under the cell's own temporary workspace,
before the server starts, so a server is never pointed at anything but that folder. Each
folder gets the same three files: ``probe.txt`` (what read-like probes read), ``movable.txt``
(what a move probe moves) and ``canary.txt`` (which no probe names: if it changes, the server
wrote somewhere it was not asked to, and the scripted client's before/after hashes show it).
A scenario may add further files to every folder (``folder_files``: what a server's own tools
need to find at a place before they read it, such as a package.json under node_modules); a
``{place}`` in their text becomes the folder's name, so a reply that quotes one tells which
place was read.

The probe places the plan hands over are absolute path *strings* built by joining text, not
normalised paths: a ``..`` place must reach the server with its ``..`` intact.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from compare._errors import CompareError

#: The files every fixture folder holds, and what each is for (see the module docstring).
FILES = {
    "probe.txt": "probe file: read, edit (dry run) and info probes name it\n",
    "movable.txt": "movable file: a move probe renames it\n",
    "canary.txt": "canary file: no probe names it; it must never change\n",
}


#: The one name a fixture, a root or a place may start with to leave the workspace: the
#: folder beside it (see :func:`beside`).
BESIDE = "{beside}"


def beside(workspace: Path) -> Path:
    """The folder beside the workspace, in the cell's own temporary folder: a root there lies
    outside the server's start-up folder (the workspace), so a probe that works there shows
    the server adopted the roots it was given. Named after the workspace, so its URI needs
    exactly the encoding the workspace's does."""
    return workspace.parent / f"{workspace.name}-beside"


def _split(relative: str) -> tuple[bool, str]:
    """(names the beside folder, the rest of the path after it)."""
    if relative == BESIDE or relative.startswith(BESIDE + "/"):
        return True, relative[len(BESIDE) :].lstrip("/")
    return False, relative


def located(workspace: Path, relative: str) -> str:
    """Where a scenario's relative path lands, as text (not normalised: a ``..`` place must
    reach the server with its ``..`` intact): under the workspace, or under the folder
    beside it when it starts with ``{beside}``; "." is the workspace itself."""
    out, rest = _split(relative)
    base = beside(workspace) if out else workspace
    if rest in ("", "."):
        return str(base)
    return f"{base}{os.sep}{rest}"


def _inside(workspace: Path, relative: str) -> Path:
    """``workspace / relative`` (or the beside folder's), refusing a name that would leave
    it."""
    out, rest = _split(relative)
    if os.path.isabs(rest) or ".." in Path(rest).parts:
        raise CompareError(
            f"fixture path {relative!r} must be relative and stay inside the workspace",
            "name fixture folders and links by plain relative paths (a probe place may use ..)",
        )
    return (beside(workspace) if out else workspace) / rest


def build_fixture(spec: dict[str, Any] | None, workspace: Path) -> None:
    """Create the scenario's ``fixture`` (folders with their files, then symlinks)."""
    if not spec:
        return
    extra = {str(k): str(v) for k, v in (spec.get("folder_files") or {}).items()}
    for relative in spec.get("folders", []):
        folder = _inside(workspace, str(relative))
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in folder_files(str(relative)).items():
            (folder / name).write_text(text, encoding="utf-8")
        for name, text in extra.items():
            path = _inside(folder, name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.replace("{place}", str(relative)), encoding="utf-8")
    for relative, target in (spec.get("links") or {}).items():
        link = _inside(workspace, str(relative))
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(str(target), target_is_directory=True)
    for relative in spec.get("files", []):
        path = _inside(workspace, str(relative))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(file_marker(str(relative)), encoding="utf-8")


def folder_marker(relative: str) -> str:
    """The line that ends every file of fixture folder ``relative``: unique within the cell,
    so a reply quoting it shows on the raw bytes which folder was read."""
    return f"place: {relative}"


def file_marker(relative: str) -> str:
    """What a fixture ``files`` entry holds: its own unique marker line."""
    return f"fixture file: {relative}\n"


def folder_files(relative: str) -> dict[str, str]:
    """The three files of fixture folder ``relative``, name -> text (also what an ``fs``
    mkdir step writes, through the plan)."""
    return {name: f"{text}{folder_marker(relative)}\n" for name, text in FILES.items()}


def not_created(spec: dict[str, Any] | None) -> set[str]:
    """Root names the harness must not make folders for: fixture files (a file as a root)
    and ``absent`` names (a root naming a missing folder)."""
    spec = spec or {}
    return {str(n) for n in [*spec.get("files", []), *spec.get("absent", [])]}


def source_name(place: str) -> str:
    """The file a cross-place probe (a place with ``to``) moves: one per place, so the move
    at one place never finds its source taken by another's."""
    return f"movable-{place}.txt"


def build_sources(spec: dict[str, Any] | None, workspace: Path) -> None:
    """Create each cross-place probe's own source file in its folder (after the fixture)."""
    for name, place in ((spec or {}).get("places") or {}).items():
        if place.get("to"):
            folder = _inside(workspace, os.path.normpath(str(place["path"])))
            folder.mkdir(parents=True, exist_ok=True)
            text = f"{FILES['movable.txt']}place: {place['path']} (to {place['to']})\n"
            (folder / source_name(str(name))).write_text(text, encoding="utf-8")


def probe_places(spec: dict[str, Any] | None, workspace: Path) -> dict[str, dict[str, Any]]:
    """The plan's probe places: name -> {dir (absolute text, not normalised), expect, real,
    and ``file`` when the place names its own file}, and for a cross-place probe ``to_dir``
    and ``to_real``, the same for its ``to`` folder.

    ``real`` is where the place lands once ``..`` and the fixture's links are resolved,
    relative to the workspace (call after :func:`build_fixture`); the judge looks for a
    write's traces there.
    """
    places: dict[str, dict[str, Any]] = {}
    base = os.path.realpath(workspace)
    for name, place in ((spec or {}).get("places") or {}).items():
        text = str(place["path"])
        # "." is the workspace itself (the folder around top-level roots), sent as is
        directory = located(workspace, text)
        places[str(name)] = {
            "dir": directory,
            **({"file": str(place["file"])} if place.get("file") else {}),
            "path": text,
            "real": os.path.relpath(os.path.realpath(directory), base),
            "expect": str(place["expect"]),
            "why": str(place.get("why", "")),
        }
        if place.get("to"):
            to_dir = located(workspace, str(place["to"]))
            places[str(name)]["to_dir"] = to_dir
            places[str(name)]["to_real"] = os.path.relpath(os.path.realpath(to_dir), base)
    return places
