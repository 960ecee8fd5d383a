"""``cite --fix`` rewrites the line number of a moved citation and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare.rows import check_area_files as check_files
from compare.rows import fix_moved

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


SAME_PLACE = """area: demo
rows:
  - id: DEMO-01
    detail: >-
      Prose may name the place, npm:fakepkg@1.0.0/doc.md:1, without citing it.
    sources:
      - 'npm:fakepkg@1.0.0/doc.md:1 “one”'
      - 'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'   # the only one that moved
  - id: DEMO-02
    note: "see npm:fakepkg@1.0.0/doc.md:1 “the moved line” in DEMO-01"
    sources:
      - cite: 'npm:fakepkg@1.0.0/doc.md:3 “stays put”'
        contradicted_by: 'npm:fakepkg@1.0.0/doc.md:1 “one”'
"""


def test_fix_rewrites_the_moved_citation_not_the_same_location_elsewhere(tools: Path) -> None:
    # `cite --fix` used to replace every `doc.md:1` in the file: the unmoved citation with
    # another quote, the prose and the note all pointed at line 5 afterwards.
    area = tools / "demo.yaml"
    area.write_text(SAME_PLACE)
    report = check_files([area])
    assert [c.status for c in report.checked] == ["verified", "moved", "verified", "verified"]
    fixes = fix_moved(report)
    assert [(f.old.rsplit("/", 1)[1], f.new.rsplit("/", 1)[1], f.count) for f in fixes] == [
        ("doc.md:1", "doc.md:5", 1)
    ]
    moved = "'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'   # the only one"
    assert area.read_text() == SAME_PLACE.replace(moved, moved.replace("doc.md:1", "doc.md:5"))
    assert {c.status for c in check_files([area]).checked} == {"verified"}


def test_fix_follows_a_moved_citation_written_as_a_mapping(tools: Path) -> None:
    area = tools / "demo.yaml"
    text = (
        "rows:\n  - id: DEMO-01\n    sources:\n"
        "      - 'npm:fakepkg@1.0.0/doc.md:1 “one”'\n"
        "      - cite: 'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'\n"
        "        context: open-question\n"
        "        contradicted_by: 'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'\n"
    )
    area.write_text(text)
    fixes = fix_moved(check_files([area]))
    assert sum(f.count for f in fixes) == 2  # the cite and its contradicted_by both moved
    assert area.read_text() == text.replace("doc.md:1 “the moved", "doc.md:5 “the moved")


def test_fix_one_edits_only_inside_the_given_span(tools: Path) -> None:
    from compare.cite import apply_edits, fix_one, parse_citation, verify

    result = verify(parse_citation("npm:fakepkg@1.0.0/doc.md:1 “the moved line”"))
    assert result.status == "moved"
    text = "prose npm:fakepkg@1.0.0/doc.md:1 here | 'npm:fakepkg@1.0.0/doc.md:1 “the moved line”'"
    begin = text.index("|")
    edit = fix_one(text, begin, len(text), result)
    assert edit is not None and (edit.old, edit.new) == (
        "npm:fakepkg@1.0.0/doc.md:1",
        "npm:fakepkg@1.0.0/doc.md:5",
    )
    after = apply_edits(text, [edit])
    assert after.startswith("prose npm:fakepkg@1.0.0/doc.md:1 here")  # outside the span
    assert after.endswith("doc.md:5 “the moved line”'")


def test_fix_follows_a_one_line_range(tools: Path) -> None:
    # Found by tests/fuzz/test_fuzz_cite.py: `path:1-1` parsed to the location `path:1`,
    # which the fix looks for and never finds in `path:1-1`, so it was left unfixed.
    area = tools / "demo.yaml"
    area.write_text(
        "area: demo\nrows:\n  - id: DEMO-01\n"
        "    sources: ['npm:fakepkg@1.0.0/doc.md:1-1 “the moved line”']\n"
    )
    fix_moved(check_files([area]))
    assert "doc.md:5-5 “the moved line”" in area.read_text()


def test_fix_moves_a_wrapped_sentence_range_and_keeps_its_size(tools: Path) -> None:
    """A sentence quoted whole over the two lines it wraps over, after two lines were added
    above it: the range moves as one and the quote still matches the lines joined."""
    doc = tools / "tools" / "node_modules" / "fakepkg" / "doc.md"
    doc.write_text("new\nnew\none\nThe client MUST NOT write\n  anything invalid.\nafter\n")
    area = tools / "demo.yaml"
    area.write_text(
        "area: demo\nrows:\n  - id: DEMO-01\n"
        "    sources: ['npm:fakepkg@1.0.0/doc.md:2-3 “The client MUST NOT write anything"
        " invalid.”']\n"
    )
    assert [c.status for c in check_files([area]).checked] == ["moved"]
    fix_moved(check_files([area]))
    assert "doc.md:4-5 “The client MUST NOT write anything invalid.”" in area.read_text()
    assert [c.status for c in check_files([area]).checked] == ["verified"]
