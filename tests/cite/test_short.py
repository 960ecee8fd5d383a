"""``cite REF`` takes the short paths reviewers paste, and schema.ts citations verify."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.cite import lookup
from compare.cite._short import candidates, expand
from compare.rows import check_area_files as check_files

PINNED = [
    "docs/specification/2025-06-18/client/roots.mdx",
    "docs/specification/2025-11-25/client/roots.mdx",
    "schema/2026-07-28/schema.ts",
    "schema/draft/schema.ts",
]


def test_a_revision_relative_path_expands_to_its_one_pinned_file() -> None:
    got = expand("2025-11-25/client/roots.mdx:78", PINNED)
    assert got == "docs/specification/2025-11-25/client/roots.mdx:78"
    quoted = expand("specification/2025-06-18/client/roots.mdx:3-4 “a b”", PINNED)
    assert quoted == "docs/specification/2025-06-18/client/roots.mdx:3-4 “a b”"


def test_full_paths_packages_and_garbage_pass_through() -> None:
    for ref in (
        "schema/2026-07-28/schema.ts:2760 “x”",
        "docs/specification/2099-01-01/client/roots.mdx:1",  # not pinned: reading says so
        "npm:roots.mdx@1.0.0/client/roots.mdx:1 “x”",
        "no line here",
    ):
        assert expand(ref, PINNED) == ref


def test_a_tail_of_whole_folder_names_only() -> None:
    assert candidates("ts", PINNED) == []  # "schema.ts" ends with "ts", but not "/ts"
    assert candidates("/schema.ts", PINNED) == [
        "schema/2026-07-28/schema.ts",
        "schema/draft/schema.ts",
    ]


def test_a_short_path_naming_several_files_lists_them() -> None:
    with pytest.raises(CompareError) as err:
        expand("client/roots.mdx:78", PINNED)
    assert "names 2 pinned files" in err.value.message
    assert PINNED[0] in err.value.message and PINNED[1] in err.value.message
    assert err.value.hint and "leading folders" in err.value.hint


def test_a_short_path_naming_nothing_is_an_error_with_a_hint() -> None:
    with pytest.raises(CompareError) as err:
        expand("client/sampling.mdx:3", PINNED)
    assert "client/sampling.mdx" in err.value.message
    assert err.value.hint and "pin add-file" in err.value.hint


def test_lookup_resolves_a_short_path_against_the_real_pins(isolated: Path) -> None:
    found = lookup("2025-11-25/client/roots.mdx:78")
    assert found.citation.path == "docs/specification/2025-11-25/client/roots.mdx"
    assert [n for n, _text, cited in found.lines if cited] == [78]
    assert found.result is None


def test_lookup_of_a_schema_ts_line_with_an_elided_quote_shows_it(isolated: Path) -> None:
    found = lookup("schema/2026-07-28/schema.ts:2760 “…”")
    assert found.result is None  # “…” stands for words left out: show, do not compare
    assert "The URI identifying the root" in dict((n, t) for n, t, _c in found.lines)[2760]


def test_a_schema_ts_citation_verifies(isolated: Path, tmp_path: Path) -> None:
    area = tmp_path / "demo.yaml"
    area.write_text(
        "rows:\n  - id: DEMO-01\n    sources:\n"
        "      - 'schema/2026-07-28/schema.ts:2760 “The URI identifying the root.”'\n"
        "      - 'schema/2025-11-25/schema.ts:1 “not in the file at all, anywhere”'\n",
        encoding="utf-8",
    )
    checked = check_files([area]).checked
    assert [c.status for c in checked] == ["verified", "mismatch"]
    assert checked[0].result and checked[0].result.provenance.startswith("spec @ ")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_looks_up_the_pasted_short_forms(isolated: Path) -> None:
    done = _cli("cite", "2025-11-25/client/roots.mdx:78", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["path"] == "docs/specification/2025-11-25/client/roots.mdx"
    done = _cli("cite", "schema/2026-07-28/schema.ts:2760 “The URI identifying the root”", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "verified"


def test_cli_lists_the_candidates_of_an_ambiguous_short_path(isolated: Path) -> None:
    done = _cli("cite", "client/roots.mdx:78")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "docs/specification/draft/client/roots.mdx" in done.stderr
    assert "docs/specification/2024-11-05/client/roots.mdx" in done.stderr
