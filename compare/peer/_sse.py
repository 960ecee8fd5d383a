"""Server-sent events and HTTP/1.1 chunks, as both of our HTTP ends write and read them.

Kept in one small module so the upstream end (``_http_server``) and the host end
(``client/_http``) frame a message the same way: one JSON-RPC message is the ``data`` of one
event, written on one line (our JSON has no raw newlines), so the bytes recorded for a message
are the bytes of its ``data`` field.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


def event(data: bytes, name: str | None = "message", event_id: str | None = None) -> bytes:
    """One SSE event; a multi-line ``data`` becomes one ``data:`` field per line."""
    out = b""
    if event_id is not None:
        out += b"id: " + event_id.encode("utf-8") + b"\n"
    if name is not None:
        out += b"event: " + name.encode("utf-8") + b"\n"
    for line in data.split(b"\n") or [b""]:
        out += b"data: " + line + b"\n"
    return out + b"\n"


def chunk(data: bytes) -> bytes:
    """One HTTP/1.1 chunk (an empty ``data`` is the last chunk)."""
    return f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n"


class Parser:
    """Reads an event stream line by line and yields ``(event, data, id)`` per event.

    Follows the event-stream rules a client needs: a blank line dispatches, ``data`` lines are
    joined with a newline, a line starting with ``:`` is a comment, an unnamed event is
    ``message``, and one space after the colon is dropped.
    """

    def __init__(self) -> None:
        self.name: str | None = None
        self.data: list[bytes] = []
        self.event_id: str | None = None

    def feed_line(self, line: bytes) -> tuple[str, bytes, str | None] | None:
        line = line.rstrip(b"\r\n")
        if not line:
            if not self.data and self.name is None:
                return None
            out = (self.name or "message", b"\n".join(self.data), self.event_id)
            self.name, self.data = None, []
            return out
        if line.startswith(b":"):
            return None
        field, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if field == b"data":
            self.data.append(value)
        elif field == b"event":
            self.name = value.decode("utf-8", "replace")
        elif field == b"id":
            self.event_id = value.decode("utf-8", "replace")
        return None

    def events(self, stream: Any) -> Iterator[tuple[str, bytes, str | None]]:
        """Every event of a readable byte stream (``readline``), until it ends."""
        while True:
            try:
                line = stream.readline()
            except (OSError, ValueError):
                return
            if not line:
                return
            got = self.feed_line(line)
            if got is not None:
                yield got
