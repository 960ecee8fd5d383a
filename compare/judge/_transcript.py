"""Reading a cell's transcript back: the one reader of ``transcript.jsonl``.

Each line's shape is ``peer/transcript.schema.json``.

:func:`read_records` is the file format: each line, in order, as the record the peer wrote or
as the reason it is not one. The judge (:func:`read_transcript`: wire lines parsed, the peer's
step notes) and the site's wire log both read through it, so they agree on what is damaged.

The peer writes raw lines only; parsing happens here so a malformed line becomes data (a
``parse_error``), and a transcript damaged after the fact (a torn last line, garbage) is read
as far as it goes and the damage reported, never raised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: What a JSON reader may raise on a hostile line: besides malformed text and bad UTF-8,
#: nesting deeper than Python's recursion limit (a client may send 1 MiB of ``[``).
BAD_JSON = (UnicodeDecodeError, ValueError, RecursionError)

#: A transcript line longer than this is not parsed. The peer caps each wire line's raw text
#: at the plan's ``max_line_bytes`` (1 MiB), so only a damaged file comes near it.
MAX_RECORD_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Record:
    """One line of ``transcript.jsonl``: the record, or why the line is not one."""

    number: int  # the line's number in the file, from 1
    data: dict[str, Any] | None  # a record with an int ``n``, a number ``t`` and a str ``dir``
    problem: str = ""  # why ``data`` is None
    text: str = ""  # the line as text (bad UTF-8 replaced), to show a damaged line as it is


@dataclass
class Records:
    """The first lines of a transcript, read; ``total`` counts every line of the file."""

    records: list[Record] = field(default_factory=list)
    total: int = 0
    #: Why the file could not be read at all (None when it was).
    missing: str | None = None


def _record(number: int, blob: bytes) -> Record:
    text = ""
    try:
        if len(blob) > MAX_RECORD_BYTES:
            raise ValueError(f"{len(blob)} bytes, over the {MAX_RECORD_BYTES}-byte cap")
        text = blob.decode("utf-8")
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not an object")
        n, t, direction = data.get("n"), data.get("t"), data.get("dir")
        if (
            not isinstance(n, int)
            or isinstance(n, bool)
            or not isinstance(t, int | float)
            or isinstance(t, bool)
            or not isinstance(direction, str)
        ):
            raise ValueError("lacks an integer n, a number t or a string dir")
        if isinstance(t, int) and not -1e308 < t < 1e308:  # JSON allows it, a float cannot
            raise ValueError("t is too large for a time")
    except BAD_JSON as err:
        shown = text or blob[:MAX_RECORD_BYTES].decode("utf-8", "replace")
        return Record(number, None, str(err), shown)
    return Record(number, data)


def read_records(path: Path, keep: int | None = None) -> Records:
    """The lines of ``path``: the first ``keep`` (all when None) read, every one counted."""
    out = Records()
    try:
        with path.open("rb") as handle:
            for number, line in enumerate(handle, start=1):
                out.total += 1
                if keep is None or len(out.records) < keep:
                    out.records.append(_record(number, line.rstrip(b"\r\n")))
    except OSError as err:
        out.missing = err.strerror or str(err)
    return out


@dataclass
class Line:
    """One recorded wire line; ``obj`` is the parsed JSON or None."""

    n: int
    t: float
    dir: str
    raw: str | None
    obj: Any = None
    parse_error: str | None = None
    truncated: bool = False
    #: A line of ours broken on purpose (a ``raw`` step): no revision describes it, so the
    #: hygiene rules leave what answers it to the scenario's own checks.
    fault: bool = False
    #: In a proxy cell: the leg the line travelled (``host`` | ``upstream``) and which
    #: upstream connection (1 for the first); None in every other cell.
    leg: str | None = None
    conn: int | None = None
    #: A client handed our URL: which of the peer's HTTP sessions the line belongs to (1 for
    #: the first; ``_url_client.merge_sessions``); None in every other cell.
    session: int | None = None

    @property
    def method(self) -> str | None:
        m = self.obj.get("method") if isinstance(self.obj, dict) else None
        return m if isinstance(m, str) else None

    @property
    def is_request(self) -> bool:
        return isinstance(self.obj, dict) and self.method is not None and "id" in self.obj

    @property
    def is_response(self) -> bool:
        o = self.obj
        return isinstance(o, dict) and self.method is None and ("result" in o or "error" in o)

    @property
    def params(self) -> dict[str, Any]:
        p = self.obj.get("params") if isinstance(self.obj, dict) else None
        return p if isinstance(p, dict) else {}


@dataclass
class StepTrace:
    index: int
    step: dict[str, Any]
    start_n: int
    outcome: str | None = None
    id: Any = None
    evidence: int | None = None
    #: The note that ended the step (None while it never ended: the peer stopped mid-step).
    done_n: int | None = None


@dataclass
class Transcript:
    lines: list[Line] = field(default_factory=list)
    notes: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    steps: dict[str, StepTrace] = field(default_factory=dict)
    damage: list[str] = field(default_factory=list)

    def by_n(self, n: int | None) -> Line | None:
        return next((line for line in self.lines if line.n == n), None) if n else None

    def incoming(self) -> list[Line]:
        return [line for line in self.lines if line.dir == "in"]

    def response_to(self, rid: Any, after: int = 0) -> Line | None:
        for line in self.lines:
            if not (line.dir == "in" and line.n > after and line.is_response):
                continue
            got = line.obj.get("id")
            if type(got) is type(rid) and got == rid:  # 1 and "1" are different ids
                return line
        return None


def _unbatch(line: Line) -> list[Line]:
    if isinstance(line.obj, list):
        return [
            Line(
                line.n,
                line.t,
                line.dir,
                line.raw,
                item,
                leg=line.leg,
                conn=line.conn,
                session=line.session,
                fault=line.fault,
            )
            for item in line.obj
        ]
    return [line]


def read_transcript(path: Path) -> Transcript:
    """Parse ``transcript.jsonl``; a missing file is an empty transcript with damage noted."""
    tx = Transcript()
    scan = read_records(path)
    if scan.missing is not None:
        tx.damage.append(f"no transcript: {scan.missing}")
        return tx
    for record in scan.records:
        rec = record.data
        if rec is None:
            tx.damage.append(f"transcript line {record.number} is not a record")
            continue
        n, t, direction = int(rec["n"]), float(rec["t"]), str(rec["dir"])
        raw = rec.get("raw")
        if direction == "note":
            try:
                note = json.loads(raw) if isinstance(raw, str) else {}
            except BAD_JSON:
                note = {}
            if isinstance(note, dict):
                if isinstance(rec.get("leg"), str):  # a proxy cell: whose note it is
                    note = {**note, "leg": rec["leg"], "conn": rec.get("conn")}
                tx.notes.append((n, note))
                _track_step(tx, n, note)
            continue
        line = Line(n, t, direction, raw if isinstance(raw, str) else None)
        if isinstance(rec.get("leg"), str):
            line.leg = rec["leg"]
            line.conn = rec["conn"] if isinstance(rec.get("conn"), int) else None
        if isinstance(rec.get("session"), int):
            line.session = rec["session"]
        line.truncated = bool(rec.get("truncated"))
        line.fault = rec.get("fault") is True
        line.parse_error = rec.get("parse_error")
        if line.raw is not None and line.parse_error is None:
            try:
                line.obj = json.loads(line.raw)
            except BAD_JSON as err:
                line.parse_error = str(err)
        tx.lines.extend(_unbatch(line))
    return tx


def _track_step(tx: Transcript, n: int, note: dict[str, Any]) -> None:
    step = note.get("step")
    if note.get("event") == "step" and isinstance(step, dict):
        label = step.get("label") or f"#{note.get('index')}"
        index = note.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = -1  # a hand-edited note; the step is still tracked by its label
        tx.steps[str(label)] = StepTrace(index, step, n)
    elif note.get("event") == "step-done":
        label = note.get("label") or f"#{note.get('index')}"
        trace = tx.steps.get(str(label))
        if trace is not None:
            trace.outcome = note.get("outcome")
            trace.done_n = n
            trace.id = note.get("id")
            ev = note.get("evidence")
            trace.evidence = ev if isinstance(ev, int) else None
