"""``render`` and ``export`` over a damaged ``build/`` file: each of ``rows.json``,
``diff.json``, ``citations.json`` and the previous ``matrix.json`` truncated, byte-flipped,
replaced by valid JSON of the wrong shape, or deleted. Each is either named in a
``CompareError`` whose hint says which command re-creates it, or (a missing input, a broken
baseline) reported on the page — never a traceback. That the pipeline then rebuilds the file
byte for byte is ``tests/pipeline/test_pipeline.py``'s part.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.site import render
from compare.site._export import export


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _flip(path: Path) -> None:
    """The first byte: ``{`` becomes ``z`` (a flip inside a string that keeps the JSON valid
    is caught by the stage stamps, see test_pipeline)."""
    data = bytearray(path.read_bytes())
    data[0] ^= 0x01
    path.write_bytes(bytes(data))


def _wrong_shape(path: Path) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({k: 3 for k in value}), encoding="utf-8")


DAMAGES: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "byte-flipped": _flip,
    "wrong-shape": _wrong_shape,
    "list-not-object": lambda p: p.write_text("[1, 2]\n", encoding="utf-8"),
    "deleted": lambda p: p.unlink(),
}
#: file -> the commands that re-create it, one of which its CompareError's hint must name.
MADE_BY = {
    "rows.json": ("mcp-compare rows",),
    "diff.json": ("mcp-compare diff",),
    "citations.json": ("mcp-compare cite --check", "mcp-compare rows"),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
@pytest.mark.parametrize("name", sorted(MADE_BY))
def test_a_damaged_build_input_is_named_with_its_command(
    site_env: Path, name: str, damage: str
) -> None:
    path = site_env / "build" / name
    DAMAGES[damage](path)
    for stage in (render, export):
        try:
            stage()
        except CompareError as err:
            assert name in err.message, err.message
            assert any(command in (err.hint or "") for command in MADE_BY[name]), err.hint
        else:  # only an absent input may be rendered around (listed as missing)
            assert damage == "deleted", f"{stage.__name__} trusted a {damage} {name}"


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_previous_matrix_is_reported_not_compared(site_env: Path, damage: str) -> None:
    export()
    matrix = site_env / "build" / "matrix.json"
    original = matrix.read_bytes()
    DAMAGES[damage](matrix)
    render()
    page = (site_env / "site" / "docs" / "changes.md").read_text(encoding="utf-8")
    changes = html.unescape(page)  # the page escapes dots against auto-linking
    if damage != "deleted":
        assert "build/matrix.json" in changes and "nothing compared" in changes
    _path, written = export()  # the export rewrites it whole
    assert matrix.read_bytes() == original and json.loads(original) == written
