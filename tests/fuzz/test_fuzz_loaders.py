"""The data-file loaders on random YAML and on mutated real data files.

Targets, scenarios and area files are YAML a person edits by hand. Whatever such a file
holds — broken syntax, a key dropped, a wrong type, a huge number, any Unicode, a YAML tag —
loading it gives the loaded object or a :class:`CompareError` that names the file, never a
traceback: the YAML reader (``compare._yaml``), ``parse_target``, ``parse_scenario``, the
area reader of pin/diff/site (``read_area_spec``) and the rows stage's ``lint_file`` (which
reports problems as issues instead of raising).
"""

from __future__ import annotations

import copy
import datetime
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _strategies import EXAMPLES, any_text, hostile_text, json_values
from hypothesis import given, settings
from hypothesis import strategies as st

from compare._areas import read_area_spec
from compare._errors import CompareError
from compare._yaml import load_yaml
from compare.exchange._scenarios import SCENARIOS_DIR, parse_scenario
from compare.exchange._targets import TARGETS_DIR, parse_target
from compare.rows._context import Known, load_scenario_checks, load_target_names
from compare.rows._lint import lint_file
from compare.rows._load import AREAS_DIR

FIXTURE_AREAS = Path(__file__).resolve().parent.parent / "fixtures" / "areas"
#: Pieces of YAML syntax, so random text is often nearly valid YAML.
YAML_BITS = (
    "a: ",
    "id: ",
    "- ",
    "\n",
    "\n  ",
    "  ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    "&x ",
    "*x",
    "!!int ",
    "!!float ",
    "!!timestamp ",
    "!!binary ",
    "!!set ",
    "!!omap ",
    "!!str ",
    "!!python/name:os.system ",
    "? ",
    "2026-02-30",
    "2025-11-25",
    "0x",
    "ffff",
    "1e999",
    "-.inf",
    ".nan",
    '"\\ud800"',
    '"\\x00"',
    "'",
    '"',
    "# c",
    "|",
    ">-",
    "---\n",
    "...\n",
    "%YAML 1.2\n",
    "no",
    "null",
    "~",
    "<<: *x",
    "\t",
)
yaml_texts = st.one_of(
    st.lists(st.one_of(st.sampled_from(YAML_BITS), any_text), max_size=25).map("".join),
    st.sampled_from(["[" * 600, "a: " + "{a: " * 600, "a: 0x" + "f" * 5000]),
)


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fuzz-loaders-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def pinned(pinned_spec: Path) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        yield


def refused(err: CompareError, path: Path) -> None:
    assert str(path) in err.message or path.name in err.message, err.message


@settings(max_examples=600)
@given(yaml_texts)
def test_any_yaml_text_loads_or_is_refused_naming_the_file(workdir: Path, text: str) -> None:
    EXAMPLES["loaders: random YAML text"] += 1
    path = workdir / "random.yaml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        load_yaml(path)
    except CompareError as err:
        refused(err, path)
    else:
        EXAMPLES["loaders: random YAML text (loaded)"] += 1


def _real(folder: Path, pattern: str = "*.yaml") -> list[tuple[Path, Any]]:
    return [(p, load_yaml(p)) for p in sorted(folder.glob(pattern))]


TARGETS = _real(TARGETS_DIR)
SCENARIOS = _real(SCENARIOS_DIR, "[!_]*.yaml")
#: The real area files with their first rows only: every key and shape, a tenth of the size
#: (each example reads the file twice, so the size is the test's time).
AREAS = [
    (path, {**data, "rows": data["rows"][:4]} if isinstance(data.get("rows"), list) else data)
    for path, data in _real(AREAS_DIR) + _real(FIXTURE_AREAS)
]

values = st.one_of(
    json_values,
    hostile_text,
    st.dates(),
    st.integers(min_value=10**300, max_value=10**1000),
    st.text(min_size=5000, max_size=5000, alphabet="é"),
)


def _mutate(draw: st.DrawFn, data: Any) -> Any:
    """The real data with a few keys dropped, values replaced or lists emptied, anywhere."""
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 4))):
        holder, key, node = None, None, data
        for _ in range(draw(st.integers(0, 5))):
            if isinstance(node, dict) and node:
                holder, key = node, draw(st.sampled_from(sorted(node, key=str)))
            elif isinstance(node, list) and node:
                holder, key = node, draw(st.integers(0, len(node) - 1))
            else:
                break
            node = holder[key]
        if holder is None:
            if isinstance(data, dict) and data and draw(st.booleans()):
                data.pop(draw(st.sampled_from(sorted(data, key=str))))
            else:
                data = draw(values) if draw(st.integers(0, 9)) == 0 else data
            continue
        action = draw(st.sampled_from(["drop", "value", "type", "empty"]))
        if action == "drop" and isinstance(holder, dict):
            del holder[key]
        elif action == "empty":
            holder[key] = draw(st.sampled_from([[], {}, "", None, 0]))
        elif action == "type":  # the same content in another shape
            holder[key] = draw(st.sampled_from([[node], {"x": node}, str(node)[:50], 1.5]))
        else:
            holder[key] = draw(values)
    return data


@settings(max_examples=500)
@given(st.data())
def test_mutated_targets_load_or_are_refused(workdir: Path, data: st.DataObject) -> None:
    EXAMPLES["loaders: mutated targets"] += 1
    path, raw = data.draw(st.sampled_from(TARGETS), label="target")
    mutated = data.draw(st.composite(lambda draw: _mutate(draw, raw))(), label="mutated")
    try:
        target = parse_target(mutated, path, expected_id=path.stem)
    except CompareError as err:
        refused(err, path)
    else:
        assert target.id == path.stem
        EXAMPLES["loaders: mutated targets (still loaded)"] += 1


@settings(max_examples=400)
@given(st.data())
def test_mutated_scenarios_load_or_are_refused(pinned: None, data: st.DataObject) -> None:
    EXAMPLES["loaders: mutated scenarios"] += 1
    path, raw = data.draw(st.sampled_from(SCENARIOS), label="scenario")
    mutated = data.draw(st.composite(lambda draw: _mutate(draw, raw))(), label="mutated")
    try:
        scenario = parse_scenario(mutated, path, expected_id=path.stem)
    except CompareError as err:
        refused(err, path)
    else:
        assert scenario.id == path.stem
        EXAMPLES["loaders: mutated scenarios (still loaded)"] += 1


@pytest.fixture(scope="module")
def known(pinned: None) -> Known:
    return Known(targets=load_target_names(), scenarios=load_scenario_checks())


def _default(value: Any) -> Any:
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise TypeError(type(value).__name__)


@settings(max_examples=250)
@given(st.data())
def test_mutated_area_files_load_or_are_refused(
    workdir: Path, known: Known, data: st.DataObject
) -> None:
    EXAMPLES["loaders: mutated area files"] += 1
    source, raw = data.draw(st.sampled_from(AREAS), label="area")
    mutated = data.draw(st.composite(lambda draw: _mutate(draw, raw))(), label="mutated")
    path = workdir / source.name
    # JSON is YAML 1.2, so the mutated tree is written as JSON and read by the YAML loader.
    path.write_bytes(json.dumps(mutated, default=_default).encode("utf-8", "surrogatepass"))
    try:
        spec = read_area_spec(path)
    except CompareError as err:
        refused(err, path)
    else:
        assert spec.file == path
        EXAMPLES["loaders: mutated area files (still loaded)"] += 1
    issues = lint_file(path, known, {})
    assert all(i.file == path.name and i.severity in ("error", "warning") for i in issues)
