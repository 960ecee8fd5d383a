"""``verdict.json`` read back: one typed record and one rule for a verdict that cannot be used.

The harness writes a cell's verdict (shape: ``verdict.schema.json`` beside this module); the
run's cache, the merge, the rows and the site read it back. Each used to read it with rules of
its own — the rows listed as broken a cell whose check had no id or an unknown verdict, while
the site drew the same cell and dropped the check — so a page could show what the rows had
refused. Now every reader goes through :func:`read_verdict` (or :func:`load_object` and
:func:`parse_verdict` when, like the integrity check, it must see the raw object first), and a
verdict either parses into a :class:`Verdict` or raises :class:`VerdictError` saying why.

What the rule refuses: a file over :data:`MAX_VERDICT_BYTES`, not UTF-8 JSON, not a format-1
object; a missing or empty ``target``, ``target_version``, ``scenario``, ``revision`` or
``verdict``; a verdict word not in :data:`VERDICTS`; ``checks`` that are not a list of objects
each with a string ``id`` and a known ``verdict``; ``plays`` that are not a list of play records
(``play`` a positive integer, a known ``verdict``, a string ``transcript``). Everything else a
verdict holds stays in ``raw`` for the pages that show it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compare.judge._verdicts import VERDICTS

#: A verdict file larger than this is not read: a flooding client must not stall later stages.
MAX_VERDICT_BYTES = 4 * 1024 * 1024
#: Where the published shape lives (tests validate real verdicts against it).
SCHEMA_PATH = Path(__file__).resolve().parent / "verdict.schema.json"
#: What deciding the current version needs, then what placing a cell in the matrix needs.
_IDENTITY = ("target", "target_version")
_PLACE = ("scenario", "revision", "verdict")


class VerdictError(ValueError):
    """Why a ``verdict.json`` cannot be used (phrased for a reader, without the path)."""


@dataclass(frozen=True)
class Check:
    """One judged check as written; ``outcome`` is None for a check whose plays differed."""

    id: str
    verdict: str
    outcome: str | None
    title: str
    expected: str
    observed: str
    reason: str
    evidence: tuple[int, ...]
    refs: tuple[Any, ...]
    #: The check object as written (the rows' evidence reads keys such as ``outcomes``).
    raw: dict[str, Any] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Play:
    """One play of a cell played several times (``compare.play._plays.record``)."""

    number: int
    verdict: str
    transcript: str
    reason: str


@dataclass(frozen=True)
class Verdict:
    """One cell's ``verdict.json``: what every later stage may rely on, typed."""

    target: str
    target_version: str
    target_name: str
    variant: str
    scenario: str
    revision: str
    verdict: str
    reason: str
    key: str | None
    checks: tuple[Check, ...]
    #: Empty for a cell played once; play 1 first otherwise.
    plays: tuple[Play, ...]
    #: The checks whose outcome differed between plays (an ``unstable`` cell).
    differed: tuple[str, ...]
    #: The whole object as written: client facts, probes, files, process, seal.
    raw: dict[str, Any] = field(repr=False, compare=False)

    @property
    def play_count(self) -> int:
        """0 for a not-run cell, 1 for a cell played once, else the number of plays."""
        if self.verdict == "not-run":
            return 0
        return len(self.plays) or 1


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _word(value: object, where: str) -> str:
    if not isinstance(value, str) or value not in VERDICTS:
        raise VerdictError(f"{where}unknown verdict {value!r}")
    return value


def _check(raw: object) -> Check:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise VerdictError("a check without an id")
    outcome = raw.get("outcome")
    return Check(
        id=raw["id"],
        verdict=_word(raw.get("verdict"), f"check {raw['id']}: "),
        outcome=outcome if isinstance(outcome, str) else None,
        title=_text(raw.get("title")),
        expected=_text(raw.get("expected")),
        observed=_text(raw.get("observed")),
        reason=_text(raw.get("reason")),
        evidence=tuple(e for e in raw.get("evidence") or [] if isinstance(e, int)),
        refs=tuple(raw.get("refs") or []),
        raw=raw,
    )


def _play(raw: object, index: int) -> Play:
    number = raw.get("play") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not isinstance(number, int) or isinstance(number, bool):
        raise VerdictError(f"plays entry {index} is not a play record")
    if number < 1 or not isinstance(raw.get("transcript"), str):
        raise VerdictError(f"play {number}: no play number or transcript")
    return Play(
        number=number,
        verdict=_word(raw.get("verdict"), f"play {number}: "),
        transcript=raw["transcript"],
        reason=_text(raw.get("reason")),
    )


def parse_verdict(value: object) -> Verdict:
    """The typed verdict of an object read from ``verdict.json``; see the module docstring."""
    if not isinstance(value, dict) or value.get("format") != 1:
        raise VerdictError("not a format-1 verdict object")
    for name in _IDENTITY + _PLACE:
        if not isinstance(value.get(name), str) or not value[name]:
            raise VerdictError(f"missing or non-string {name!r}")
    verdict = _word(value["verdict"], "")
    checks = value.get("checks")
    if checks is not None and not isinstance(checks, list):
        raise VerdictError("checks is not a list")
    plays = value.get("plays")
    if plays is not None and not isinstance(plays, list):
        raise VerdictError("plays is not a list")
    key = value.get("key")
    return Verdict(
        target=value["target"],
        target_version=value["target_version"],
        target_name=_text(value.get("target_name")),
        variant=_text(value.get("variant")),
        scenario=value["scenario"],
        revision=value["revision"],
        verdict=verdict,
        reason=_text(value.get("reason")),
        key=key if isinstance(key, str) else None,
        checks=tuple(_check(c) for c in checks or []),
        plays=tuple(_play(p, i) for i, p in enumerate(plays or [], start=1)),
        differed=tuple(d for d in value.get("differed") or [] if isinstance(d, str)),
        raw=value,
    )


def load_object(path: Path, max_bytes: int = MAX_VERDICT_BYTES) -> dict[str, Any]:
    """The JSON object of a verdict file, before its content is checked (the integrity check
    seals exactly this); raises :class:`VerdictError`, or ``OSError`` (FileNotFoundError
    included) when the file cannot be opened."""
    if path.stat().st_size > max_bytes:
        raise VerdictError(f"larger than {max_bytes} bytes")
    try:
        value = json.loads(path.read_bytes().decode("utf-8"))
    except ValueError as err:  # UnicodeDecodeError is a ValueError
        raise VerdictError(f"not readable JSON: {err}") from err
    if not isinstance(value, dict):
        raise VerdictError("not a JSON object")
    return value


def read_verdict(path: Path) -> Verdict:
    """Read and check one ``verdict.json``; raises :class:`VerdictError` (or ``OSError``)."""
    return parse_verdict(load_object(path))
