"""The peer's record of the wire: every line read or written, as it travelled, in order.

``transcript.jsonl`` gets each line as soon as it is seen (flushed per line, so a crash loses
nothing already recorded). The reader thread keeps at most the size cap of any one line in
memory, so a flood or an endless line costs a bounded amount.
"""

from __future__ import annotations

import binascii
import json
import os
import queue
import threading
import time

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: Queued by the reader when stdin ends.
EOF_MARK = object()


class Transcript:
    """Append-only JSONL record of the wire, shared by the reader thread and the main loop."""

    def __init__(self, path: str, max_lines: int, max_line_bytes: int) -> None:
        self._fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - lives as long as the peer
        self._lock = threading.Lock()
        self._n = 0
        self._start = time.monotonic()
        self.max_lines = max_lines
        self.max_line_bytes = max_line_bytes
        self.dropped = 0

    def now(self) -> float:
        return time.monotonic() - self._start

    @property
    def started(self) -> float:
        """The monotonic clock at the start: ``t`` of every record is measured from it, so two
        recorders on one machine (a proxy cell's two legs) can be merged by time."""
        return self._start

    def _write(self, record: dict[str, Any], keep: bool = False) -> int:
        """Store one record; past ``max_lines`` only notes, our own lines and responses are
        kept (up to twice the cap), so a flood cannot push the exchange's evidence out."""
        with self._lock:
            full = self._n >= self.max_lines
            if record["dir"] != "note" and full and not (keep and self._n < 2 * self.max_lines):
                self.dropped += 1
                return 0
            self._n += 1
            record = {"n": self._n, "t": round(self.now(), 6), **record}
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._fh.flush()
            return self._n

    def line(
        self,
        direction: str,
        data: bytes,
        *,
        total: int,
        parse_error: str | None = None,
        keep: bool = False,
        fault: bool = False,
    ) -> int:
        """Record one wire line: ``data`` is its head when ``total`` exceeds the cap. A
        ``fault`` is a line of ours broken on purpose (a scenario's ``raw`` step), so the judge
        can tell what answers it from what answers a message."""
        record: dict[str, Any] = {"dir": direction}
        if fault:
            record["fault"] = True
        truncated = total > len(data)
        text = _decode(data, allow_cut=truncated)
        if text is None:
            record["raw_b64"] = binascii.b2a_base64(data, newline=False).decode("ascii")
        else:
            record["raw"] = text
        if truncated:
            record["truncated"] = True
            record["bytes"] = total
        if parse_error is not None:
            record["parse_error"] = parse_error
        return self._write(record, keep or direction == "out")

    def note(self, **fields: Any) -> int:
        return self._write({"dir": "note", "raw": json.dumps(fields, ensure_ascii=False)})

    def close(self) -> None:
        with self._lock:
            self._fh.close()


def _decode(data: bytes, *, allow_cut: bool) -> str | None:
    """UTF-8 text of a line; a truncated head may end inside a character, so trim up to 3 bytes."""
    for cut in range(4 if allow_cut else 1):
        try:
            return (data[: len(data) - cut] if cut else data).decode("utf-8")
        except UnicodeDecodeError:
            continue
    return None


class Reader(threading.Thread):
    """Reads stdin in chunks, records each line, and queues parsed messages for the main loop.

    A line over the cap keeps only its head in memory (the rest is counted, not stored), so a
    10 MB line or an endless one costs at most the cap.
    """

    def __init__(self, fd: int, transcript: Transcript, inbox: queue.Queue[Any]) -> None:
        super().__init__(name="peer-reader", daemon=True)
        self.fd = fd
        self.transcript = transcript
        self.inbox = inbox

    def run(self) -> None:
        cap = self.transcript.max_line_bytes
        head = bytearray()
        total = 0
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                if total:
                    self._emit(bytes(head), total, partial=True)
                self.inbox.put(EOF_MARK)
                return
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                room = cap - len(head)
                if room > 0:
                    head += piece[:room]
                total += len(piece)
                if nl < 0:
                    break
                self._emit(bytes(head), total, partial=False)
                head = bytearray()
                total = 0
                start = nl + 1

    def _emit(self, data: bytes, total: int, *, partial: bool) -> None:
        emit(self.transcript, self.inbox, data, total, partial=partial)


def emit(
    transcript: Transcript, inbox: queue.Queue[Any], data: bytes, total: int, *, partial: bool
) -> int:
    """Record one inbound message body (``data``: its head when ``total`` exceeds the cap) and
    queue it for the main loop as ``(n, message, error, blank)``; returns its line number.
    Shared by the stdio reader and the HTTP transports, so a body that came in a POST or an
    SSE event is a transcript line exactly like a line read from a pipe."""
    message: Any = None
    error: str | None = None
    if total > len(data):
        error = f"line of {total} bytes exceeds the {len(data)}-byte cap; not parsed"
    elif not data.strip():
        error = "blank line"
    else:
        try:
            message = json.loads(data)
        except (UnicodeDecodeError, ValueError) as err:
            error = f"{type(err).__name__}: {err}"
    if partial:
        error = (error + "; " if error else "") + "no newline before end of input"
    response = isinstance(message, dict) and "method" not in message
    n = transcript.line("in", data, total=total, parse_error=error, keep=response)
    inbox.put((n, message, error, data.strip() == b""))
    return n
