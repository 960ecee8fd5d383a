"""``cite --fix`` rewrites the line number of a moved citation and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare.cite import check_files, fix_moved

AREA = """# a comment the fix must keep
area: demo
rows:
  - id: DEMO-01
    sources:
      - 'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'   # trailing comment
      - "npm:fakepkg@1.0.0/doc.md:3 “stays put”"
      - 'npm:fakepkg@1.0.0/doc.md:10 “the moved line”'
"""


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pkg = tmp_path / "tools" / "node_modules" / "fakepkg"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"version": "1.0.0"}))
    (pkg / "doc.md").write_text("one\ntwo\nstays put\nfour\nthe moved line\n")
    monkeypatch.setenv("MCP_COMPARE_TOOLS", str(tmp_path / "tools"))
    return tmp_path


def test_fix_rewrites_only_the_line_numbers_of_moved_citations(tools: Path) -> None:
    area = tools / "demo.yaml"
    area.write_text(AREA)
    report = check_files([area])
    assert [c.status for c in report.checked] == ["moved", "verified", "moved"]
    fixes = fix_moved(report)
    assert {(f.old.rsplit(":", 1)[1], f.new.rsplit(":", 1)[1]) for f in fixes} == {
        ("1", "5"),
        ("10", "5"),
    }
    expected = AREA.replace("doc.md:1 “", "doc.md:5 “").replace("doc.md:10 “", "doc.md:5 “")
    assert area.read_text() == expected  # comments, quoting and order untouched
    assert [c.status for c in check_files([area]).checked] == ["verified"] * 3


def test_fix_leaves_a_longer_line_number_with_the_same_prefix_alone(tools: Path) -> None:
    area = tools / "demo.yaml"
    text = (
        "rows:\n  - id: DEMO-01\n    sources:\n"
        "      - 'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'\n"
        "      - 'npm:fakepkg@1.0.0/doc.md:1-3 “stays put”'\n"
    )
    area.write_text(text)
    fix_moved(check_files([area]))
    after = area.read_text()
    assert "doc.md:5 “the moved line”" in after
    assert "doc.md:1-3 “stays put”" in after  # the range was right and is kept


def test_fix_with_nothing_moved_changes_nothing(tools: Path) -> None:
    area = tools / "demo.yaml"
    text = "rows:\n  - id: DEMO-01\n    sources: ['npm:fakepkg@1.0.0/doc.md:3 “stays put”']\n"
    area.write_text(text)
    assert fix_moved(check_files([area])) == []
    assert area.read_text() == text
