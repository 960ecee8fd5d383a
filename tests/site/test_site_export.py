"""``mcp-compare export``: matrix.json valid against its published schema; previous run kept."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from _revisions import revisions
from conftest import mc
from site_data import write_cell

from compare import __version__
from compare._paths import PROJECT_ROOT
from compare.site import render

SCHEMA = PROJECT_ROOT / "compare" / "site" / "matrix.schema.json"


def _schema() -> dict[str, object]:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert isinstance(schema, dict)
    return schema


def test_export_is_valid_against_the_published_schema(site_env: Path) -> None:
    proc = mc("export")
    assert proc.returncode == 0, proc.stderr
    matrix = json.loads((site_env / "build" / "matrix.json").read_text(encoding="utf-8"))
    jsonschema.validate(matrix, _schema(), cls=jsonschema.Draft202012Validator)
    assert [r["id"] for r in matrix["revisions"]] == revisions()
    # The areas are data too: each names its rows, and each row names its area.
    areas = {a["id"]: a for a in matrix["areas"]}
    assert areas and all(a["title"] and a["rows"] for a in areas.values())
    for row in matrix["rows"]:
        assert row["id"] in areas[row["area"]]["rows"], row["id"]
    assert sum(len(a["rows"]) for a in areas.values()) == len(matrix["rows"])
    ts = next(i for i in matrix["implementations"] if i["id"] == "ts-sdk")
    assert ts["versions"] == ["1.31.0", "1.32.2"] and ts["current_version"] == "1.32.2"
    mcpx = next(i for i in matrix["implementations"] if i["id"] == "mcpx")
    assert mcpx["kind"] == "cited"
    cell = next(
        c for c in matrix["cells"] if c["id"] == "py-sdk--2.3.0--roots-list--2025-11-25--roots"
    )
    assert cell["verdict"] == "non-strict"
    assert cell["transcript"] == "results/py-sdk/2.3.0/roots-list/2025-11-25~roots/transcript.jsonl"
    # issue 36 item 7: a cell with no transcript names none instead of a file that is not there
    assert all(
        c["transcript"] is None or (site_env / c["transcript"]).is_file() for c in matrix["cells"]
    )
    row = next(r for r in matrix["rows"] if r["id"] == "ROOT-01")
    assert row["status"]["py-sdk"]["state"] == "non-strict"  # one non-strict cell: not partial
    assert row["where"]["2026-07-28"] == "changed" and "2026-07-28" in row["deprecated_in"]
    statuses = {c["status"] for c in matrix["citations"]}
    assert statuses == {"verified", "unavailable"}
    # issue 42 item 3: dated and sourced, from the results (every cell here started then)
    assert matrix["measured"] == {"from": "2026-11-29T13:00:00Z", "to": "2026-11-29T13:00:00Z"}
    assert matrix["tool"] == {"name": "mcp-compare", "version": __version__}


def test_schema_rejects_a_tampered_export(site_env: Path) -> None:
    assert mc("export").returncode == 0
    matrix = json.loads((site_env / "build" / "matrix.json").read_text(encoding="utf-8"))
    matrix["cells"][0]["verdict"] = "great"
    try:
        jsonschema.validate(matrix, _schema(), cls=jsonschema.Draft202012Validator)
    except jsonschema.ValidationError as err:
        assert "great" in err.message
    else:
        raise AssertionError("a verdict outside the vocabulary passed the schema")


def test_a_tampered_cell_is_found_though_the_others_were_found_valid_before(
    site_env: Path,
) -> None:
    """Items of a matrix found valid are remembered (``matrix_error``); one that changed is
    validated again, whatever the others were."""
    from compare.site._matrix import matrix_error

    assert mc("export").returncode == 0
    matrix = json.loads((site_env / "build" / "matrix.json").read_text(encoding="utf-8"))
    assert matrix_error(matrix) is None  # every item now remembered
    matrix["cells"][-1]["verdict"] = "great"
    found = matrix_error(matrix)
    assert found is not None
    where, message = found
    assert where[:2] == ["cells", len(matrix["cells"]) - 1] and "great" in message
    matrix["cells"][-1]["verdict"] = "pass"
    matrix["format"] = "two"  # outside the arrays: the rest of the document is checked too
    assert matrix_error(matrix) is not None


def test_export_out_writes_elsewhere(site_env: Path, tmp_path: Path) -> None:
    out = tmp_path / "elsewhere" / "m.json"
    assert mc("export", "--out", str(out)).returncode == 0
    assert json.loads(out.read_text(encoding="utf-8"))["format"] == 2
    assert not (site_env / "build" / "matrix.json").exists()


def test_changes_page_shows_verdicts_that_moved_since_the_last_export(site_env: Path) -> None:
    assert mc("export").returncode == 0
    render()
    changes = (site_env / "site" / "docs" / "changes.md").read_text(encoding="utf-8")
    assert "Nothing to compare yet" in changes  # the export equals this run
    write_cell(site_env / "results", "py-sdk", "2.3.0", "roots-list", "2025-11-25", "pass")
    render()  # a new run, not exported yet: compared with the last export
    changes = (site_env / "site" / "docs" / "changes.md").read_text(encoding="utf-8")
    assert "## Verdicts that changed" in changes
    assert "≈&nbsp;non&#45;strict" in changes and "✔&nbsp;pass" in changes
    assert mc("export").returncode == 0  # keeps the old matrix as build/previous/
    assert (site_env / "build" / "previous" / "matrix.json").is_file()
    render()
    again = (site_env / "site" / "docs" / "changes.md").read_text(encoding="utf-8")
    assert again == changes  # same answer before and after export
    assert mc("render", "--check").returncode == 0


def test_changes_page_lists_verdicts_that_differ_between_versions(site_env: Path) -> None:
    render()
    changes = (site_env / "site" / "docs" / "changes.md").read_text(encoding="utf-8")
    section = changes[changes.index("differ between versions") :]
    assert "<code>1&#46;31&#46;0</code>" in section and "✘&nbsp;fail" in section


def test_changes_page_lists_citations_that_moved(site_env: Path) -> None:
    path = site_env / "build" / "citations.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["citations"][0]["status"] = "moved"
    data["citations"][0]["message"] = "found at line 49"
    path.write_text(json.dumps(data), encoding="utf-8")
    render()
    changes = (site_env / "site" / "docs" / "changes.md").read_text(encoding="utf-8")
    section = changes[changes.index("## Citations that moved") :]
    assert "↪&nbsp;moved" in section and "found at line 49" in section


def test_the_site_publishes_the_matrix_and_its_schema(site_env: Path) -> None:
    render()
    docs = site_env / "site" / "docs"
    published = json.loads((docs / "matrix.json").read_text(encoding="utf-8"))
    assert json.loads((docs / "matrix.schema.json").read_text(encoding="utf-8")) == _schema()
    jsonschema.validate(published, _schema(), cls=jsonschema.Draft202012Validator)
    assert mc("export").returncode == 0
    exported = json.loads((site_env / "build" / "matrix.json").read_text(encoding="utf-8"))
    assert exported == published


def test_a_cell_without_transcript_exports_none(site_env: Path) -> None:
    """Issue 36 item 7: a host that crashed before writing a line left no transcript; the
    export said where it would have been."""
    folder = site_env / "results/py-sdk/2.3.0/roots-list/2025-11-25~roots"
    (folder / "transcript.jsonl").unlink()
    assert mc("export").returncode == 0
    matrix = json.loads((site_env / "build" / "matrix.json").read_text(encoding="utf-8"))
    jsonschema.validate(matrix, _schema(), cls=jsonschema.Draft202012Validator)
    cell = next(
        c for c in matrix["cells"] if c["id"] == "py-sdk--2.3.0--roots-list--2025-11-25--roots"
    )
    assert cell["transcript"] is None and cell["plays"][0]["transcript"] is None
