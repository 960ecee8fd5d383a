"""``cite --check`` on the real roots.yaml, and the lookup command, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from compare._paths import PROJECT_ROOT, tools_dir
from compare.rows import check_citations as check_all

#: The package citations verify against what the tools folder installed.
pytestmark = pytest.mark.clients


def _installed(kind: str) -> bool:
    if kind == "npm":
        return (tools_dir() / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir()
    return any((tools_dir() / "venvs").glob("*/lib/python*/site-packages/mcp-*.dist-info"))


def test_every_spec_citation_of_the_real_area_file_is_verified(isolated: Path) -> None:
    report = check_all()
    spec = [
        c
        for c in report.checked
        if c.origin == "area" and c.result and c.result.citation.kind == "spec"
    ]
    assert spec, "roots.yaml has no spec citations"
    bad = [(c.row, c.ref, c.status) for c in spec if c.status not in {"verified"}]
    assert not bad, bad
    assert (isolated / "build" / "citations.json").is_file()


def test_every_package_citation_is_verified_against_the_installed_version(isolated: Path) -> None:
    report = check_all(write=False)
    packages = [c for c in report.checked if c.result and c.result.citation.kind in {"npm", "pypi"}]
    assert packages, "roots.yaml has no package citations"
    for c in packages:
        assert c.result is not None
        kind = c.result.citation.kind
        assert _installed(kind), (
            f"{kind} packages are not installed in {tools_dir()}: run `mcp-compare tools install`"
        )
        assert c.status == "verified", (c.ref, c.status, c.result.message)


def test_upstream_repositories_are_unavailable_not_verified(isolated: Path) -> None:
    report = check_all(write=False)
    gh = [c for c in report.checked if c.result and c.result.citation.kind == "gh"]
    assert gh and all(c.status == "unavailable" for c in gh)
    assert not report.failed()  # unreachable upstream repos alone do not fail the check


def _cli(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ) | (env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_cli_writes_citations_json_with_a_tally(isolated: Path) -> None:
    done = _cli("cite", "--check", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["tally"]["mismatch"] == 0 and data["tally"]["ambiguous"] == 0
    assert data["tally"]["verified"] >= 20
    on_disk = json.loads((isolated / "build" / "citations.json").read_text())
    assert on_disk["tally"] == data["tally"]


def _broken_copy(tmp_path: Path, old: str, new: str) -> Path:
    area = tmp_path / "roots.yaml"
    real = (PROJECT_ROOT / "compare" / "rows" / "areas" / "roots.yaml").read_text("utf-8")
    assert old in real
    area.write_text(real.replace(old, new))
    return area


def test_check_cli_exits_non_zero_on_a_mismatch(isolated: Path, tmp_path: Path) -> None:
    area = _broken_copy(tmp_path, "To retrieve roots, servers send", "Servers never send")
    done = _cli("cite", "--check", "--json", "--area", str(area))
    assert done.returncode == 1
    assert json.loads(done.stdout)["tally"]["mismatch"] == 1


def test_check_cli_fails_on_moved_unless_allowed_and_fix_repairs_it(
    isolated: Path, tmp_path: Path
) -> None:
    old = "client/roots.mdx:47 “To retrieve roots"
    area = _broken_copy(tmp_path, old, old.replace(":47", ":46"))
    assert _cli("cite", "--check", "--area", str(area)).returncode == 1
    assert _cli("cite", "--check", "--allow-moved", "--area", str(area)).returncode == 0
    done = _cli("cite", "--fix", "--area", str(area))
    assert done.returncode == 0, done.stdout + done.stderr
    assert old in area.read_text("utf-8")


def test_lookup_prints_the_lines_the_commit_and_the_link(isolated: Path) -> None:
    done = _cli("cite", "docs/specification/2025-11-25/client/roots.mdx:144")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Client does not support roots" in out  # the cited line
    assert "Internal errors" in out  # context after it
    assert "b0f60ba5409db7a6582440a7b473cc0398890f15" in out.replace("\n", "")
    assert "roots.mdx#L144" in out.replace("\n", "")


def test_lookup_json_marks_the_cited_lines_and_verifies_a_quote(isolated: Path) -> None:
    ref = "schema/2025-11-25/schema.json:1837 “roots/list”"
    done = _cli("cite", ref, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    cited = [line for line in data["lines"] if line["cited"]]
    assert [line["n"] for line in cited] == [1837]
    assert data["status"] == "verified"
    assert data["link"].endswith("schema.json#L1837")


def test_lookup_of_a_range_shows_its_lines_and_whether_the_quote_is_a_whole_clause(
    isolated: Path,
) -> None:
    head = "The client **MUST NOT** write anything to the server's `stdin` that is not a valid MCP"
    path = "docs/specification/2025-11-25/basic/transports.mdx"
    done = _cli("cite", f"{path}:34-35 “{head} message.”", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [line["n"] for line in data["lines"] if line["cited"]] == [34, 35]
    assert data["status"] == "verified"  # the two lines read as one text
    assert data["link"].endswith("transports.mdx#L34-L35")
    assert data["clause"]["whole"] is True
    cut = json.loads(_cli("cite", f"{path}:34 “{head}”", "--json").stdout)["clause"]
    assert (cut["whole"], cut["lines"], cut["sentence"]) == (False, "34-35", f"{head} message.")
    shown = _cli("cite", f"{path}:34 “{head}”").stdout.replace("\n", " ")
    assert "cut clause" in shown and f"{path}:34-35" in shown


def test_lookup_of_a_line_past_the_end_is_a_clean_error(isolated: Path) -> None:
    done = _cli("cite", "docs/specification/2025-11-25/client/roots.mdx:9999")
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr


def test_lookup_of_garbage_is_a_clean_error(isolated: Path) -> None:
    done = _cli("cite", "no line here")
    assert done.returncode == 2
    assert "hint:" in done.stderr and "Traceback" not in done.stderr


def test_check_of_a_garbage_area_file_is_a_clean_error(isolated: Path, tmp_path: Path) -> None:
    area = tmp_path / "bad.yaml"
    area.write_bytes(b"rows: [\x00\xff unclosed")
    done = _cli("cite", "--check", "--area", str(area))
    assert done.returncode == 2
    assert "hint:" in done.stderr and "Traceback" not in done.stderr
