"""The published columns a report shows beside the checked program: "am I better or worse
than X" in one glance.

They are read from the rows the last ``make compare`` wrote (``build/rows.json``), never
played again by a check; a report says when there is none, or when a named column is not in
it, rather than showing an empty column as if it were a result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from compare._errors import CompareError
from compare._yaml import load_yaml

HERE = Path(__file__).resolve().parent
DEFAULTS = HERE / "beside.yaml"


def default_beside(side: str, path: Path = DEFAULTS) -> list[str]:
    """The columns named for ``side`` in ``beside.yaml`` (checked against its schema)."""
    data = load_yaml(path)
    schema = json.loads((HERE / "check-beside.schema.json").read_text(encoding="utf-8"))
    problems = sorted(Draft202012Validator(schema).iter_errors(data), key=str)
    if problems:
        raise CompareError(
            f"{path}: {problems[0].message}", "fix the file; see check-beside.schema.json"
        )
    return list(data.get(side) or [])


def published(rows_json: Path, wanted: list[str]) -> dict[str, Any]:
    """``{"source", "generated", "columns": [{id, name, version}], "states": {row: {id: …}},
    "missing": [why]}`` from a rows document; a missing or unreadable one is said, not
    raised: the check's own result does not depend on it."""
    out: dict[str, Any] = {"source": str(rows_json), "columns": [], "states": {}, "missing": []}
    try:
        data = json.loads(rows_json.read_text(encoding="utf-8"))
        areas = data["areas"]
        impls = {str(i["id"]): i for i in data.get("implementations") or []}
    except (OSError, ValueError, KeyError, TypeError) as err:
        why = "there is none" if isinstance(err, FileNotFoundError) else f"unreadable ({err})"
        out["missing"].append(
            f"no published matrix to compare with: {rows_json.name} {why}; `make compare` writes it"
        )
        return out
    for ident in wanted:
        impl = impls.get(ident)
        if impl is None:
            out["missing"].append(f"{ident} is not a column of the published matrix")
            continue
        out["columns"].append(
            {"id": ident, "name": str(impl.get("name") or ident), "version": impl.get("version")}
        )
    shown = [c["id"] for c in out["columns"]]
    for area in areas:
        for row in area.get("rows") or []:
            status = row.get("status") or {}
            out["states"][str(row["id"])] = {
                ident: {"state": status[ident]["state"], "label": status[ident]["label"]}
                for ident in shown
                if isinstance(status.get(ident), dict)
            }
    return out
