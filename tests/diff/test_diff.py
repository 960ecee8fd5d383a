"""The schema diff, from the real pinned schemas: the facts rows depend on, the citations
each cell carries, and the selection rule on schemas it has never seen."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from _isolate import isolate
from _revisions import after_initialize, initialize_era, revisions

from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.diff import build_diff, diff_path, write_diff
from compare.diff._lines import key_lines
from compare.diff._select import select
from compare.pin import load_pins, pinned_text, spec_cache

CLI = str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare")
#: Revisions with initialize (and roots/list_changed), and those after it; from the pins.
OLD = initialize_era()
NEW = after_initialize()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, pinned_spec: Path) -> dict[str, Any]:
    """The whole diff, built once for the tests that only read it: a build reads every
    revision's schema (seconds each time)."""
    with pytest.MonkeyPatch.context() as patch:
        isolate(tmp_path_factory.mktemp("diff"), patch, pinned_spec)  # as `isolated` does
        return build_diff()


@pytest.fixture
def diff(built: dict[str, Any]) -> dict[str, Any]:
    """The whole diff (a copy of its own), with the roots section's keys on top: these
    tests are about roots, and the top level repeats only the first area by name."""
    doc = copy.deepcopy(built)
    return {**doc, **doc["areas"]["roots"]}


def _present(diff: dict[str, Any], item: str) -> dict[str, bool]:
    return {r: v["present"] for r, v in diff["items"][item]["revisions"].items()}


def _changes(diff: dict[str, Any], item: str) -> set[tuple[str, str]]:
    return {(c["revision"], c["change"]) for c in diff["changes"] if c["item"] == item}


def test_root_meta_from_2025_06_18(diff: dict[str, Any]) -> None:
    since = revisions()[revisions().index("2025-06-18") :]
    assert _present(diff, "Root._meta") == {r: r in since for r in revisions()}
    assert ("2025-06-18", "added") in _changes(diff, "Root._meta")
    assert diff["items"]["Root._meta"]["revisions"]["2026-07-28"]["ref"] == "MetaObject"
    assert ("2026-07-28", "ref") in _changes(diff, "Root._meta")


def test_list_changed_notification_and_capability_gone_in_2026(diff: dict[str, Any]) -> None:
    for item in ("RootsListChangedNotification", "ClientCapabilities.roots.listChanged"):
        present = _present(diff, item)
        assert all(present[r] for r in OLD), item
        assert not any(present[r] for r in NEW), item
        assert ("2026-07-28", "removed") in _changes(diff, item)
    assert all(_present(diff, "ClientCapabilities.roots").values())


def test_roots_deprecated_in_2026_with_a_quotable_line(diff: dict[str, Any]) -> None:
    for rev in OLD:
        assert diff["deprecation"][rev]["deprecated"] is False
    for rev in NEW:
        mark = diff["deprecation"][rev]
        assert mark["deprecated"] is True and mark["since"] == "2026-07-28"
        line = pinned_text(mark["source"]).splitlines()[mark["line"] - 1]
        assert mark["quote"] and mark["quote"] in line
        assert mark["source"] == f"docs/specification/{rev}/client/roots.mdx"  # roots.yaml


def test_embedders_of_roots_list_are_found_by_walking_refs(diff: dict[str, Any]) -> None:
    for item in (
        "InputRequiredResult",
        "InputRequiredResult.inputRequests",
        "InputRequiredResult.requestState",
        "InputRequests",
        "InputRequest",
        "InputResponses",
        "CallToolRequestParams.inputResponses",
        "CallToolRequestParams.requestState",
    ):
        present = _present(diff, item)
        assert not any(present[r] for r in OLD) and all(present[r] for r in NEW), item
    roles = {r: v.get("role") for r, v in diff["items"]["InputRequiredResult"]["revisions"].items()}
    assert roles["2026-07-28"] == "embedder"
    assert "ServerResult" not in diff["items"] and "ClientRequest" not in diff["items"]


def test_list_roots_request_envelope_window(diff: dict[str, Any]) -> None:
    present = _present(diff, "ListRootsRequest.id")
    assert [r for r, p in present.items() if p] == ["2025-11-25"]
    assert ("2025-11-25", "added") in _changes(diff, "ListRootsRequest.id")
    assert ("2026-07-28", "removed") in _changes(diff, "ListRootsRequest.id")
    uri = diff["items"]["Root.uri"]["revisions"]["2024-11-05"]
    assert uri["required"] is True and uri["type"] == "string" and uri["format"] == "uri"


def test_every_present_record_cites_the_line_that_declares_it(diff: dict[str, Any]) -> None:
    checked = 0
    for name, item in diff["items"].items():
        for rev, record in item["revisions"].items():
            if not record["present"]:
                continue
            assert record["source"] == load_pins().revision(rev).schema
            line = pinned_text(record["source"]).splitlines()[record["line"] - 1]
            key = line.strip().split('"')[1]
            assert name == key if item["kind"] == "definition" else name.endswith(f".{key}"), (
                name,
                rev,
                line,
            )
            checked += 1
    assert checked > 200


def test_cli_json_prints_and_writes_the_same_document(isolated: Path) -> None:
    env = {**os.environ}
    done = subprocess.run([CLI, "diff", "--json"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed == json.loads(diff_path().read_text(encoding="utf-8"))
    assert printed["spec_commit"] == load_pins().commit
    assert printed["revisions"] == [*OLD, *NEW]
    again = subprocess.run([CLI, "diff", "--json"], capture_output=True, text=True, env=env)
    assert again.stdout == done.stdout  # deterministic: no timestamps, stable order


def test_cli_table_shows_deprecation(isolated: Path) -> None:
    done = subprocess.run(
        [CLI, "diff"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}
    )
    assert done.returncode == 0, done.stderr
    assert "RootsListChangedNotification" in done.stdout
    assert "deprecated :8" in done.stdout


def test_failed_run_keeps_the_previous_diff(isolated: Path) -> None:
    earlier = write_diff(build_diff()).read_bytes()
    schema = spec_cache(load_pins().commit) / "schema/2026-07-28/schema.json"
    schema.write_bytes(schema.read_bytes().replace(b"Root", b"R00t", 1))
    done = subprocess.run([CLI, "diff"], capture_output=True, text=True, env=os.environ)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pin verify" in done.stderr
    assert diff_path().read_bytes() == earlier


def test_unpinned_cache_is_a_clear_error(isolated: Path) -> None:
    shutil.rmtree(isolated / "cache" / "spec")
    with pytest.raises(CompareError, match="has not been fetched"):
        build_diff()


def test_selection_rule_on_an_unseen_schema() -> None:
    obj = {"type": "object"}
    schema = {
        "$defs": {
            "Dir": {"type": "object", "properties": {"uri": {"type": "string"}}},
            "ListThings": {
                "type": "object",
                "properties": {"roots": {"items": {"$ref": "#/$defs/Dir"}}},
                "required": ["roots"],
            },
            "AskRoots": {"type": "object", "properties": {"method": {"const": "roots/ask"}}},
            "Other": {"type": "object", "properties": {"method": {"const": "tools/list"}}},
            "Caps": {"type": "object", "properties": {"roots": obj, "tools": obj}},
            "Wrapper": {"anyOf": [{"$ref": "#/$defs/AskRoots"}, {"$ref": "#/$defs/Other"}]},
            "Holder": {"type": "object", "properties": {"ask": {"$ref": "#/$defs/Wrapper"}}},
            "Message": {
                "type": "object",
                "properties": {"jsonrpc": obj, "result": {"$ref": "#/$defs/Holder"}},
            },
            "TopUnion": {"anyOf": [{"$ref": "#/$defs/Holder"}]},
        }
    }
    found = select(schema, "roots")
    assert found.roles == {
        "ListThings": "core", "AskRoots": "core", "Caps": "partial", "Dir": "owned",
        "Wrapper": "embedder", "Holder": "embedder",
    }  # fmt: skip
    assert found.partial == {"Caps": "roots"}


def test_key_lines_survive_strings_that_look_like_json() -> None:
    text = '{\n "a": "x{\\"b\\": [1,",\n "c": [\n  {"d": 1},\n  {"e": {}}\n ],\n "f": []\n}'
    assert json.loads(text)
    lines = key_lines(text)
    assert lines[("a",)] == 2 and lines[("c",)] == 3
    assert lines[("c", "0", "d")] == 4 and lines[("c", "1", "e")] == 5
    assert lines[("f",)] == 7 and ("b",) not in lines
