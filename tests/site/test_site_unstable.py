"""An unstable cell (issue 21) on the site and in ``matrix.json``: its own symbol and colour
class, each play's outcome with a link to that play's transcript, and an export that the
published schema accepts (and that refuses a play outside the vocabulary)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
from conftest import mc
from site_data import write_cell

from compare._paths import PROJECT_ROOT
from compare.site import render

SCHEMA = json.loads((PROJECT_ROOT / "compare/site/matrix.schema.json").read_text("utf-8"))
SLUG = "ts-sdk--1.32.2--roots-list--2024-11-05--roots"


def _unstable(results: Path) -> Path:
    """A ts-sdk cell played twice: pass, then fail, on its one check."""
    folder = write_cell(results, "ts-sdk", "1.32.2", "roots-list", "2024-11-05", "unstable")
    (folder / "plays" / "2").mkdir(parents=True)
    shutil.copy(folder / "transcript.jsonl", folder / "plays/2/transcript.jsonl")
    path = folder / "verdict.json"
    data = json.loads(path.read_text("utf-8"))
    data["differed"] = ["root-uri-encoding"]
    data["reason"] = "the outcome differed between 2 plays"
    data["checks"][0] |= {"outcomes": ["encoded", "raw"], "verdicts": ["pass", "fail"]}
    data["plays"] = [
        {"play": 1, "verdict": "pass", "transcript": "transcript.jsonl"},
        {"play": 2, "verdict": "fail", "transcript": "plays/2/transcript.jsonl"},
    ]
    path.write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_an_unstable_cell_page_lists_each_play_with_its_transcript(site_env: Path) -> None:
    _unstable(site_env / "results")
    render()
    cells = site_env / "site" / "docs" / "cells"
    page = (cells / f"{SLUG}.md").read_text("utf-8").replace("<wbr>", "")  # break points
    assert "mc-verdict-unstable" in page and "↯" in page
    assert "played 2 times" in page and "<code>root&#45;uri&#45;encoding</code>" in page
    assert f"({SLUG}.transcript.jsonl)" in page
    assert f"({SLUG}.play-2.transcript.jsonl)" in page
    assert (cells / f"{SLUG}.play-2.transcript.jsonl").is_file()
    css = (PROJECT_ROOT / "site/assets/mcp-compare.css").read_text("utf-8")
    assert ".mc-verdict-unstable" in css and ".mc-status-unstable" in css
    built = mc("site")  # mkdocs --strict: every play's link resolves
    assert built.returncode == 0, built.stderr


def test_matrix_json_carries_unstable_and_the_plays(site_env: Path) -> None:
    _unstable(site_env / "results")
    proc = mc("export")
    assert proc.returncode == 0, proc.stderr
    matrix = json.loads((site_env / "build" / "matrix.json").read_text("utf-8"))
    jsonschema.validate(matrix, SCHEMA, cls=jsonschema.Draft202012Validator)
    cell = next(c for c in matrix["cells"] if c["id"] == SLUG)
    assert cell["verdict"] == "unstable" and cell["differed"] == ["root-uri-encoding"]
    rel = "results/ts-sdk/1.32.2/roots-list/2024-11-05~roots"
    assert cell["plays"] == [
        {"play": 1, "verdict": "pass", "transcript": f"{rel}/transcript.jsonl"},
        {"play": 2, "verdict": "fail", "transcript": f"{rel}/plays/2/transcript.jsonl"},
    ]
    once = next(c for c in matrix["cells"] if c["verdict"] not in ("unstable", "not-run"))
    assert [p["play"] for p in once["plays"]] == [1]  # a cell played once is its own play
    cell["plays"][1]["verdict"] = "unstable"  # a play is never unstable: only a cell is
    try:
        jsonschema.validate(matrix, SCHEMA, cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as err:
        assert "unstable" in err.message
    else:
        raise AssertionError("a play verdict outside the vocabulary passed the schema")
