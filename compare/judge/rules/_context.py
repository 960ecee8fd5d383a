"""What a rule may read about one cell: the transcript, the plan and the process facts.

Kept apart from the rules so every rule module imports one small thing, and so the era test
(which requests speak 2026-07-28 style) is asked in one place, with the boundary the pins give.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from compare.judge._transcript import Line, Transcript
from compare.models import first_modern

# One era test for the peer and the judge: the peer is standard-library only and importable
# without side effects, so the judge reads the very function the peer plays by.
from compare.peer import META_VERSION, is_modern


def transport_of(plan: dict[str, Any]) -> str:
    """How a cell's exchange travelled, from its plan: ``http`` or ``stdio``."""
    kind = (plan.get("transport") or {}).get("kind")
    return "http" if kind in ("http", "sse") else "stdio"


@dataclass
class Context:
    """Everything a rule may read about one cell."""

    tx: Transcript
    plan: dict[str, Any]
    revision: str
    known_revisions: list[str]
    process: dict[str, Any] | None = None
    #: The probes the check being judged reads (its ``probes: {step, places}``), if any.
    check_probes: dict[str, Any] | None = None
    #: The parameters of the check being judged (its ``with:``), checked by the loader.
    params: dict[str, Any] = field(default_factory=dict)
    #: What the client asked the cell's stand-in model, one entry a request, as the endpoint
    #: logged it (``model-requests.jsonl``); empty for a cell that served no model.
    model_requests: list[dict[str, Any]] = field(default_factory=list)
    #: The requests our host was asked to make (its plan's ``session.requests``), and what it
    #: recorded of each (``host-session.jsonl``); None when it wrote no record.
    host_requests: list[dict[str, Any]] = field(default_factory=list)
    host_session: list[dict[str, Any]] | None = None

    @cached_property
    def first_modern(self) -> str | None:
        """The era boundary of the known (pinned) revisions: the first without ``initialize``."""
        return first_modern(self.known_revisions)

    @property
    def workspace(self) -> str:
        return str(self.plan.get("workspace", ""))

    @property
    def transport(self) -> str:
        """How the exchange travelled: ``http`` (Streamable HTTP or HTTP+SSE) or ``stdio``."""
        return transport_of(self.plan)

    @property
    def initialize(self) -> Line | None:
        return next(
            (x for x in self.tx.incoming() if x.is_request and x.method == "initialize"), None
        )

    @property
    def init_params(self) -> dict[str, Any]:
        init = self.initialize
        return init.params if init else {}

    def capability(self, name: str) -> dict[str, Any] | None:
        """The client capability ``name`` as the client declared it (an object), else None.

        Read from ``initialize`` (every revision up to the era boundary), and where that does
        not declare it, from the first 2026-07-28 request whose ``_meta`` carries the client's
        capabilities (the per-request form that replaces the handshake). A value that is not
        an object (``"roots": true``) declares nothing a rule could read, so it is None too.
        """
        caps = self.init_params.get("capabilities")
        value = caps.get(name) if isinstance(caps, dict) else None
        if value is None:
            value = self._modern_caps().get(name)
        return value if isinstance(value, dict) else None

    def _modern_caps(self) -> dict[str, Any]:
        for line in self.tx.incoming():
            meta = line.params.get("_meta")
            if isinstance(meta, dict):
                caps = meta.get("io.modelcontextprotocol/clientCapabilities")
                if isinstance(caps, dict):
                    return caps
        return {}

    @property
    def negotiated(self) -> str:
        """The revision the exchange ran at: the peer's initialize answer, else the cell's."""
        if self.initialize is not None:
            return str(self.plan.get("answer_revision", self.revision))
        return self.revision

    def ended_at(self) -> int | None:
        """The note where the connection ended: stdin closed, a signal, or a failed write."""
        for n, note in self.tx.notes:
            if note.get("event") in ("stdin-closed", "signal", "write-failed"):
                return n
        return None

    def server_closed(self) -> int | None:
        """The scripted client's note that the server's output ended (a server cell), if any."""
        return next((n for n, note in self.tx.notes if note.get("event") == "server-closed"), None)

    def last_step_end(self) -> int:
        """The note that ended the cell's last step (0 when no step ended)."""
        return max((t.done_n for t in self.tx.steps.values() if t.done_n is not None), default=0)

    def sent_request(self, label: object) -> Line | None:
        """The request our end sent in step ``label`` (None when it sent none)."""
        trace = self.tx.steps.get(str(label))
        if trace is None or trace.id is None:
            return None
        ours = (x for x in self.tx.lines if x.dir == "out" and x.is_request)
        return next((x for x in ours if x.obj.get("id") == trace.id), None)

    def write_failed(self, n: int | None) -> bool:
        """Whether the peer's line ``n`` never reached the client (its write failed)."""
        return n is not None and any(
            note.get("event") == "write-failed" and note.get("n") == n for _, note in self.tx.notes
        )

    def modern_requests(self) -> list[Line]:
        out = []
        for line in self.tx.incoming():
            meta = line.params.get("_meta")
            if (
                line.is_request
                and isinstance(meta, dict)
                and is_modern(meta.get(META_VERSION), self.first_modern)
            ):
                out.append(line)
        return out

    def reply(self, label: str) -> tuple[str, Line | None]:
        """How the client answered the peer's request of step ``label``.

        ``silence`` only when the connection stayed open until the step's bound ran out with
        no answer (a request left hanging); ``closed`` when the connection ended first, which
        says nothing about whether an answer would have come.
        """
        trace = self.tx.steps.get(label)
        if trace is None or trace.id is None:
            sent = self._sent_after(trace.start_n if trace else None, trace)
            if sent is None:
                return "not-asked", None
            # A damaged line may hold null or a list, not a message: it carries no id.
            rid = sent.obj.get("id") if isinstance(sent.obj, dict) else None
        else:
            rid = trace.id
        line = self.tx.response_to(rid)
        if line is not None:
            return ("error" if "error" in line.obj else "result"), line
        closed = self.ended_at()
        bound = trace.done_n if trace is not None else None
        if closed is not None and (bound is None or closed < bound):
            return "closed", None
        if (self.process or {}).get("ended_by") == "self" and bound is None:
            return "closed", None
        return "silence", None

    def _sent_after(self, start: int | None, trace: Any) -> Line | None:
        if start is None or trace is None:
            return None
        method = trace.step.get("request")
        return next(
            (x for x in self.tx.lines if x.dir == "out" and x.n > start and x.method == method),
            None,
        )
