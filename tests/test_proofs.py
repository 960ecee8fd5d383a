"""Checks passed once on exactly these inputs are not passed again (``compare._proofs``): a
data file's schema check and a scenario's ground lint. A failing check is never recorded,
and a proof file that is not what was written does not count."""

from __future__ import annotations

import os
from pathlib import Path

import jsonschema
import pytest

from compare import _proofs
from compare._errors import CompareError
from compare.exchange import _scenarios
from compare.exchange._scenarios import load_scenario_file
from compare.exchange._yaml import check_schema_value

SCHEMA = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_YAML_CACHE", str(tmp_path / "yaml"))


def test_a_recorded_proof_holds_and_a_tampered_one_does_not() -> None:
    proof = _proofs.key("schema", [b"value", b"schema"])
    assert not _proofs.holds("schema", proof)
    _proofs.record("schema", proof)
    assert _proofs.holds("schema", proof)
    assert not _proofs.holds("grounds", proof)  # another check's proof
    path = _proofs.folder() / f"schema-{proof}.ok"
    path.write_text("edited", encoding="ascii")
    assert not _proofs.holds("schema", proof)
    other = _proofs.key("schema", [b"value", b"other schema"])
    path.rename(_proofs.folder() / f"schema-{other}.ok")  # renamed from another key
    assert not _proofs.holds("schema", other)


def test_inputs_are_kept_apart_in_the_key() -> None:
    assert _proofs.key("k", [b"ab", b"c"]) != _proofs.key("k", [b"a", b"bc"])


def test_a_folder_that_cannot_be_written_costs_the_check_nothing_else(tmp_path: Path) -> None:
    blocked = tmp_path / "yaml"
    blocked.write_text("a file where the folder should be", encoding="utf-8")
    proof = _proofs.key("schema", [b"x"])
    _proofs.record("schema", proof)  # no error
    assert not _proofs.holds("schema", proof)


def test_a_valid_value_is_checked_once_and_an_invalid_one_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[object] = []
    real = jsonschema.Draft202012Validator

    def counting(schema: dict[str, object]) -> object:
        calls.append(schema)
        return real(schema)

    monkeypatch.setattr(jsonschema, "Draft202012Validator", counting)
    for _ in range(3):
        check_schema_value({"id": "a"}, SCHEMA, Path("a.yaml"), remember=True)
    assert len(calls) == 1
    for _ in range(2):
        with pytest.raises(CompareError, match=r"b\.yaml: key id"):
            check_schema_value({"id": 1}, SCHEMA, Path("b.yaml"), remember=True)
    assert len(calls) == 3
    check_schema_value({"id": "a"}, {**SCHEMA, "maxProperties": 1}, Path("a.yaml"), remember=True)
    assert len(calls) == 4  # another schema is another proof
    check_schema_value({"id": "a"}, SCHEMA, Path("a.yaml"))
    assert len(calls) == 5  # not asked to remember: always checked


def test_a_scenarios_grounds_are_linted_once_per_state_of_what_they_read(
    pinned_spec: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    linted: list[str] = []
    real = _scenarios._lint_grounds

    def counting(checks: list[object], window: object, source: Path, side: str = "c") -> None:
        linted.append(source.stem)
        real(checks, window, source, side)  # type: ignore[arg-type]

    monkeypatch.setattr(_scenarios, "_lint_grounds", counting)
    path = _scenarios.SCENARIOS_DIR / "handshake.yaml"
    first = load_scenario_file(path)
    again = load_scenario_file(path)
    assert linted == ["handshake"]
    assert [c.id for c in again.checks] == [c.id for c in first.checks]
    # A fetched spec page replaced (a new state of the file) is linted against again.
    page = next(pinned_spec.glob("spec/*/docs/specification/*/basic/lifecycle.mdx"))
    stat = page.stat()
    os.utime(page, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    load_scenario_file(path)
    assert linted == ["handshake", "handshake"]


def test_a_schema_proof_names_the_validators_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A jsonschema whose checking code differs is another identity, so a value proven under
    one is checked again under the other."""
    from importlib.machinery import ModuleSpec

    from compare.exchange import _yaml

    library = tmp_path / "jsonschema"
    library.mkdir()
    (library / "__init__.py").write_text("", encoding="utf-8")
    (library / "validators.py").write_text("RULES = 1\n", encoding="utf-8")
    spec = ModuleSpec("jsonschema", None, origin=str(library / "__init__.py"))
    monkeypatch.setattr(_yaml, "find_spec", lambda _name: spec)

    def identity() -> bytes:
        _yaml._validator_identity.cache_clear()
        _proofs.code_identity.cache_clear()
        return _yaml._validator_identity()

    first = identity()
    assert identity() == first
    (library / "validators.py").write_text("RULES = 2\n", encoding="utf-8")
    assert identity() != first
    _yaml._validator_identity.cache_clear()
    _proofs.code_identity.cache_clear()
