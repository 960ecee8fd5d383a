"""The one YAML loader of the project's data files (targets, scenarios, area rows).

ruamel.yaml's pure safe loader speaks YAML 1.2, so an unquoted ``no`` or ``on`` stays a
string; duplicate keys and syntax errors become a :class:`CompareError` naming the file,
never a traceback.

Each text is parsed once: what it parses to is kept by the sha256 of the text and of the
loader (:mod:`compare._yaml_cache`), and read back from there, as strictly checked, by every
later command. ruamel.yaml is imported only when a text has to be parsed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from compare import _yaml_cache
from compare._errors import CompareError


def read_text(path: Path) -> str:
    """The file's UTF-8 text; an unreadable file is a CompareError."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CompareError(
            f"cannot read {path}: {err}", "check the file exists and is UTF-8"
        ) from None


def parse_yaml(text: str, path: Path) -> Any:
    """Parse YAML 1.2 text read from ``path`` into plain Python values (a text parsed
    before is read back from the cache; a text that fails is parsed, and fails, each time)."""
    found, value = _yaml_cache.load(text)
    if found and _unusable(value, []) is None:
        return value
    value = _parse(text, path)
    _yaml_cache.store(text, value)
    return value


def _parse(text: str, path: Path) -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 2)
    try:
        value = yaml.load(text)
    except YAMLError as err:
        raise CompareError(
            f"{path}{_where(err)}: not valid YAML: {_first_line(err)}",
            "fix the syntax (YAML 1.2; duplicate keys are rejected)",
        ) from None
    except Exception as err:  # text in, values out: any failure is the text's
        # The loader's constructors raise plain exceptions for text that parses but holds no
        # value: a date that does not exist (2026-02-30, ValueError), an empty ``!!int``
        # (IndexError), a malformed ``!!omap`` (AssertionError), nesting deeper than the
        # recursion limit (RecursionError). Each is a fault of the file, reported with it.
        raise CompareError(
            f"{path}: not valid YAML: {type(err).__name__}: {_first_line(err)}",
            "fix the value (quote it if it should be a string)",
        ) from None
    problem = _unusable(value, [])
    if problem:
        raise CompareError(f"{path}: {problem}", "data files hold plain values in a tree")
    return value


def _where(err: BaseException) -> str:
    """``:LINE:COLUMN`` (1-based) of the parser's mark, so the reader can go to the fault."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    line, column = getattr(mark, "line", None), getattr(mark, "column", None)
    if isinstance(line, int) and isinstance(column, int):
        return f":{line + 1}:{column + 1}"
    return ""


def _first_line(err: BaseException) -> str:
    return (str(err).splitlines() or [type(err).__name__])[0]


#: Integers longer than this many bits have more decimal digits than Python will print
#: (``sys.get_int_max_str_digits``), so any message quoting one would itself fail.
_MAX_INT_BITS = 10_000


def _unusable(value: Any, parents: list[int], seen: set[int] | None = None) -> str | None:
    """Why ``value`` cannot be checked or quoted, if it cannot: a node that contains itself
    (``a: &x [*x]``, which no schema check finishes) or an integer too long to print
    (``0xfff…`` is read without the decimal digit limit). A node shared by aliases is
    walked once (``seen``)."""
    seen = set() if seen is None else seen
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        return f"a number of {value.bit_length()} bits, too large to use"
    if not isinstance(value, dict | list):
        return None
    if id(value) in parents:
        return "an alias (*name) refers to the node that contains it"
    if id(value) in seen:
        return None
    parents.append(id(value))
    children = [*value.keys(), *value.values()] if isinstance(value, dict) else value
    found = next((p for p in (_unusable(c, parents, seen) for c in children) if p), None)
    parents.pop()
    seen.add(id(value))
    return found


def load_yaml(path: Path) -> Any:
    """Read and parse one YAML file."""
    return parse_yaml(read_text(path), path)
