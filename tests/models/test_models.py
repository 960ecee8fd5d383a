"""Generated models: real generator, byte-for-byte ``--check``, no spec prose, and the
validator on good, bad and hostile lines (raw text stays the evidence)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _revisions import after_initialize, initialize_era, revisions

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.models import (
    _prepatch,
    generate_models,
    model_class,
    models_module,
    module_path,
    schema_index,
    validate_as,
    validate_line,
)
from compare.pin import load_pins, pinned_text

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
REVISIONS = revisions()


def _defs(revision: str) -> dict[str, dict[str, object]]:
    schema = json.loads(pinned_text(load_pins().revision(revision).schema))
    return schema.get("$defs") or schema["definitions"]


@pytest.fixture
def schemas_copy(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of ``schemas/`` (pins + generated models) that a test may edit."""
    target = isolated / "schemas"
    shutil.copytree(PROJECT_ROOT / "schemas", target)
    monkeypatch.setenv("MCP_COMPARE_SCHEMAS", str(target))
    return target


def test_committed_models_are_current(isolated: Path) -> None:
    report = generate_models(check=True)
    assert report.ok, (report.drifted, report.missing, report.extra)
    assert len(report.unchanged) == len(REVISIONS)


def test_check_detects_a_hand_edited_model_and_regeneration_repairs_it(
    schemas_copy: Path,
) -> None:
    edited = module_path("2025-06-18")
    assert edited.parent == schemas_copy / "models"
    edited.write_text(edited.read_text().replace("uri: AnyUrl", "uri: str", 1))
    (schemas_copy / "models" / "rev_1999_01_01.py").write_text("# stray\n")
    done = subprocess.run(
        [CLI, "models", "--check"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert done.returncode == 1
    stderr = done.stderr.replace("\n", " ")
    assert "rev_2025_06_18.py" in stderr and "rev_1999_01_01.py" in stderr
    assert "Traceback" not in done.stderr
    report = generate_models()
    assert report.written == [edited]
    assert not (schemas_copy / "models" / "rev_1999_01_01.py").exists()
    assert generate_models(check=True).ok


def test_missing_model_is_reported_by_check(schemas_copy: Path) -> None:
    module_path("draft").unlink()
    report = generate_models(check=True)
    assert report.missing == [module_path("draft")] and not report.ok


def test_header_names_source_commit_and_sha256() -> None:
    pins = load_pins()
    for revision in REVISIONS:
        head = module_path(revision).read_text(encoding="utf-8").splitlines()[:4]
        rev = pins.revision(revision)
        assert f"from {rev.schema} @ {pins.commit}" in head[0]
        assert pins.file(rev.schema).sha256 in head[1]  # type: ignore[union-attr]
        assert "do not edit" in head[1]
        assert "generated" in head[0]


def _descriptions(node: object) -> list[str]:
    if isinstance(node, dict):
        text = node.get("description")
        found = [text] if isinstance(text, str) and len(text) > 30 else []
        return found + [d for value in node.values() for d in _descriptions(value)]
    if isinstance(node, list):
        return [d for value in node for d in _descriptions(value)]
    return []


def test_generated_code_carries_no_spec_prose(isolated: Path) -> None:
    for revision in REVISIONS:
        code = module_path(revision).read_text(encoding="utf-8")
        prose = _descriptions(_defs(revision))
        assert prose, revision
        for text in prose:
            first = text.splitlines()[0][:40]
            assert first not in code, (revision, first)


def test_strip_prose_keeps_properties_named_description() -> None:
    schema = {
        "$defs": {
            "Tool": {
                "description": "prose",
                "properties": {"description": {"type": "string", "description": "prose"}},
            }
        }
    }
    assert _prepatch.strip_prose(schema) == {
        "$defs": {"Tool": {"properties": {"description": {"type": "string"}}}}
    }
    tool = model_class("2025-06-18", "Tool")
    assert "description" in tool.model_fields


def test_stale_prepatch_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    stale = _prepatch.Patch(("draft",), "/$defs/NoSuchDefinition", "test", lambda _s: None)
    monkeypatch.setattr(_prepatch, "PATCHES", (stale,))
    with pytest.raises(CompareError, match="no longer applies"):
        _prepatch.prepare({"$defs": {}}, "draft")
    assert _prepatch.prepare({"$defs": {}}, "2025-06-18")[1] == []


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_definition_has_a_model(isolated: Path, revision: str) -> None:
    module = models_module(revision)
    for name in _defs(revision):
        assert hasattr(module, name), (revision, name)


def test_roots_definitions_per_revision(isolated: Path) -> None:
    for revision in REVISIONS:
        defs = _defs(revision)
        for name in ("Root", "ListRootsRequest", "ListRootsResult", "ClientCapabilities"):
            assert model_class(revision, name).__name__ == name
        if revision in after_initialize():
            assert "RootsListChangedNotification" not in defs
            assert "InitializeRequest" not in defs
            assert model_class(revision, "InputRequiredResult")
            params = model_class(revision, "CallToolRequestParams").model_fields
            assert {"inputResponses", "requestState"} <= set(params)
        else:
            assert model_class(revision, "RootsListChangedNotification")
            assert model_class(revision, "InitializeRequest")
            assert model_class(revision, "InitializeResult")
            assert "InputRequiredResult" not in defs


def test_method_map_is_read_from_the_schema(isolated: Path) -> None:
    for revision in REVISIONS:
        index = schema_index(revision)
        assert index.methods["roots/list"] == "ListRootsRequest"
        assert index.methods["notifications/cancelled"] == "CancelledNotification"
        has_changed = "notifications/roots/list_changed" in index.methods
        assert has_changed == (revision in initialize_era())
    assert schema_index("2024-11-05").envelopes["error"] == "JSONRPCError"
    assert schema_index("2025-11-25").envelopes["error"] == "JSONRPCErrorResponse"


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_index_names_the_client_capabilities_the_generated_model_has(
    isolated: Path, revision: str
) -> None:
    # The scenario loader checks a capability parameter against the index (it imports no
    # models); the names must be those the generated ClientCapabilities takes on the wire.
    fields = model_class(revision, "ClientCapabilities").model_fields
    assert schema_index(revision).client_capabilities == {
        field.alias or name for name, field in fields.items()
    }
    assert "roots" in schema_index(revision).client_capabilities


INIT = (
    '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    '"capabilities":{"roots":{}},"clientInfo":{"name":"claude-code","version":"2.1.197"}}}'
)


def test_good_initialize_line(isolated: Path) -> None:
    result = validate_line(INIT, "2025-11-25")
    assert result.ok and result.kind == "request" and result.method == "initialize"
    assert type(result.model).__name__ == "InitializeRequest"
    assert result.raw == INIT


def test_uri_normalised_by_pydantic_leaves_raw_untouched(isolated: Path) -> None:
    raw = '{"jsonrpc":"2.0","id":"r1","result":{"roots":[{"uri":"FILE:///tmp/a/../b"}]}}'
    result = validate_line(raw, "2025-06-18")
    assert result.ok and result.kind == "result"
    assert result.raw == raw
    typed = validate_as(json.loads(raw)["result"], "ListRootsResult", "2025-06-18")
    assert typed.ok and typed.kind == "result"
    assert str(typed.model.roots[0].uri) == "file:///tmp/b"  # type: ignore[union-attr]
    assert "FILE:///tmp/a/../b" in result.raw


def test_unencoded_uri_is_a_precise_error(isolated: Path) -> None:
    value = {"roots": [{"uri": "file:///tmp/web #staging é"}]}
    result = validate_as(value, "ListRootsResult", "2025-11-25")
    assert not result.ok
    assert [(e.loc, e.type) for e in result.errors] == [("roots.0.uri", "url_syntax_violation")]
    encoded = {"roots": [{"uri": "file:///tmp/web%20%23staging%20%C3%A9"}]}
    assert validate_as(encoded, "ListRootsResult", "2025-11-25").ok


@pytest.mark.parametrize("revision", revisions())
def test_base64_of_any_bytes_is_valid_data_and_anything_else_is_not(
    isolated: Path, revision: str
) -> None:
    """An image is base64 of binary bytes, not of UTF-8 text (a PNG's first byte is 0x89)."""
    import base64

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\xff").decode()
    image = {"type": "image", "data": png, "mimeType": "image/png"}
    assert validate_as(image, "ImageContent", revision).ok
    assert not validate_as({**image, "data": "not base64 at all!"}, "ImageContent", revision).ok


def test_wrong_json_type_is_not_coerced(isolated: Path) -> None:
    raw = INIT.replace('"roots":{}', '"roots":{"listChanged":"true"}')
    result = validate_line(raw, "2025-11-25")
    assert not result.ok and result.kind == "request"
    assert [(e.loc, e.type) for e in result.errors] == [
        ("params.capabilities.roots.listChanged", "bool_type")
    ]


def test_an_integral_number_is_an_integer_as_json_schema_says(isolated: Path) -> None:
    # kotlin-sdk writes a form's number default as 3.0; ElicitResult's content takes integers,
    # and JSON Schema counts 3.0 as one. A fraction, or a string, is still refused.
    def content(value: object) -> dict[str, object]:
        return {"action": "accept", "content": {"answer": "yes", "count": value}}

    assert validate_as(content(3.0), "ElicitResult", "2025-11-25").ok
    assert validate_as(content(3), "ElicitResult", "2025-11-25").ok
    refused = validate_as(content(3.5), "ElicitResult", "2025-11-25")
    assert not refused.ok and any(e.loc.startswith("content.count") for e in refused.errors)
    assert validate_as(content(1e2), "ElicitResult", "2025-11-25").ok
    # Only integers are read that way: 1.0 is still not a boolean.
    bad = INIT.replace('"roots":{}', '"roots":{"listChanged":1.0}')
    assert not validate_line(bad, "2025-11-25").ok


@pytest.mark.parametrize(
    ("raw", "kind", "loc", "type_"),
    [
        ("not json", "invalid-json", "", "json_invalid"),
        ('{"jsonrpc":"2.0","id":1,"method":"ping"', "invalid-json", "", "json_invalid"),
        ("[1, 2]", "invalid-envelope", "", "envelope_type"),
        ('"hello"', "invalid-envelope", "", "envelope_type"),
        ('{"foo": 1}', "invalid-envelope", "", "envelope_shape"),
        (
            '{"jsonrpc":"1.0","id":1,"method":"ping"}',
            "invalid-envelope",
            "jsonrpc",
            "literal_error",
        ),
        ('{"jsonrpc":"2.0","id":1,"result":[]}', "invalid-envelope", "result", "model_type"),
        (
            '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}',
            "invalid-envelope",
            "error.code",
            "int_type",
        ),
    ],
)
def test_bad_lines(isolated: Path, raw: str, kind: str, loc: str, type_: str) -> None:
    result = validate_line(raw, "2025-06-18")
    assert not result.ok and result.kind == kind and result.raw == raw
    assert (loc, type_) in [(e.loc, e.type) for e in result.errors]


def test_hostile_lines_do_not_raise(isolated: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    assert validate_line(deep, "2025-06-18").kind in ("invalid-json", "invalid-envelope")
    nested = '{"jsonrpc":"2.0","id":1,"result":' + '{"a":' * 5000 + "1" + "}" * 5001
    too_deep = validate_line(nested, "2025-06-18")
    assert too_deep.kind == "invalid-json" and too_deep.errors[0].type == "json_too_deep"
    fine = '{"jsonrpc":"2.0","id":1,"result":' + '{"a":' * 50 + "1" + "}" * 51
    assert validate_line(fine, "2025-06-18").ok
    assert validate_line("\udcff", "2025-06-18").kind == "invalid-json"


def test_notification_of_a_removed_method(isolated: Path) -> None:
    raw = '{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}'
    old = validate_line(raw, "2025-11-25")
    assert old.ok and old.definition == "RootsListChangedNotification"
    new = validate_line(raw, "2026-07-28")
    assert new.ok and new.kind == "notification" and new.definition == "JSONRPCNotification"


def test_mrtr_roots_round_trip_2026(isolated: Path) -> None:
    asked = {
        "resultType": "input_required",
        "inputRequests": {"roots-1": {"method": "roots/list"}},
        "requestState": "opaque",
    }
    result = validate_as(asked, "InputRequiredResult", "2026-07-28")
    assert result.ok
    retry = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "t",
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            "inputResponses": {"roots-1": {"roots": [{"uri": "file:///w"}]}},
            "requestState": "opaque",
        },
    }
    line = validate_line(json.dumps(retry), "2026-07-28")
    assert line.kind == "request" and line.definition == "CallToolRequest"
    missing = validate_as({"inputRequests": {}}, "InputRequiredResult", "2026-07-28")
    assert not missing.ok and missing.errors[0].loc == "resultType"


def test_unknown_names_are_clear_errors(isolated: Path) -> None:
    with pytest.raises(CompareError, match="unknown revision"):
        validate_line(INIT, "2030-01-01")
    with pytest.raises(CompareError, match="no schema definition"):
        validate_as({}, "RootsListChangedNotification", "2026-07-28")


def test_broken_generated_module_is_a_clear_error(schemas_copy: Path) -> None:
    broken = module_path("2025-03-26")
    broken.write_text(broken.read_text() + "\nclass Oops(:\n")
    with pytest.raises(CompareError, match="fail to import") as caught:
        validate_line(INIT, "2025-03-26")
    assert "mcp-compare models" in (caught.value.hint or "")


def test_batches_only_where_the_schema_admits_them(isolated: Path) -> None:
    batch = '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x/y"}]'
    assert schema_index("2025-03-26").batches and not schema_index("2025-06-18").batches
    good = validate_line(batch, "2025-03-26")
    assert good.ok and good.kind == "request" and good.method == "ping" and good.raw == batch
    assert validate_line(batch, "2025-06-18").kind == "invalid-envelope"
    bad = validate_line('[{"jsonrpc":"2.0","id":1,"method":"ping"}, 3]', "2025-03-26")
    assert not bad.ok and [(e.loc, e.type) for e in bad.errors] == [("1", "envelope_type")]
    assert validate_line("[]", "2025-03-26").kind == "invalid-envelope"


def test_generator_failure_is_a_clear_error_and_keeps_the_models(
    schemas_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def malformed(schema: dict[str, Any]) -> None:
        schema["$defs"]["Root"] = {"type": "object", "properties": "oops"}

    broken = _prepatch.Patch(("draft",), "/$defs/Root", "test: malformed definition", malformed)
    monkeypatch.setattr(_prepatch, "PATCHES", (broken,))
    before = module_path("draft").read_bytes()
    with pytest.raises(CompareError) as caught:
        generate_models()
    assert "schema/draft/schema.json" in caught.value.message
    assert module_path("draft").read_bytes() == before


def test_dangling_ref_is_refused_before_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"$defs": {"A": {"$ref": "#/$defs/Nope"}, "B": {"$ref": "#/$defs/A"}}}
    with pytest.raises(CompareError, match="#/\\$defs/Nope"):
        _prepatch.prepare(schema, "draft")
