"""What both scripted ends (the peer playing a server, the client playing a host) do with
events: note each method as it arrives, let a step consume the first one it waits for, and
wait on a condition while the inbox keeps being pumped, never past a deadline.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any


class StepWaits:
    """Mixed into ``Peer`` and ``Client``; they set ``closed`` and provide ``pump``."""

    closed: bool

    def __init__(self) -> None:
        #: event name -> transcript line numbers, so a wait stays cheap under a flood
        self.events: dict[str, list[int]] = {}
        self.consumed: dict[str, int] = {}

    def pump(self, deadline: float) -> bool:  # pragma: no cover - each end has its own
        raise NotImplementedError

    def event(self, name: str, n: int) -> None:
        self.events.setdefault(name, []).append(n)

    def seen(self, names: list[str]) -> int | None:
        """The first unconsumed event among ``names``; consuming it so a step matches once."""
        for name in names:
            taken = self.consumed.get(name, 0)
            hits = self.events.get(name, [])
            if len(hits) > taken:
                self.consumed[name] = taken + 1
                return hits[taken]
        return None

    def wait(self, predicate: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if predicate():
                return True
            if self.closed:
                return bool(predicate())
            if not self.pump(deadline) and time.monotonic() >= deadline:
                return bool(predicate())
