"""Whether a stored cell is still what the harness wrote: a cell is reused only when it is.

A results tree lives for months and is copied between machines, merged from CI shards and
opened in editors. A truncated transcript or a hand-edited verdict must never be read back as
a finding. So every ``verdict.json`` records what the cell wrote — each file's size and sha256
(``written``) — and is sealed with the sha256 of its own content (``seal``). Before a cell is
reused the harness checks both (sizes first, then the hashes); a cell that fails is reported
with the file named and played again, or only judged again when the verdict alone was
damaged and the files it recorded still match. The later stages check the same, so a damaged
cell is listed as unreadable rather than drawn.

A verdict written before this record existed (no ``seal`` and no ``written``) is not damaged,
only unproven: the harness judges its transcript again, quietly, which seals it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from compare import _atomic, _paths, _seal
from compare._errors import CompareError
from compare.judge._verdict import VerdictError, load_object

#: Keys a verdict carries in memory only (never written, so never sealed).
IN_MEMORY = frozenset({"cached", "replayed"})
VERDICT = "verdict.json"
#: The play's own facts, kept in a file of the cell as well, so that a damaged verdict over
#: intact files can be judged again without trusting what the damaged verdict says.
FACTS = "process.json"
PLAY_FACTS = ("started_at", "duration_s", "process")
#: What re-judging reads besides the facts.
_JUDGED = ("transcript.jsonl", "plan.json")
_SAY_LOCK = threading.Lock()


#: sha256 of files this process already hashed, by path and the stat fields any rewrite
#: changes (inode, size, modification and status-change times): one ``mcp-compare compare``
#: inspects every cell three or four times (run, then the stages that read the results).
_HASHED: dict[tuple[str, int, int, int, int], str] = {}


def _sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _HASHED.get(key)
    if known is not None:
        return known
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    if len(_HASHED) > 200_000:  # a bound, not a policy: a long-lived process starts over
        _HASHED.clear()
    _HASHED[key] = digest.hexdigest()
    return _HASHED[key]


def written_files(folder: Path) -> dict[str, dict[str, Any]]:
    """Every file of a cell folder but its verdict: relative path -> ``{bytes, sha256}``."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(folder).as_posix()
        if rel != VERDICT:
            found[rel] = {"bytes": path.stat().st_size, "sha256": _sha256(path)}
    return found


def seal_of(verdict: dict[str, Any]) -> str:
    """sha256 of the verdict as written, without its seal and in-memory keys."""
    return _seal.seal_of(verdict, IN_MEMORY)


def seal(verdict: dict[str, Any], folder: Path | None) -> dict[str, Any]:
    """Record the files of ``folder`` (none for a cell that wrote none) and seal ``verdict``."""
    verdict.pop("seal", None)
    verdict["written"] = written_files(folder) if folder is not None else {}
    verdict["seal"] = seal_of(verdict)
    return verdict


def shown(path: Path) -> str:
    """A path as a reader finds it: relative to the working folder when inside it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Damage:
    """One file of a cell that is not what was written, and how."""

    path: Path
    what: str

    def line(self, then: str) -> str:
        """The one line a run prints: ``<file> <what>; <then>``."""
        return f"{shown(self.path)} {self.what}; {then}"


@dataclass
class Stored:
    """A cell folder as found: its verdict (None when absent or unusable) and any damage.

    ``files_ok`` says whether the files the verdict recorded still match (False when that
    could not be known: no readable record)."""

    verdict: dict[str, Any] | None
    damage: list[Damage] = field(default_factory=list)
    files_ok: bool = False
    legacy: bool = False


def _file_damage(folder: Path, written: object) -> list[Damage]:
    if not isinstance(written, dict):
        return [Damage(folder / VERDICT, "has no usable record of the cell's files")]
    found: list[Damage] = []
    for rel, record in sorted(written.items()):
        path = folder / str(rel)
        ok = isinstance(record, dict) and isinstance(record.get("bytes"), int)
        if not ok or ".." in Path(str(rel)).parts or not isinstance(record.get("sha256"), str):
            found.append(Damage(folder / VERDICT, f"records {rel!r} in an unknown shape"))
            continue
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            found.append(Damage(path, "is missing (it was written with the cell)"))
            continue
        except OSError as err:
            found.append(Damage(path, f"cannot be read ({err.strerror})"))
            continue
        if size != record["bytes"]:
            found.append(
                Damage(
                    path, f"was changed after it was written ({size} bytes, not {record['bytes']})"
                )
            )
        elif _sha256(path) != record["sha256"]:
            found.append(Damage(path, "was changed after it was written (sha256 mismatch)"))
    return found


def inspect(folder: Path, *, max_bytes: int = 4 * 1024 * 1024) -> Stored:
    """Read ``folder/verdict.json`` and check it and the files it records; never raises."""
    path = folder / VERDICT
    try:
        before = path.stat()  # before the read: a verdict rewritten meanwhile is not vouched for
        value = load_object(path, max_bytes)
    except FileNotFoundError:
        return Stored(None)
    except VerdictError as err:
        why = str(err)
        return Stored(
            None, [Damage(path, f"is {why}" if why.startswith("larger") else f"is damaged ({why})")]
        )
    except OSError as err:
        return Stored(None, [Damage(path, f"is damaged ({err.strerror})")])
    if "seal" not in value and "written" not in value:
        return Stored(value, legacy=True)
    damage, files_ok = check(folder, value, before)
    return Stored(value, damage, files_ok=files_ok)


def check(folder: Path, value: dict[str, Any], before: os.stat_result) -> tuple[list[Damage], bool]:
    """The damage of a sealed verdict ``value`` read from ``folder`` (``before``: its file's
    stat, taken before it was read) and whether the files it records still match.

    A cell found intact before with every file's stat unchanged (:data:`_INTACT`) is intact
    without hashing anything again."""
    signed = _signature(folder, value.get("written"), before)
    signature = signed[0] if signed is not None else None
    if signature is not None and signature in _intact():
        _INTACT_SEEN.add(signature)
        return [], True
    damage = (
        []
        if value.get("seal") == seal_of(value)
        else [Damage(folder / VERDICT, "was changed after it was written (seal mismatch)")]
    )
    files = _file_damage(folder, value.get("written"))
    # A file changed within the file system's clock tick of its last write keeps its times:
    # only a cell whose files are all older than :data:`_SETTLED_NS` is vouched for (the
    # "racily clean" entries of git's index, handled the same way).
    settled = signed is not None and signed[1] < time.time_ns() - _SETTLED_NS
    if signed is not None and settled and not damage and not files:
        _INTACT_SEEN.add(signed[0])
        _INTACT_NEW.add(signed[0])
    return damage + files, not files


#: Cells found intact by an earlier command, each by :func:`_signature`: the folder, and the
#: inode, size, modification and status-change times of its verdict and of every file the
#: verdict records. Any rewrite, truncation, rename over or ``touch`` of one of them changes
#: a status-change time the writer cannot set back, so a signature seen again means nothing
#: was written since the seal and every sha256 matched. Without it a compare after ten
#: replayed cells hashed all 4,914 cells' files (about 40 MB) and re-sealed every verdict:
#: a second of its ten. Kept in :func:`intact_path`; a missing or unreadable file is an empty
#: record (everything is checked, as before).
_INTACT: set[str] | None = None
_INTACT_SEEN: set[str] = set()
_INTACT_NEW: set[str] = set()
_INTACT_FORMAT = 1
#: How old a cell's newest file must be before its signature is recorded.
_SETTLED_NS = 2_000_000_000
#: Past this many signatures the record keeps only the ones this process saw.
_INTACT_MAX = 50_000


def intact_path() -> Path:
    return _paths.yaml_cache_dir() / "intact-cells.json"


def _intact() -> set[str]:
    global _INTACT
    if _INTACT is None:
        try:
            stored = json.loads(intact_path().read_bytes())
            ok = isinstance(stored, dict) and stored.get("format") == _INTACT_FORMAT
            listed = stored.get("intact") if ok else None
            listed = listed if isinstance(listed, list) else []
            _INTACT = {s for s in listed if isinstance(s, str)}
        except (OSError, ValueError):
            _INTACT = set()
    return _INTACT


def _signature(folder: Path, written: object, before: os.stat_result) -> tuple[str, int] | None:
    """The cell's signature and the newest status-change time among its files (None when a
    recorded file cannot be stat'ed or the record has an unknown shape)."""
    if not isinstance(written, dict):
        return None
    base = str(folder)
    fields = [f"{_INTACT_FORMAT}", base, VERDICT, _stat_fields(before)]
    newest = before.st_ctime_ns
    for rel in sorted(written):
        if not isinstance(rel, str):
            return None
        try:
            st = os.stat(os.path.join(base, rel))
        except (OSError, ValueError):
            return None
        fields += [rel, _stat_fields(st)]
        newest = max(newest, st.st_ctime_ns, st.st_mtime_ns)
    text = "\0".join(fields)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest(), newest


def _stat_fields(st: os.stat_result) -> str:
    return f"{st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns}"


def save_intact() -> None:
    """Write the record of intact cells when this process found new ones (best effort: a
    folder that cannot be written costs the next command the hashing, nothing else)."""
    if not _INTACT_NEW:
        return
    known = _intact() | _INTACT_NEW
    if len(known) > _INTACT_MAX:
        known = set(_INTACT_SEEN)
    try:
        _atomic.write_text(
            intact_path(),
            json.dumps({"format": _INTACT_FORMAT, "intact": sorted(known)}, indent=0) + "\n",
        )
    except CompareError:
        return
    _INTACT_NEW.clear()
    _intact().update(known)


def say(line: str) -> None:
    """Print one damage line on stderr (cells run in threads: one line at a time)."""
    with _SAY_LOCK:
        print(line, file=sys.stderr, flush=True)


def play_facts(folder: Path) -> dict[str, Any]:
    """``process.json`` of a cell (empty when absent or unreadable: older cells have none)."""
    try:
        value = json.loads((folder / FACTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: value[k] for k in PLAY_FACTS if k in value} if isinstance(value, dict) else {}


class _Mode(Protocol):
    @property
    def force(self) -> bool: ...
    @property
    def rejudge(self) -> bool: ...


def _summary(damage: list[Damage], then: str) -> str:
    more = len(damage) - 1
    return damage[0].line(then) + (f" ({more} more damaged file{'s' * (more > 1)})" if more else "")


def next_step(
    stored: Stored, key: str, play_key: str, folder: Path, mode: _Mode
) -> tuple[str, str]:
    """What the harness does with a stored cell: ``cached`` (reuse it), ``rejudge`` (judge
    its transcript again), ``play`` (run the client again) or ``refuse`` (``--rejudge`` over
    damaged files: nothing it may do). Damage is reported here, one line on stderr; the second
    value is that damage in a sentence, for a refusal's reason."""
    verdict = stored.verdict
    judged = all((folder / name).is_file() for name in _JUDGED)
    same_play = verdict is not None and verdict.get("play_key") == play_key and judged
    if stored.damage:
        only_verdict = stored.files_ok and same_play and (folder / FACTS).is_file()
        if only_verdict:
            say(_summary(stored.damage, "judging the stored transcript again"))
            return "rejudge", ""
        if mode.rejudge:
            say(_summary(stored.damage, "not judged again (a plain `mcp-compare run` plays it)"))
            first = stored.damage[0]
            return "refuse", f"{shown(first.path)} {first.what}"
        if not mode.force:
            say(_summary(stored.damage, "playing the cell again"))
        return "play", ""
    if mode.rejudge:
        return "rejudge", ""
    if verdict is None or mode.force:
        return "play", ""
    if not stored.legacy and verdict.get("key") == key:
        return "cached", ""
    # Only the judge changed (or an unsealed older cell): the stored transcript still says
    # what the client did, so judge it again instead of running the client again.
    return ("rejudge" if same_play else "play"), ""
