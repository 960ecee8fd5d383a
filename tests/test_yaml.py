"""The one YAML reader of the data files: bad text is a CompareError naming the file, and
a text is parsed once, its cached result read back only when it is sound.

Each case of the first test is a minimal example tests/fuzz/test_fuzz_loaders.py found: text
the YAML parser accepts but its constructors fail on with a plain exception (which escaped
as a traceback), or a value no later check could handle.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from compare import _yaml, _yaml_cache
from compare._errors import CompareError
from compare._yaml import parse_yaml

HERE = Path("targets/x.yaml")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("a: 2026-02-30", "ValueError: day is out of range"),  # a date that does not exist
        ("!!int ", "IndexError"),  # an empty tagged integer
        ("a: !!int abc", "ValueError"),
        ("a: !!omap [a: 1, a: 2]", "AssertionError"),
        ("[" * 600, "RecursionError"),  # nesting deeper than the reader's recursion
        ("a: &x [*x]", "refers to the node that contains it"),  # would hang a schema check
        ("a: 0x" + "f" * 5000, "too large"),  # more digits than Python will print
    ],
)
def test_text_the_loader_cannot_use_is_refused_naming_the_file(text: str, says: str) -> None:
    with pytest.raises(CompareError, match=says) as caught:
        parse_yaml(text, HERE)
    assert caught.value.message.startswith(f"{HERE}: ")


def test_shared_aliases_are_still_fine() -> None:
    assert parse_yaml("a: &x [1]\nb: [*x, *x]", HERE) == {"a": [1], "b": [[1], [1]]}


# The cache of parsed texts (compare._yaml_cache): each text is parsed once, and an entry is
# read back only when it is sound.

SHARED = "a: &x [1, {b: 2}]\nc: *x\nd: [*x]\ne: no\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "yaml-cache"
    monkeypatch.setenv("MCP_COMPARE_YAML_CACHE", str(folder))
    return folder


def _entry(folder: Path, text: str) -> Path:
    return folder / f"{_yaml_cache.key(text)}.json"


def _no_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(text: str, path: Path) -> object:
        raise AssertionError("the text was parsed again")

    monkeypatch.setattr(_yaml, "_parse", refuse)


def _rewrite(entry: Path, value: object, links: list[object], *, header: dict[str, object]) -> None:
    """An entry with this payload and a checksum that matches it (a deliberate forgery)."""
    body = json.dumps([value, links]).encode()
    head = {**header, "sha256": hashlib.sha256(body).hexdigest()}
    entry.write_bytes(json.dumps(head).encode() + b"\n" + body)


def test_a_text_is_parsed_once_and_read_back_with_its_shared_nodes(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = parse_yaml(SHARED, HERE)
    assert _entry(cache, SHARED).is_file()
    _no_parser(monkeypatch)
    again = parse_yaml(SHARED, HERE)
    assert (
        again == first == {"a": [1, {"b": 2}], "c": [1, {"b": 2}], "d": [[1, {"b": 2}]], "e": "no"}
    )
    assert again["a"] is again["c"] is again["d"][0]  # aliases stay one node, as parsed
    assert again is not first  # each caller gets its own tree to change


def test_a_lone_surrogate_is_read_back_as_parsed(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by tests/fuzz/test_fuzz_loaders.py: UTF-8 cannot hold "\ud800", JSON's escapes can.
    text = 'a: "\\ud800"\n'
    assert parse_yaml(text, HERE) == {"a": "\ud800"}
    _no_parser(monkeypatch)
    assert parse_yaml(text, HERE) == {"a": "\ud800"}


def test_an_edited_text_is_another_entry(cache: Path) -> None:
    assert parse_yaml("a: 1\n", HERE) == {"a": 1}
    assert parse_yaml("a: 2\n", HERE) == {"a": 2}
    assert len(list(cache.glob("*.json"))) == 2


@pytest.mark.parametrize(
    "garbage",
    [b"", b"\x00\xff garbage", b'{"format": 1}', b"not json\n[1, []]", b'{"format": 1, "key"'],
)
def test_a_garbage_entry_is_ignored_and_rebuilt(cache: Path, garbage: bytes) -> None:
    parse_yaml(SHARED, HERE)
    entry = _entry(cache, SHARED)
    entry.write_bytes(garbage)
    assert parse_yaml(SHARED, HERE)["c"] == [1, {"b": 2}]
    assert _yaml_cache.load(SHARED)[0]  # rewritten sound


def test_an_edited_entry_is_not_believed(cache: Path) -> None:
    parse_yaml(SHARED, HERE)
    entry = _entry(cache, SHARED)
    entry.write_bytes(entry.read_bytes().replace(b'"no"', b'"yes"'))  # checksum now stale
    assert parse_yaml(SHARED, HERE)["e"] == "no"
    assert b'"no"' in entry.read_bytes()


def test_an_entry_of_another_text_is_not_believed(cache: Path) -> None:
    parse_yaml("a: 1\n", HERE)
    _entry(cache, "a: 1\n").rename(_entry(cache, "a: 2\n"))  # sound, but for another key
    assert parse_yaml("a: 2\n", HERE) == {"a": 2}


@pytest.mark.parametrize(
    ("value", "links", "why"),
    [
        ({"a": {"b": None}}, [[["a", "b"], ["a"]]], "a node that would contain itself"),
        ({"a": None}, [[["a"], ["nowhere"]]], "a link to a place the value lacks"),
        ({"a": 1, "b": [2]}, [[["a"], ["b"]]], "a link onto a place that is not null"),
        ({"a": None, "b": 3}, [[["a"], ["b"]]], "a link to a scalar"),
        ({"a": None}, [[[], ["a"]]], "a link to the root's place"),
        ({"a": None}, ["a"], "a link that is not a pair"),
        ({"a": 1.5e400}, [], "a float no file can hold"),
    ],
)
def test_a_forged_entry_with_a_matching_checksum_is_checked_like_a_parse(
    cache: Path, value: object, links: list[object], why: str
) -> None:
    text = "a: real\n"
    parse_yaml(text, HERE)
    entry = _entry(cache, text)
    header = json.loads(entry.read_bytes().split(b"\n", 1)[0])
    _rewrite(entry, value, links, header=header)
    assert parse_yaml(text, HERE) == {"a": "real"}, why


@pytest.mark.parametrize(
    "text",
    ["a: 2026-02-28\n", "? [1, 2]\n: pair\n", "1: one\n", "a: .nan\n", "a: !!binary aGk=\n"],
)
def test_a_value_json_cannot_carry_exactly_is_parsed_each_time(cache: Path, text: str) -> None:
    first = parse_yaml(text, HERE)
    assert not _entry(cache, text).exists()
    again = parse_yaml(text, HERE)
    assert type(again) is type(first) and repr(again) == repr(first)


def test_a_cache_that_cannot_be_written_costs_only_a_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MCP_COMPARE_YAML_CACHE", str(blocker / "yaml"))
    assert parse_yaml(SHARED, HERE)["e"] == "no"
    assert parse_yaml(SHARED, HERE)["e"] == "no"


def test_text_that_fails_is_never_cached(cache: Path) -> None:
    for _ in range(2):
        with pytest.raises(CompareError, match="not valid YAML"):
            parse_yaml("a: [", HERE)
    assert list(cache.glob("*.json")) == []


def test_the_key_changes_with_the_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _yaml_cache.key("a: 1\n")
    _yaml_cache._loader_identity.cache_clear()
    real = Path.read_bytes

    def edited(path: Path) -> bytes:
        data = real(path)
        return data + b"\n# edited" if path.name == "_yaml.py" else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    try:
        assert _yaml_cache.key("a: 1\n") != before
    finally:
        monkeypatch.undo()
        _yaml_cache._loader_identity.cache_clear()
    assert _yaml_cache.key("a: 1\n") == before


def test_a_syntax_error_names_its_line_and_column() -> None:
    # A plain scalar holding ": " on the third line: the message says where, not just what.
    with pytest.raises(CompareError, match=r":3:\d+: not valid YAML: mapping values"):
        parse_yaml("a: 1\nb: 2\nc: one: two\n", HERE)
