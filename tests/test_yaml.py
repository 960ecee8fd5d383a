"""The one YAML reader of the data files: bad text is a CompareError naming the file.

Each case is a minimal example tests/fuzz/test_fuzz_loaders.py found: text the YAML parser
accepts but its constructors fail on with a plain exception (which escaped as a traceback),
or a value no later check could handle.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
