"""Atomic writes: a reader sees the old file or the new one, never half of either.

Every stage writes its outputs through these helpers so an interrupted or failed run
cannot lose an earlier result.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def _read_umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# Read once at import: os.umask can only be read by setting it, which would race with
# other threads (the harness runs cells in threads) creating files meanwhile.
_UMASK = _read_umask()


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, fsync it, then rename over ``path``.

    ``mkstemp`` creates the file 0600; it is widened to what a plain ``open`` would give, so
    outputs stay readable by a web server or another user like any other file.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    """Atomically write UTF-8 text (newlines kept as given)."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, value: Any) -> None:
    """Atomically write JSON, sorted and indented so diffs of outputs stay readable."""
    write_text(path, json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
