"""A small, realistic data set in the formats CONTRACTS.md fixes, written into a temp folder.

Shapes follow what the real stages write (``verdict.json`` and ``transcript.jsonl`` of §4,
``build/rows.json`` of ``mcp-compare rows``, ``build/citations.json`` of ``cite --check``,
``build/diff.json`` of §3). Values are made up for the tests and never committed as results.
One cell comes from a hostile client: markup, table breakers, a javascript: link and
template-looking text in its clientInfo and root URI.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from _revisions import initialize_era, revisions

COMMIT = "b0f60ba5409db7a6582440a7b473cc0398890f15"
MCPX = "610cbb9eb146b59f8afcd35e32fc3bf787e0748e"
REVISIONS = revisions()
#: The revisions that still have initialize (where the made-up roots-list cells live).
DATED = initialize_era()
HOSTILE_NAME = "<script>window.__pwned=1</script>|x`y`[z](javascript:alert(1)){{ 7*7 }}{% raw %}"
HOSTILE_URI = "file:///w/<img src=x onerror=window.__pwned=2>|**bold**"


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _line(n: int, t: float, direction: str, obj: Any) -> str:
    raw = obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)
    return json.dumps({"n": n, "t": t, "dir": direction, "raw": raw}, ensure_ascii=False)


def write_cell(
    results: Path,
    target: str,
    version: str,
    scenario: str,
    revision: str,
    verdict: str,
    *,
    variant: str = "roots",
    client_name: str = "example-client",
    root_uri: str = "file:///tmp/ws/web%20%23staging%20%C3%A9",
) -> Path:
    """One cell folder with plan, transcript, stderr and verdict."""
    folder = results / target / version / scenario / f"{revision}~{variant}"
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {"roots": {"listChanged": True}},
            "clientInfo": {"name": client_name, "version": "1.0"},
        },
    }
    lines = [
        _line(1, 0.01, "in", init),
        _line(2, 0.02, "out", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": revision}}),
        _line(3, 0.03, "in", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _line(4, 0.04, "out", {"jsonrpc": "2.0", "id": 1, "method": "roots/list"}),
        _line(5, 0.05, "in", {"jsonrpc": "2.0", "id": 1, "result": {"roots": [{"uri": root_uri}]}}),
        json.dumps({"n": 6, "t": 0.06, "dir": "note", "raw": "stdin closed"}),
    ]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "transcript.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "client.stdout").write_text("", encoding="utf-8")
    (folder / "client.stderr").write_text(f"{client_name} started\n", encoding="utf-8")
    _write(folder / "plan.json", {"scenario": scenario})
    _write(
        folder / "verdict.json",
        {
            "format": 1,
            "target": target,
            "target_version": version,
            "variant": variant,
            "scenario": scenario,
            "revision": revision,
            "key": "0" * 64,
            "verdict": verdict,
            "reason": f"the root URI {root_uri} was judged {verdict}",
            "checks": [
                {
                    "id": "root-uri-encoding",
                    "verdict": verdict,
                    "expected": "space, # and é percent-encoded",
                    "observed": root_uri,
                    "reason": "judged on the raw string",
                    "evidence": [5],
                    "refs": [
                        {
                            # a sentence that wraps: cited by its line range, quoted whole
                            "cite": f"docs/specification/{revision}/client/roots.mdx:110-111",
                            "quote": "This **MUST** be a `file://` URI in the current"
                            " specification.",
                            "from": "2024-11-05",
                            "until": None,
                        }
                    ],
                }
            ],
            "client_info": {"name": client_name, "version": "1.0"},
            "client_protocol_version": revision,
            "client_capabilities": {"roots": {"listChanged": True}},
            "negotiated_revision": revision,
            "started_at": "2026-11-29T13:00:00Z",
            "duration_s": 0.5,
            "process": {"exit_code": 0, "ended_by": "self", "leftover_killed": 0},
            "files": {
                "transcript": "transcript.jsonl",
                "stdout": "client.stdout",
                "stderr": "client.stderr",
            },
        },
    )
    return folder


def _cite(ref: str, status: str = "verified", message: str = "quote found at the cited place"):
    path, _, rest = ref.partition(":")
    line = rest.split(" ")[0]
    return {
        "ref": ref,
        "status": status,
        "message": message,
        "link": f"https://github.com/modelcontextprotocol/modelcontextprotocol/blob/{COMMIT}/{path}#L{line}",
        "provenance": f"spec @ {COMMIT}",
        "open_question": False,
    }


def write_dataset(root: Path, *, hostile: bool = True) -> dict[str, Path]:
    """results/, build/{diff,rows,citations}.json under ``root``; returns their paths."""
    results, build = root / "results", root / "build"
    cells = []
    for rev in DATED:
        cells.append(write_cell(results, "ts-sdk", "1.32.2", "roots-list", rev, "pass"))
    cells.append(write_cell(results, "ts-sdk", "1.31.0", "roots-list", "2025-11-25", "fail"))
    cells.append(write_cell(results, "py-sdk", "2.3.0", "roots-list", "2025-11-25", "non-strict"))
    if hostile:
        cells.append(
            write_cell(
                results,
                "command",
                "0",
                "roots-list",
                "2025-11-25",
                "fail",
                client_name=HOSTILE_NAME,
                root_uri=HOSTILE_URI,
            )
        )
    quote = (
        "docs/specification/2025-11-25/client/roots.mdx:47"
        " “To retrieve roots, servers send a `roots/list` request”"
    )
    gh = f"gh:lydakis/mcpx@{MCPX}/internal/mcppool/stdio.go:31 “Capabilities:”"
    unavailable = _cite(gh, "unavailable", "not verified: source unavailable")
    unavailable["link"] = (
        f"https://github.com/lydakis/mcpx/blob/{MCPX}/internal/mcppool/stdio.go#L31"
    )
    ts = [f"ts-sdk/1.32.2/roots-list/{rev}~roots" for rev in DATED]
    status = {
        "ts-sdk": {
            "state": "supported",
            "label": "supported",
            "version": "1.32.2",
            "revisions": {
                rev: {"cell": f"results/{c}", "verdict": "pass"}
                for rev, c in zip(DATED, ts, strict=True)
            },
            "evidence": [f"results/{c}" for c in ts],
            # The older version's cell failed: the rows stage's history says which changed it.
            "history": [
                {"version": "1.31.0", "state": "not-supported", "label": "not supported"},
                {"version": "1.32.2", "state": "supported", "label": "supported"},
            ],
        },
        "py-sdk": {
            "state": "non-strict",
            "label": "non-strict",
            "version": "2.3.0",
            "note": "encodes the space but not the '#'",
            "note_version": "2.3.0",
            "note_state": "non-strict",
            "revisions": {
                "2025-11-25": {
                    "cell": "results/py-sdk/2.3.0/roots-list/2025-11-25~roots",
                    "verdict": "non-strict",
                }
            },
            "evidence": ["results/py-sdk/2.3.0/roots-list/2025-11-25~roots"],
        },
        "mcpx": {
            "state": "cited",
            "label": "cited, not run",
            "cited_state": "not-supported",
            "reason": "not run, because it is a Go daemon with no package",
            "sources": [unavailable],
        },
    }
    if hostile:
        status["command"] = {
            "state": "not-supported",
            "label": "not supported",
            "version": "0",
            "note": HOSTILE_NAME,
            "revisions": {
                "2025-11-25": {
                    "cell": "results/command/0/roots-list/2025-11-25~roots",
                    "verdict": "fail",
                }
            },
            "evidence": ["results/command/0/roots-list/2025-11-25~roots"],
        }
    where = {
        "items": ["ListRootsRequest"],
        "computed": True,
        "revisions": {
            rev: {
                "state": "present" if rev in DATED else "changed",
                **({"deprecated": True} if rev not in DATED else {}),
            }
            for rev in REVISIONS
        },
    }
    rows = {
        "format": 1,
        "generated_by": "mcp-compare rows",
        "spec_commit": COMMIT,
        "revisions": REVISIONS,
        "implementations": [
            {"id": "ts-sdk", "name": "TypeScript SDK", "kind": "run", "version": "1.32.2"},
            {
                "id": "mcpx",
                "name": "mcpx",
                "kind": "cited",
                "version": None,
                "repository": "lydakis/mcpx",
                "why_not_run": "a Go daemon with no package",
            },
        ],
        "areas": [
            {
                "area": "roots",
                "title": "Roots",
                "summary": "Which folders a client puts in scope.",
                "file": "roots.yaml",
                "rows": [
                    {
                        "id": "ROOT-01",
                        "difference": "A server asks for roots with roots/list",
                        "labels": ["roots/list", "client"],
                        "value": "high",
                        "effort": "low",
                        "risk": "medium",
                        "what": "The request and its answer.",
                        "where_detail": "Every revision; embedded only from 2026-07-28.",
                        "status_detail": "SDKs answer; see each cell.",
                        "value_detail": "v",
                        "effort_detail": "e",
                        "risk_detail": "r",
                        "detail": "Details with a | pipe and <b>markup</b>.",
                        "where": where,
                        "status": status,
                        "sources": [_cite(quote)],
                    },
                    {
                        "id": "ROOT-02",
                        "difference": "notifications/roots/list_changed is gone in 2026-07-28",
                        "labels": ["notification"],
                        "value": "medium",
                        "effort": "low",
                        "risk": "low",
                        "what": "w",
                        "where_detail": "wd",
                        "status_detail": "sd",
                        "value_detail": "v",
                        "effort_detail": "e",
                        "risk_detail": "r",
                        "detail": "d",
                        "where": {
                            "items": [],
                            "computed": False,
                            "reason": "not computed, because build/diff.json is missing",
                        },
                        "status": {
                            "ts-sdk": {
                                "state": "not-run",
                                "label": "not run",
                                "reason": "not run, because no cell",
                            }
                        },
                        "sources": [],
                    },
                ],
            }
        ],
        "issues": [],
        "broken_cells": [],
        "missing_inputs": {},
    }
    _write(build / "rows.json", rows)
    _write(
        build / "citations.json",
        {"format": 1, "tally": {}, "warnings": [], "citations": [_cite(quote), unavailable]},
    )
    diff = {
        "area": "roots",
        "spec_commit": COMMIT,
        "revisions": REVISIONS,
        "items": {
            "ListRootsRequest": {
                "kind": "definition",
                "revisions": {
                    rev: {
                        "present": True,
                        "required": None,
                        "type": "object",
                        "ref": None,
                        "source": f"schema/{rev}/schema.json",
                        "line": 100,
                        "role": "core",
                    }
                    for rev in REVISIONS
                },
            },
            # The revision pages show the generated classes of the area's own definitions.
            "Root": {
                "kind": "definition",
                "revisions": {rev: {"present": True, "role": "owned"} for rev in REVISIONS},
            },
            "RootsListChangedNotification": {
                "kind": "definition",
                "revisions": {rev: {"present": rev in DATED} for rev in REVISIONS},
            },
        },
        "changes": [
            {
                "item": "RootsListChangedNotification",
                "revision": "2026-07-28",
                "change": "removed",
                "detail": "no longer defined",
            },
        ],
        "deprecation": {
            "2026-07-28": {
                "deprecated": True,
                "source": "docs/specification/2026-07-28/client/roots.mdx",
                "line": 9,
                "quote": "Roots are deprecated",
            }
        },
    }
    _write(build / "diff.json", diff)
    return {"results": results, "build": build, "cells": cells[0].parent}


#: The real site's areas (titles as long as the real ones: they set the columns' width).
AREAS = [
    ("roots", "Roots"),
    ("completion", "Completion"),
    ("elicitation", "Elicitation"),
    ("lifecycle", "Lifecycle and versioning"),
    ("logging", "Logging"),
    ("pagination", "Pagination and caching"),
    ("prompts", "Prompts"),
    ("resources", "Resources"),
    ("sampling", "Sampling"),
    ("tools", "Tools"),
    ("transports", "Transports"),
]
VERDICTS = ["pass", "pass", "fail", "non-strict", "informational", "pass", "unstable"]


def eleven_areas(rows_json: Path, implementations: list[str], rows_per_area: int = 12) -> None:
    """Eleven areas of ``rows_per_area`` rows (the first area's rows kept first), every third of
    ``implementations`` (each kind among them) with per-revision verdicts (the crafted cells
    stand behind them), so interop squares hold two-digit shares as the real ones do."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    template = data["areas"][0]["rows"][0]
    cells = [f"results/ts-sdk/1.32.2/roots-list/{rev}~roots" for rev in DATED]
    areas = []
    for a, (area, title) in enumerate(AREAS):
        rows = []
        for r in range(rows_per_area):
            row = copy.deepcopy(template)
            row["id"] = f"{area[:4].upper()}-{r + 1:02d}"
            row.pop("status_query", None)
            row["status"] = {}  # only the implementations below: the pages stay light
            for c, name in enumerate(implementations[::3]):
                verdict = VERDICTS[(a + r + c) % len(VERDICTS)]
                row["status"][name] = {
                    "state": "supported",
                    "label": "supported",
                    "revisions": {
                        rev: {"cell": cell, "verdict": verdict}
                        for rev, cell in zip(DATED, cells, strict=True)
                    },
                    "evidence": cells,
                }
            rows.append(row)
        areas.append({"area": area, "title": title, "summary": "s", "file": "f", "rows": rows})
    first = data["areas"][0]
    data["areas"] = [first, *[a for a in areas if a["area"] != first["area"]]]
    rows_json.write_text(json.dumps(data), encoding="utf-8")
