"""Line numbers of the keys in a JSON document, so every diff item can cite where it is
declared (``schema/2025-06-18/schema.json:1234``).

The standard library's parser keeps no positions, so this is a small scanner over the same
text: it walks objects and arrays and records, for each object key, the path of keys leading
to it and the line it starts on. It trusts that the text is valid JSON (it was parsed by
``json.loads`` first) and only has to be right about positions.
"""

from __future__ import annotations

import json
import re

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"[^\s,\]\}]+")
_SPACE = re.compile(r"\s*")

Path = tuple[str, ...]


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: dict[Path, int] = {}

    def _skip(self) -> None:
        match = _SPACE.match(self.text, self.pos)
        assert match is not None
        self.line += self.text.count("\n", self.pos, match.end())
        self.pos = match.end()

    def _string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if match is None:
            raise ValueError(f"expected a string at line {self.line}")
        self.pos = match.end()
        raw = match.group(0)
        self.line += raw.count("\n")
        value: str = json.loads(raw)
        return value

    def value(self, path: Path) -> None:
        self._skip()
        char = self.text[self.pos : self.pos + 1]
        if char == "{":
            self.pos += 1
            self._skip()
            if self.text[self.pos] == "}":
                self.pos += 1
                return
            while True:
                self._skip()
                key_line = self.line
                key = self._string()
                self.lines.setdefault((*path, key), key_line)
                self._skip()
                self.pos += 1  # ':'
                self.value((*path, key))
                self._skip()
                if self.text[self.pos] == ",":
                    self.pos += 1
                    continue
                self.pos += 1  # '}'
                return
        if char == "[":
            self.pos += 1
            self._skip()
            if self.text[self.pos] == "]":
                self.pos += 1
                return
            index = 0
            while True:
                self.value((*path, str(index)))
                self._skip()
                if self.text[self.pos] == ",":
                    self.pos += 1
                    index += 1
                    continue
                self.pos += 1  # ']'
                return
        if char == '"':
            self._string()
            return
        match = _SCALAR.match(self.text, self.pos)
        if match is None:
            raise ValueError(f"unexpected input at line {self.line}")
        self.pos = match.end()


def key_lines(text: str) -> dict[Path, int]:
    """Map each key path (``("$defs", "Root", "properties", "uri")``) to its 1-based line."""
    scanner = _Scanner(text)
    scanner.value(())
    return scanner.lines
