"""Stage stamps: skip a stage whose inputs and outputs are exactly what it last saw.

A warm ``mcp-compare compare`` with nothing changed should cost a few stat calls, not a
model regeneration and a full ``mkdocs build``. Each stage therefore records, after it
succeeded, the digest of its inputs and of its outputs in ``build/stamps/<stage>.json``; the
next run skips the stage only when the inputs hash to the same digest *and* the outputs still
hash to what the stage wrote. A deleted or hand-edited output re-runs the stage: the stamp is
never trusted over the files themselves.

Digests are built with :class:`Digest`: file contents for small inputs, and for large trees
(``results/``, ``site/docs/``, ``site/build/``) each file's path, size, modification time in
nanoseconds and inode. Every write in the project replaces a file through a rename
(``compare._atomic``), which gives the file a new inode, and an edit in place changes its
modification time, so a changed file always changes the digest — short of an edit in place
that keeps the size and lands within the same tick of the file system's clock as the write
before it (a few milliseconds), the limit ``make`` and git's index share.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from compare import _atomic, _paths

FORMAT = 1
_PACKAGE = Path(__file__).resolve().parent
#: Names never part of a digest: byte-code caches and editor or build droppings.
_IGNORED = frozenset({"__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
#: Per-process memo of tree digests (code never changes during a run; data trees are
#: forgotten with :func:`forget` whenever a stage really ran).
_MEMO: dict[tuple[str, str, bool], str] = {}


def _walk(root: Path) -> list[tuple[str, os.stat_result]]:
    """Every regular file under ``root`` (symlinks not followed), sorted by relative path.
    The same files ``os.walk`` gives (a link to a folder is neither walked nor listed), read
    with one ``scandir`` per folder and no path arithmetic per file: the results folder has
    some 40,000 files, and every stamp check walks it."""
    found: list[tuple[str, os.stat_result]] = []
    base = str(root)
    cut = len(base) + 1
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir():
                        if not entry.is_symlink() and entry.name not in _IGNORED:
                            stack.append(entry.path)
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found.append((entry.path[cut:], info))
    found.sort(key=lambda item: item[0])
    return found


def tree_digest(root: Path, *, content: bool) -> str:
    """Digest of a folder: every file's relative path and either its bytes (``content``) or
    its size, mtime_ns and inode. A missing folder has a digest of its own."""
    memo = (str(root), "tree", content)
    if memo in _MEMO:
        return _MEMO[memo]
    digest = hashlib.sha256()
    if not root.is_dir():
        digest.update(b"(missing folder)")
    for rel, info in _walk(root):
        digest.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        if content:
            try:
                data = (root / rel).read_bytes()
            except OSError:
                data = b"(unreadable)"
            digest.update(f"{len(data)}\0".encode() + data)
        else:
            digest.update(f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}\0".encode())
    _MEMO[memo] = digest.hexdigest()
    return _MEMO[memo]


def forget(keep: Iterable[Path] = ()) -> None:
    """Drop memoised data-tree digests (after a stage wrote something), but those of the
    ``keep`` folders, which the caller knows the stage did not write (the results, after a
    stage that only reads them: hashing them took seconds per stage)."""
    kept = {str(path) for path in keep}
    for key in [k for k in _MEMO if not k[0].startswith(str(_PACKAGE)) and k[0] not in kept]:
        del _MEMO[key]


def _file_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b"\0(missing)"
    except OSError:
        return b"\0(unreadable)"


class Digest:
    """Everything a stage's result depends on, fed in named parts."""

    def __init__(self, stage: str) -> None:
        self._hash = hashlib.sha256(f"stamp {FORMAT} {stage}\0".encode())

    def _part(self, role: str, name: str, value: bytes) -> None:
        self._hash.update(f"{role}\0{name}\0{len(value)}\0".encode("utf-8", "surrogateescape"))
        self._hash.update(value)

    def text(self, role: str, value: str) -> Digest:
        self._part(role, "", value.encode("utf-8", "surrogateescape"))
        return self

    def files(self, role: str, paths: Iterable[Path]) -> Digest:
        """Each file's name and bytes (a missing file counts as missing)."""
        for path in paths:
            self._part(role, str(path), _file_bytes(path))
        return self

    def tree(self, role: str, root: Path, *, content: bool = False) -> Digest:
        """A whole folder: its files' bytes (``content``) or their size, mtime_ns and inode."""
        self._part(role, str(root), tree_digest(root, content=content).encode())
        return self

    def code(self, *packages: str) -> Digest:
        """The stage's own sources: every file of these ``compare/`` subpackages (data files
        included: scenarios, targets, host programs, schemas) and the shared top-level
        modules, by content."""
        self.files("shared", sorted(_PACKAGE.glob("*.py")))
        for name in packages:
            self.tree(f"code:{name}", _PACKAGE / name, content=True)
        return self

    def settings(self) -> Digest:
        """Where every stage reads and writes, and the spec source: a moved folder is another
        input."""
        places = {
            "schemas": _paths.schemas_dir(),
            "cache": _paths.cache_dir(),
            "results": _paths.results_dir(),
            "tools": _paths.tools_dir(),
            "build": _paths.build_dir(),
            "site": _paths.site_dir(),
            "areas": _paths.areas_dir(),
        }
        for name, place in places.items():
            self.text(f"path:{name}", str(place))
        return self.text("spec", os.environ.get("MCP_COMPARE_SPEC", ""))

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def stamp_file(stage: str) -> Path:
    """``build/stamps/<stage>.json``."""
    return _paths.build_dir() / "stamps" / f"{stage}.json"


def _output_digest(path: Path) -> str:
    """One output as it is now: a folder by the fast path, a file by its bytes."""
    if path.is_dir():
        _MEMO.pop((str(path), "tree", False), None)  # outputs are always looked at afresh
        return "dir:" + tree_digest(path, content=False)
    return hashlib.sha256(_file_bytes(path)).hexdigest()


def outputs_digest(outputs: list[Path], each: dict[str, str] | None = None) -> str:
    """The outputs as they are now (each one's digest also put in ``each`` when given)."""
    digest = hashlib.sha256()
    for path in outputs:
        value = _output_digest(path)
        if each is not None:
            each[str(path)] = value
        digest.update(str(path).encode("utf-8", "surrogateescape") + b"\0")
        digest.update(value.encode() + b"\0")
    return digest.hexdigest()


def _read(stage: str) -> tuple[dict[str, object] | None, str]:
    """The stamp, or None and why not (``no stamp``, or the damage, naming the file)."""
    path = stamp_file(stage)
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return None, "no stamp"
    except (OSError, ValueError) as err:  # a torn or hand-edited stamp is rebuilt, not trusted
        return None, f"stamp {path} is damaged: {err}"
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("stage") != stage:
        return None, f"stamp {path} is damaged: not a format-{FORMAT} stamp of {stage}"
    return data, ""


def _changed(data: dict[str, object], listed: list[str]) -> str:
    """Which outputs changed, by name (the first, and how many more)."""
    recorded = data.get("output_digests")
    now: dict[str, str] = {}
    outputs_digest([Path(p) for p in listed], now)
    if not isinstance(recorded, dict):
        return "outputs changed since they were written"
    names = [p for p in listed if recorded.get(p) != now.get(p)]
    if not names:  # only the stamp's own summary disagrees: the stamp itself was edited
        return f"stamp {stamp_file(str(data.get('stage')))} is damaged: its digests disagree"
    more = f" and {len(names) - 1} more" if len(names) > 1 else ""
    return f"outputs changed since they were written: {_shown(names[0])}{more}"


def _shown(path: str) -> str:
    """A path relative to the working folder when inside it (``build/rows.json``)."""
    try:
        return Path(path).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path


def why_stale(stage: str, inputs: str) -> str | None:
    """None when ``stage`` may be skipped; else why it must run (no stamp, a damaged stamp,
    changed inputs, changed or missing outputs — the first of them named)."""
    data, why = _read(stage)
    if data is None:
        return why
    if data.get("inputs") != inputs:
        return "inputs changed"
    listed = data.get("outputs")
    if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
        return "no outputs recorded"
    if outputs_digest([Path(p) for p in listed]) != data.get("outputs_digest"):
        return _changed(data, listed)
    return None


def record(stage: str, inputs: str, outputs: list[Path]) -> None:
    """Write the stamp of a stage that just succeeded with these inputs and outputs."""
    each: dict[str, str] = {}
    value = {
        "format": FORMAT,
        "stage": stage,
        "inputs": inputs,
        "outputs": [str(p) for p in outputs],
        "outputs_digest": outputs_digest(outputs, each),
        "output_digests": each,
    }
    _atomic.write_json(stamp_file(stage), value)


def clear(stage: str) -> None:
    """Forget a stage's stamp (it failed, or ran with other settings): the next run runs it."""
    stamp_file(stage).unlink(missing_ok=True)
