"""The peer behind a proxy that connects over HTTP: one server process, one peer per session.

A stdio proxy that opens several upstream sessions starts the peer several times, and each
start records into its own file. Over HTTP the proxy opens sessions on one server instead
(mcp-remote opens a probe session before the real one), so each session gets what a start
gets: its own ``Peer`` playing the plan's steps in its own thread, its own transcript and
done file (``<transcript>-sN.jsonl``, merged by the harness as its own connection). The
process's own transcript keeps what belongs to no session (listening, refused requests).
A signal ends every session (each done file says so); otherwise the process leaves when
every session that was opened has played its steps and lingered. Serving a client handed our
URL (``serve_after_done``), it writes its account then but keeps listening until the harness
ends it, so a client that ends by itself later still reaches it (its DELETE).
"""

from __future__ import annotations

import os
import signal
import threading
import time

from ._http_server import Out, Upstream
from ._main import END_SIGNALS, Signalled, _write_done, after_steps
from ._record import Transcript
from ._serve import Peer

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any


class Session:
    """One session's peer, transcript and done file; ``finish`` writes the file once."""

    def __init__(self, plan: dict[str, Any], upstream: Upstream, sid: str, index: int) -> None:
        stem = plan["transcript"].removesuffix(".jsonl")
        self.done_path = plan["done"].removesuffix(".done.json") + f"-s{index}.done.json"
        self.tx = Transcript(
            f"{stem}-s{index}.jsonl",
            int(plan.get("max_lines", 20000)),
            int(plan.get("max_line_bytes", 1 << 20)),
        )
        self.tx.note(
            event="start", pid=os.getpid(), scenario=plan.get("scenario"),
            revision=plan["revision"], session=sid, clock=round(self.tx.started, 6),
        )  # fmt: skip
        self.peer = Peer(plan, Out(upstream, sid), self.tx)
        self.inbox = self.peer.inbox
        self.lock = threading.Lock()
        self.written = False
        self.thread = threading.Thread(
            target=self.play, args=(plan,), name=f"peer-session-{index}", daemon=True
        )

    @property
    def closed(self) -> bool:
        return self.peer.closed

    @closed.setter
    def closed(self, value: bool) -> None:
        self.peer.closed = value

    def play(self, plan: dict[str, Any]) -> None:
        try:
            reason = self.peer.play()
        except Exception as err:  # the session must still say why it stopped
            reason = f"peer error: {type(err).__name__}: {err}"
        self.finish(reason)
        after_steps(self.peer, float(plan.get("linger_s", 0)), plan.get("serve_until"))

    def finish(self, reason: str) -> None:
        with self.lock:
            if self.written:
                return
            self.written = True
        fields = {"reason": reason, "t": round(self.tx.now(), 6), "steps": self.peer.step_log}
        self.tx.note(event="done", reason=reason)
        _write_done(self.done_path, fields)


def run_http(plan: dict[str, Any]) -> int:
    """Serve ``plan`` over HTTP until signalled, every session done, or the hard deadline."""
    tx = Transcript(plan["transcript"], int(plan.get("max_lines", 20000)),
                    int(plan.get("max_line_bytes", 1 << 20)))  # fmt: skip
    tx.note(event="start", pid=os.getpid(), scenario=plan.get("scenario"),
            revision=plan["revision"], clock=round(tx.started, 6), role="http-server")  # fmt: skip
    sessions: list[Session] = []

    def open_session(sid: str) -> Session:
        session = Session(plan, upstream, sid, len(sessions) + 1)
        session.thread.start()  # alive before it is counted: the main loop ends on none alive
        sessions.append(session)
        tx.note(event="session-opened", session=sid, index=len(sessions))
        return session

    upstream = Upstream(plan["transport"], tx, open_session)

    def on_signal(signum: int, _frame: object) -> None:
        signal.signal(signum, signal.SIG_IGN)  # one interruption is enough
        raise Signalled(signal.Signals(signum).name)

    for name in END_SIGNALS:
        signal.signal(getattr(signal, name), on_signal)
    hard = time.monotonic() + float(plan.get("hard_deadline_s", 120))
    reason = "every session done"
    written = False
    try:
        try:
            upstream.start()
        except OSError as err:
            reason = f"peer cannot listen on 127.0.0.1:{plan['transport'].get('port')}: {err}"
        else:
            while time.monotonic() < hard:
                if sessions and not any(s.thread.is_alive() for s in sessions):
                    break
                time.sleep(0.1)
            else:
                reason = "peer hard deadline reached"
            if plan.get("serve_after_done") and reason == "every session done":
                # a client handed our URL: the account is due now (the harness ends such a
                # client once it exists), but a client that ends by itself may still send
                # its DELETE, so the server keeps listening until the harness ends it
                _write_done(plan["done"], {"reason": reason, "sessions": len(sessions),
                                           "steps": []})  # fmt: skip
                written = True
                tx.note(event="serving-after-done")
                while time.monotonic() < hard:
                    time.sleep(0.1)
    except Signalled as sig:
        if not written:
            # serving a client handed our URL, the harness ends us (the client never started us)
            how = ("the harness ended it after the client" if plan.get("serve_after_done")
                   else "the client ended its server")  # fmt: skip
            reason = f"peer received {sig.name} ({how})"
        for session in [*sessions, None]:
            (session.tx if session else tx).note(event="signal", signal=sig.name)
    for name in END_SIGNALS:
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    for session in sessions:
        session.finish(reason)
    upstream.close()
    for session in sessions:
        session.tx.note(event="exit")
    tx.note(event="done", reason=reason)
    if not written:
        _write_done(plan["done"], {"reason": reason, "sessions": len(sessions), "steps": []})
    tx.note(event="exit")
    return 0
