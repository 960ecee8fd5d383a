"""The one YAML loader of the project's data files (targets, scenarios, area rows).

ruamel.yaml's pure safe loader speaks YAML 1.2, so an unquoted ``no`` or ``on`` stays a
string; duplicate keys and syntax errors become a :class:`CompareError` naming the file,
never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

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
    """Parse YAML 1.2 text read from ``path`` into plain Python values."""
    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 2)
    try:
        return yaml.load(text)
    except YAMLError as err:
        raise CompareError(
            f"{path}: not valid YAML: {str(err).splitlines()[0]}",
            "fix the syntax (YAML 1.2; duplicate keys are rejected)",
        ) from None


def load_yaml(path: Path) -> Any:
    """Read and parse one YAML file."""
    return parse_yaml(read_text(path), path)
