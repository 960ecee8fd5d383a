"""matrix-diff lists every cell verdict and row state that differs, and refuses non-matrices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.site import _matrixdiff


def _matrix(verdict: str, state: str, extra_cell: bool = False) -> dict[str, object]:
    cells = [
        {"target": "ts-sdk", "target_version": "1", "variant": None, "scenario": "handshake",
         "revision": "2025-11-25", "verdict": verdict},
    ]  # fmt: skip
    if extra_cell:
        cells.append(
            {"target": "ts-sdk", "target_version": "1", "variant": "no-roots",
             "scenario": "handshake", "revision": "2025-11-25", "verdict": "pass"}
        )  # fmt: skip
    return {"cells": cells, "rows": [{"id": "ROOT-01", "status": {"ts-sdk": {"state": state}}}]}


def _write(tmp: Path, name: str, data: object) -> Path:
    path = tmp / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_changed_verdicts_and_states_are_listed(tmp_path: Path) -> None:
    old = _write(tmp_path, "old.json", _matrix("pass", "supported"))
    new = _write(tmp_path, "new.json", _matrix("fail", "not-supported", extra_cell=True))
    changes = _matrixdiff.diff_matrices(old, new)
    assert [(c.kind, c.key, c.old, c.new) for c in changes] == [
        ("cell", "ts-sdk@1/handshake/2025-11-25", "pass", "fail"),
        ("cell", "ts-sdk~no-roots@1/handshake/2025-11-25", None, "pass"),
        ("row", "ROOT-01 ts-sdk", "supported", "not-supported"),
    ]
    text = _matrixdiff.report(changes, old, new)
    assert text.splitlines()[-1] == "2 cell verdicts and 1 row states differ"


def test_identical_matrices_have_no_changes(tmp_path: Path) -> None:
    old = _write(tmp_path, "old.json", _matrix("pass", "supported"))
    new = _write(tmp_path, "new.json", _matrix("pass", "supported"))
    assert _matrixdiff.diff_matrices(old, new) == []


@pytest.mark.parametrize("content", ["not json", "[]", '{"rows": []}'])
def test_a_file_that_is_no_matrix_is_a_clear_error(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    good = _write(tmp_path, "good.json", _matrix("pass", "supported"))
    with pytest.raises(CompareError, match=r"bad\.json"):
        _matrixdiff.diff_matrices(bad, good)
