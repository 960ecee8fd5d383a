"""The rows stage verifies every citation once and writes ``build/citations.json``;
``cite --check`` reads that record back while its inputs are unchanged.

Crafted area files in tmp_path; "verified again" is detected by making the verifier raise.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import compare.cite._cache
from compare.rows import check_citations, checked_document, lint_all, write_rows

from ._area import GOOD_CITE, area, known, row, write

MISSING_PAGE = "docs/specification/2025-11-25/client/nowhere.mdx:3 “a page nobody pinned”"


def _no_more_verifying(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: object, cit: object) -> object:
        raise AssertionError(f"verified again: {cit}")

    monkeypatch.setattr(compare.cite._cache.SourceCache, "verify", refuse)


def _record(isolated: Path) -> dict[str, object]:
    data = json.loads((isolated / "build" / "citations.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def test_rows_writes_the_record_and_cite_check_reuses_it(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "roots.yaml", area())
    write_rows([path], known())
    written = _record(isolated)
    assert written["inputs"] and written["tally"]["verified"] == 1  # type: ignore[index]
    _no_more_verifying(monkeypatch)
    document, reused = checked_document([path])
    assert reused and document == written


def test_rows_lint_also_writes_a_reusable_record(
    isolated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "roots.yaml", area())
    assert lint_all([path], known(), write_citations=True) == []
    _no_more_verifying(monkeypatch)
    assert checked_document([path])[1]


def test_a_changed_area_file_is_verified_again(isolated: Path, tmp_path: Path) -> None:
    path = write(tmp_path / "roots.yaml", area())
    write_rows([path], known())
    wrong = GOOD_CITE.replace("servers send", "servers never send")
    write(path, area(rows=[row(sources=[wrong])]))
    document, reused = checked_document([path])
    assert not reused
    assert document["tally"]["mismatch"] == 1 and _record(isolated) == document


def test_a_record_for_other_files_is_not_reused(isolated: Path, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = write(tmp_path / "a" / "roots.yaml", area())
    other = write(tmp_path / "b" / "roots.yaml", area(rows=[row(sources=[GOOD_CITE, GOOD_CITE])]))
    write_rows([one], known())
    document, reused = checked_document([other])
    assert not reused and document["tally"]["verified"] == 2


def test_a_record_with_a_source_missing_here_is_never_reused(
    isolated: Path, tmp_path: Path
) -> None:
    # Fetching the missing file changes the answer without changing any hashed input.
    path = write(tmp_path / "roots.yaml", area(rows=[row(sources=[GOOD_CITE, MISSING_PAGE])]))
    report = check_citations([path])
    assert report.failed() and _record(isolated)["inputs"] is None
    assert not checked_document([path])[1]


def test_an_unreadable_area_file_is_skipped_by_rows_and_refused_by_cite_check(
    isolated: Path, tmp_path: Path
) -> None:
    from compare._errors import CompareError

    path = tmp_path / "roots.yaml"
    path.write_bytes(b"rows: [\x00\xff unclosed")
    report = check_citations([path], skip_unreadable=True)
    assert report.skipped and _record(isolated)["inputs"] is None
    with pytest.raises(CompareError):
        checked_document([path])


@pytest.mark.parametrize("damage", ["hand-edited", "truncated", "wrong-shape", "deleted"])
def test_a_damaged_record_is_named_verified_again_and_rewritten_the_same(
    isolated: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    """The record is a cache: a hand-edit that keeps the JSON valid and the inputs key is
    caught by its seal, never reused."""
    path = write(tmp_path / "roots.yaml", area())
    write_rows([path], known())
    record = isolated / "build" / "citations.json"
    original = record.read_bytes()
    if damage == "hand-edited":
        edited = json.loads(original)
        edited["citations"][0]["status"] = "verified-by-hand"
        record.write_text(json.dumps(edited), "utf-8")
    elif damage == "truncated":
        record.write_bytes(original[: len(original) // 2])
    elif damage == "wrong-shape":
        record.write_text(json.dumps({"format": 1, "citations": 3}), "utf-8")
    else:
        record.unlink()
    capsys.readouterr()
    document, reused = checked_document([path])
    said = capsys.readouterr().err
    assert not reused and document["citations"][0]["status"] == "verified"
    if damage == "hand-edited":
        assert f"{record} was changed after it was written (seal mismatch)" in said
    elif damage == "truncated":
        assert f"{record} is damaged (" in said
    assert record.read_bytes() == original
