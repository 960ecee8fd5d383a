"""Atomic writes: a reader sees the old file or the new one, never half of either.

Every stage writes its outputs through these helpers so an interrupted or failed run
cannot lose an earlier result. A write that the file system refuses (a full disk, a
read-only or foreign folder) is a :class:`CompareError` naming the file: the user can fix
it, and the old file is still there.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from compare._errors import CompareError

#: What to do about the file-system errors a user meets; any other gets a generic hint.
_HINTS = {
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space and run the command again",
    errno.EROFS: "that file system is mounted read-only: make it writable or point the "
    "location elsewhere (MCP_COMPARE_RESULTS, MCP_COMPARE_BUILD, MCP_COMPARE_SITE)",
    errno.EACCES: "this user may not write there: fix the folder's permissions or owner",
    errno.EPERM: "this user may not write there: fix the folder's permissions or owner",
}

#: The errors a user can fix; the CLI names the path instead of printing a traceback.
USER_ERRNOS = frozenset(_HINTS)


def storage_error(err: BaseException, path: Path) -> CompareError:
    """A write that failed, as a :class:`CompareError` naming ``path`` (returned as it is
    when it already is one)."""
    if isinstance(err, CompareError):
        return err
    code = err.errno if isinstance(err, OSError) else None
    why = (err.strerror if isinstance(err, OSError) else None) or str(err)
    hint = _HINTS.get(code or 0, "check the folder exists and can be written; nothing was changed")
    return CompareError(f"cannot write {path}: {why}", hint + " (earlier results are kept)")


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
    outputs stay readable by a web server or another user like any other file. On failure
    the temporary file is removed and ``path`` keeps its old content; an ``OSError`` comes
    out as a :class:`CompareError` naming ``path``.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise storage_error(err, path) from err
    try:
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise storage_error(err, path) from err
        raise


def write_text(path: Path, text: str) -> None:
    """Atomically write UTF-8 text (newlines kept as given)."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, value: Any) -> None:
    """Atomically write JSON, sorted and indented so diffs of outputs stay readable."""
    write_text(path, json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


#: Less free space than this after a cell was played means its files may have been cut short.
MIN_FREE_BYTES = 64 * 1024


def require_space(path: Path, minimum: int = MIN_FREE_BYTES) -> None:
    """Raise the full-disk :class:`CompareError` for ``path`` when its file system has less
    than ``minimum`` bytes free. A writer that is not ours (the peer recording a transcript,
    a client's output) meets a full disk silently: its file just ends, and judging it would
    turn our disk into the implementation's finding. So the harness asks before it judges."""
    try:
        info = os.statvfs(path)
    except OSError:
        return  # cannot tell: the writes themselves will say
    if info.f_bavail * info.f_frsize < minimum:
        raise storage_error(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), path)
