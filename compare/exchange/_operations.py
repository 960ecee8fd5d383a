"""Probe operations: each path-taking tool a server scenario may probe, defined once.

``scenarios/_operations.yaml`` says what tools perform an operation and what a probe sends;
a scenario's ``probe.operations`` only names the ones it probes. Loading puts each definition
in its place (and plants the files an operation's tool needs at a place into the scenario's
fixture), so everything downstream — the scripted client's plan, the cell keys, the cell
pages — reads the whole operation as if the scenario had spelled it out.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

from compare._errors import CompareError
from compare.exchange._yaml import check_schema, load_yaml

HERE = Path(__file__).resolve().parent
OPERATIONS_FILE = HERE / "scenarios" / "_operations.yaml"
OPERATIONS_SCHEMA = HERE / "operations.schema.json"


def operations_file(folder: Path) -> Path:
    """The operations file of a scenario folder: its own ``_operations.yaml``, else the
    shipped one (a test's scenario folder may bring its own)."""
    own = folder / "_operations.yaml"
    return own if own.is_file() else OPERATIONS_FILE


def load_operations(path: Path = OPERATIONS_FILE) -> dict[str, dict[str, Any]]:
    """Operation name -> its definition, validated; re-read when the file changes."""
    try:
        stat = path.stat()
    except OSError as err:
        raise CompareError(
            f"{path}: cannot read the probe operations ({err.strerror})",
            "restore compare/exchange/scenarios/_operations.yaml",
        ) from err
    return _load(path, stat.st_mtime_ns, stat.st_size)


@cache
def _load(path: Path, _mtime: int, _size: int) -> dict[str, dict[str, Any]]:
    data = load_yaml(path)
    check_schema(data, OPERATIONS_SCHEMA, path, remember=True)
    assert isinstance(data, dict)
    return dict(data["operations"])


def expand_probe(data: dict[str, Any], source: Path) -> dict[str, Any]:
    """``data`` with ``probe.operations`` turned from names into their definitions (in the
    scenario's order) and the files those operations need added to ``fixture.folder_files``.

    A name the operations file does not define, or two definitions wanting different text in
    the same file, is an error naming the scenario's key.
    """
    probe = data.get("probe")
    if not isinstance(probe, dict) or not isinstance(probe.get("operations"), list):
        return data
    known = load_operations(operations_file(source.parent))
    chosen: dict[str, dict[str, Any]] = {}
    files: dict[str, str] = {}
    for i, name in enumerate(probe["operations"]):
        if name not in known:
            raise CompareError(
                f"{source}: key probe.operations.{i}: {name!r} is not a probe operation",
                f"define it in _operations.yaml or name one of: {', '.join(sorted(known))}",
            )
        definition = copy.deepcopy(known[name])
        for rel, text in (definition.pop("files", None) or {}).items():
            if files.get(rel, text) != text:
                raise CompareError(
                    f"{source}: key probe.operations.{i}: {name!r} needs {rel} with other text"
                    " than an operation before it",
                    "give the two operations one text for that file in _operations.yaml",
                )
            files[rel] = text
        chosen[name] = definition
    expanded = {**data, "probe": {**probe, "operations": chosen}}
    fixture = data.get("fixture")
    if files and isinstance(fixture, dict):
        own = dict(fixture.get("folder_files") or {})
        clash = sorted(rel for rel in own if rel in files and own[rel] != files[rel])
        if clash:
            raise CompareError(
                f"{source}: key fixture.folder_files.{clash[0]}: the probe operations plant"
                " this file with other text",
                "drop it from the fixture, or change it in _operations.yaml",
            )
        expanded["fixture"] = {**fixture, "folder_files": {**files, **own}}
    return expanded
