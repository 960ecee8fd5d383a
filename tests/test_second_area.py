"""A second area is a data file, not a code change (issue 14, item 3).

``tests/fixtures/areas/sampling.yaml`` is put beside the real ``roots.yaml`` in a temporary
areas folder (``MCP_COMPARE_AREAS``), with every other location in the same temporary folder.
Then the maintainer's commands run as real commands: ``pin add`` for every pinned revision
(from the offline spec), ``pin verify``, ``diff``, ``rows``, ``render``. Nothing in the code
names sampling; the test checks that each stage learnt the area from its file: the sampling
pages are pinned where they exist, the diff has a sampling section with its items (found by the
feature name, plus the listed ``CreateMessageResult``) and its own deprecation notice,
``rows.json`` has its rows with where-columns computed from that section, and the site has its
page, its title, and its generated classes on the revision pages.
"""

from __future__ import annotations

import html
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare._paths import PROJECT_ROOT

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "areas" / "sampling.yaml"
PAGE = "client/sampling.mdx"


def _run(env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(
        [CLI, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert proc.returncode == 0, f"mcp-compare {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def second_area(
    shared_spec: Path, pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The whole pipeline run once with the sampling area beside roots; its outputs."""
    tmp = tmp_path_factory.mktemp("second-area")
    shutil.copytree(PROJECT_ROOT / "schemas", tmp / "schemas")  # pins and generated models
    # The shipped pins hold the sampling pages (the project's sampling area); dropped here,
    # so pin add is seen to add them for an area it learns from its file.
    pins = tmp / "schemas" / "revisions.toml"
    blocks = pins.read_text(encoding="utf-8").split("\n[[files]]\n")
    kept = [b for b in blocks if not b.startswith('path = "docs/specification/') or PAGE not in b]
    pins.write_text("\n[[files]]\n".join(kept), encoding="utf-8")
    shutil.copytree(pinned_spec / "spec", tmp / "cache" / "spec")  # already verified files
    (tmp / "areas").mkdir()
    shutil.copy(PROJECT_ROOT / "compare" / "rows" / "areas" / "roots.yaml", tmp / "areas")
    shutil.copy(FIXTURE, tmp / "areas")
    env = {
        **os.environ,
        "MCP_COMPARE_SPEC": str(shared_spec),
        "MCP_COMPARE_AREAS": str(tmp / "areas"),
        **{
            f"MCP_COMPARE_{name.upper()}": str(tmp / name)
            for name in ("schemas", "cache", "build", "site", "results")
        },
    }
    before = (tmp / "schemas" / "revisions.toml").read_text(encoding="utf-8")
    for rev in revisions():
        _run(env, "pin", "add", rev)
    _run(env, "pin", "verify", "--no-fetch")
    _run(env, "diff", "--quiet")
    _run(env, "rows")
    _run(env, "render")
    return {
        "tmp": tmp,
        "pins_before": before,
        "pins": (tmp / "schemas" / "revisions.toml").read_text(encoding="utf-8"),
        "diff": json.loads((tmp / "build" / "diff.json").read_text(encoding="utf-8")),
        "rows": json.loads((tmp / "build" / "rows.json").read_text(encoding="utf-8")),
        "docs": tmp / "site" / "docs",
    }


def test_pin_add_pins_the_area_pages_that_exist(
    second_area: dict[str, Any], shared_spec: Path
) -> None:
    for rev in revisions():
        path = f"docs/specification/{rev}/{PAGE}"
        exists = (shared_spec / path).is_file()
        assert (f'path = "{path}"' in second_area["pins"]) == exists, path
        assert f'path = "{path}"' not in second_area["pins_before"]
    assert "roots_page" not in second_area["pins"]


def test_diff_has_a_section_for_the_second_area(second_area: dict[str, Any]) -> None:
    diff = second_area["diff"]
    assert set(diff["areas"]) == {"roots", "sampling"}
    # The first area (file-name order) stays at the top level for the readers of one area.
    assert diff["area"] == "roots" and diff["items"] == diff["areas"]["roots"]["items"]
    sampling = diff["areas"]["sampling"]
    items = sampling["items"]
    assert not any("Root" in name for name in items)
    first = revisions()[0]
    assert items["CreateMessageRequest"]["revisions"][first]["role"] == "core"
    assert items["CreateMessageResult"]["revisions"][first]["role"] == "listed"
    assert items["ClientCapabilities"]["revisions"][first]["role"] == "partial"
    assert "ClientCapabilities.sampling" in items and "ClientCapabilities.roots" not in items
    notices = {rev: mark["deprecated"] for rev, mark in sampling["deprecation"].items()}
    # Only the feature's notice counts, not 2025-11-25's "soft-deprecated" parameter value.
    assert notices == {rev: rev in ("2026-07-28", "draft") for rev in revisions()}
    assert sampling["deprecation"]["2026-07-28"]["source"].endswith(PAGE)


def test_rows_json_has_the_second_area_rows(second_area: dict[str, Any]) -> None:
    doc = second_area["rows"]
    (area,) = [a for a in doc["areas"] if a["area"] == "sampling"]
    rows = {row["id"]: row for row in area["rows"]}
    assert set(rows) == {"SAMP-01", "SAMP-02"}
    where = rows["SAMP-01"]["where"]["revisions"]
    assert all(where[rev]["items"]["CreateMessageRequest"]["present"] for rev in revisions())
    deprecated = {rev for rev, cell in rows["SAMP-02"]["where"]["revisions"].items()
                  if cell.get("deprecated")}  # fmt: skip
    assert deprecated == {"2026-07-28", "draft"}
    assert {s["status"] for s in rows["SAMP-02"]["sources"]} <= {"verified", "verified-normalised"}
    mine = [i for i in doc["issues"] if i["file"] == "sampling.yaml" and i["severity"] == "error"]
    assert mine == []


def test_the_site_has_the_second_area_page(second_area: dict[str, Any]) -> None:
    docs: Path = second_area["docs"]
    page = html.unescape((docs / "sampling.md").read_text(encoding="utf-8"))
    assert 'title: "Sampling"' in page and "# Sampling: every difference" in page
    assert "SAMP-01" in page and "ROOT-01" not in page
    assert "(sampling.md)" in (docs / "areas.md").read_text(encoding="utf-8")
    home = (docs / "index.md").read_text(encoding="utf-8")
    assert "(sampling.md)" in home
    # The home page's interop tables have a column per area, each headed by its name.
    assert '<a href="roots.html">Roots</a></th>' in home
    assert '<a href="sampling.html">Sampling</a></th>' in home
    revision = html.unescape((docs / "revisions" / "2025-11-25.md").read_text(encoding="utf-8"))
    assert "## Sampling" in revision and "#### CreateMessageRequest" in revision
    assert "class CreateMessageResult(" in revision
    roots_part = revision[revision.index("## Roots") : revision.index("## Sampling")]
    assert "#### Root\n" in roots_part and "CreateMessage" not in roots_part
