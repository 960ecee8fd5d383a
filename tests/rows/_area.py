"""A minimal valid area file and the names it refers to, for lint and compute tests."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from _revisions import first_after_initialize, latest_initialize_era, revisions

from compare.rows import Known
from compare.rows._implementations import Implementation, Registry

GOOD_CITE = (
    "docs/specification/2025-11-25/client/roots.mdx:47 “servers send a `roots/list` request”"
)

ROW: dict[str, Any] = {
    "id": "ROOT-01",
    "difference": "one line",
    "labels": ["roots/list"],
    "where": {"items": ["ListRootsRequest"]},
    "status": {"query": {"scenario": "roots-list", "check": "answered"}},
    "value": "high",
    "effort": "low",
    "risk": "medium",
    "what": "w",
    "where_detail": "w",
    "status_detail": "s",
    "value_detail": "v",
    "effort_detail": "e",
    "risk_detail": "r",
    "detail": "d",
    "sources": [GOOD_CITE],
}

AREA: dict[str, Any] = {
    "area": "roots",
    "title": "Roots",
    "summary": "s",
    "id_prefix": "ROOT",
    "implementations": ["mcpx"],  # declared once, in REGISTRY
    "rows": [ROW],
}

# The crafted diff spans three pinned revisions: the first, the last with ``initialize`` and the
# first without it (where roots/list changes shape and the notification goes away).
REVS = [revisions()[0], latest_initialize_era(), first_after_initialize()]
OLDEST, LAST_INIT, FIRST_AFTER = REVS


def diff() -> dict[str, Any]:
    return {
        "spec_commit": "b0f60ba5409db7a6582440a7b473cc0398890f15",
        "revisions": REVS,
        "items": {
            "ListRootsRequest": {
                "kind": "definition",
                "revisions": {
                    r: {"present": True, "source": f"schema/{r}/schema.json", "line": 10}
                    for r in REVS
                },
            },
            "RootsListChangedNotification": {
                "kind": "definition",
                "revisions": {
                    OLDEST: {"present": True},
                    LAST_INIT: {"present": True},
                    FIRST_AFTER: {"present": False},
                },
            },
        },
        "changes": [
            {
                "item": "ListRootsRequest",
                "revision": FIRST_AFTER,
                "change": "changed",
                "detail": "id and jsonrpc no longer required",
            },
            {
                "item": "RootsListChangedNotification",
                "revision": FIRST_AFTER,
                "change": "removed",
                "detail": "gone",
            },
        ],
        "deprecation": {
            FIRST_AFTER: {
                "deprecated": True,
                "source": "docs/x.mdx",
                "line": 8,
                "quote": "deprecated",
            }
        },
    }


#: The crafted areas' registry: their one cited column, declared once.
REGISTRY = Registry(
    Path("implementations.yaml"),
    {"mcpx": Implementation("mcpx", "mcpx", "cited", "no package")},
)


def known() -> Known:
    return Known(
        registry=REGISTRY,
        targets={
            "ts-sdk": {"id": "ts-sdk", "name": "TypeScript SDK"},
            "codex": {"id": "codex", "name": "Codex"},
        },
        scenarios={"roots-list": {"answered", "root-uri-encoding", "workspace-root"}},
        grades={
            "roots-list": {
                "answered": {"pass", "fail", "informational", "error"},
                "root-uri-encoding": {"pass", "non-strict", "fail"},
                # a check that cannot fail (issue 36): it records, never passes
                "workspace-root": {"informational"},
            }
        },
        outcomes={
            "roots-list": {
                "answered": {"result", "error", "silence"},
                "root-uri-encoding": {"encoded", "hash-unencoded"},
                "workspace-root": {"present", "absent"},
            }
        },
        diff=diff(),
        pinned={"ts-sdk": "1.32.2", "codex": "0.171.0"},
    )


def area(**changes: Any) -> dict[str, Any]:
    """A deep copy of AREA with top-level changes applied."""
    out = copy.deepcopy(AREA)
    out.update(changes)
    return out


def row(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(ROW)
    out.update(changes)
    return out


def write(path: Path, data: dict[str, Any]) -> Path:
    """JSON is YAML 1.2, so the file goes through the real YAML loader."""
    path.write_text("%YAML 1.2\n---\n" + json.dumps(data, ensure_ascii=False, indent=1))
    return path
