"""Putting a staged cell in place in one step, and clearing what a killed run left behind.

A cell is built in a staging folder beside its place (``.<leaf>.stage-*``, ``.<leaf>.merge-*``)
and swapped in. Where the kernel can (Linux ``renameat2(RENAME_EXCHANGE)``), the staged and
the old folder trade places in one system call, so there is no moment at which the cell is
missing: a kill at any point leaves the old result or the new one in place. Elsewhere the old
folder is first renamed aside (``<leaf>.old-*``); a kill between the two renames leaves the
cell only there, and :func:`sweep` (run by the next run while it holds the results lock)
puts it back. Readers skip staging and ``.old-`` folders.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import shutil
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap ``a`` and ``b`` atomically; False when this system cannot (nothing was done)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    renameat2.restype = ctypes.c_int
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def swap_in(stage: Path, final: Path) -> None:
    """Put the staged cell where the old one was; the old one is removed only afterwards."""
    if final.exists() and _exchange(stage, final):
        shutil.rmtree(stage, ignore_errors=True)  # now the old cell
        return
    old = final.with_name(final.name + f".old-{secrets.token_hex(4)}")
    if final.exists():
        final.rename(old)
    stage.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def sweep(results: Path) -> list[Path]:
    """Remove the staging folders a killed run left in ``results`` and put back a cell left
    only in its ``.old-`` folder; returns what was removed or restored. Call it only while
    holding the results lock (no other writer can own those folders then)."""
    touched: list[Path] = []
    if not results.is_dir():
        return touched
    for stale in sorted(results.glob("*/*/*/.*.*-*")):
        if stale.is_dir() and (".stage-" in stale.name or ".merge-" in stale.name):
            shutil.rmtree(stale, ignore_errors=True)
            touched.append(stale)
    for old in sorted(results.glob("*/*/*/*.old-*")):
        final = old.with_name(old.name.rsplit(".old-", 1)[0])
        if not old.is_dir():
            continue
        if not final.exists() and (old / "verdict.json").is_file():
            old.rename(final)
        else:
            shutil.rmtree(old, ignore_errors=True)
        touched.append(old)
    return touched
