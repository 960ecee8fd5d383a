"""Starting the peer: read the plan, wire up the recorder, the reader, the watchdog and the
signal handlers, play, and always leave a ``done.json`` saying why it stopped.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

from ._era import CELL_ENV
from ._record import Reader, Transcript
from ._serve import Peer

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: Signals that end the peer cleanly: a client that stops its server (a refused version, a
#: shutdown) usually sends SIGTERM; a closed terminal sends SIGHUP; Ctrl-C sends SIGINT.
END_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")


class Signalled(BaseException):
    """Raised in the main thread by the signal handler, so any wait is cut short at once."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _write_done(path: str, fields: dict[str, Any]) -> None:
    """Write the account atomically. The ending signals wait until it is in place: a client
    that signals its server while the account is being written (mcp-agent does, as it gives
    up on a session) must not leave it half-way, as a temporary file beside no account."""
    ending = {getattr(signal, name) for name in END_SIGNALS}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, ending)
    try:
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(fields, fh, indent=2, sort_keys=True, default=str)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def run(plan: dict[str, Any]) -> int:
    """Play ``plan`` on this process's stdin/stdout; returns the exit code."""
    tx = Transcript(
        plan["transcript"],
        int(plan.get("max_lines", 20000)),
        int(plan.get("max_line_bytes", 1 << 20)),
    )
    tx.note(
        event="start",
        pid=os.getpid(),
        scenario=plan.get("scenario"),
        revision=plan["revision"],
        clock=round(tx.started, 6),
        # what the client that started us handed on: the folder, and whether the variable the
        # harness set in the client's own environment reached us (a client may pass a subset)
        cwd=os.getcwd(),
        client_env=CELL_ENV in os.environ,
    )
    peer = Peer(plan, sys.stdout.buffer, tx)
    done_lock = threading.Lock()
    done_written: list[bool] = [False]

    def finish(reason: str) -> None:
        with done_lock:
            if done_written[0]:
                return
            done_written[0] = True
            fields = {"reason": reason, "t": round(tx.now(), 6), "steps": peer.step_log}
            if tx.dropped:
                fields["dropped_lines"] = tx.dropped
                tx.note(event="lines-not-stored", count=tx.dropped)
            tx.note(event="done", reason=reason)
            _write_done(plan["done"], fields)

    hard = float(plan.get("hard_deadline_s", 120))

    def watchdog() -> None:
        time.sleep(hard)
        finish(f"peer hard deadline of {hard:g} s reached")
        os._exit(3)

    # A signal during finish() must not cut the done.json write short: it is only remembered
    # then, and acted on (by exiting) once finish() is over.
    # Only the first signal interrupts; a second one (a client that insists) is just remembered.
    state: dict[str, Any] = {"finishing": False, "raised": False, "pending": None}

    def on_signal(signum: int, _frame: object) -> None:
        name = signal.Signals(signum).name
        if state["finishing"] or state["raised"]:
            state["pending"] = state["pending"] or name
            return
        state["raised"] = True
        raise Signalled(name)

    for name in END_SIGNALS:
        signal.signal(getattr(signal, name), on_signal)

    def finish_safely(reason: str) -> None:
        state["finishing"] = True
        try:
            finish(reason)
        finally:
            state["finishing"] = False

    threading.Thread(target=watchdog, name="peer-watchdog", daemon=True).start()
    Reader(sys.stdin.fileno(), tx, peer.inbox).start()
    signalled: str | None = None
    try:
        try:
            reason = peer.play()
        except Signalled as sig:
            signalled = sig.name
            tx.note(event="signal", signal=sig.name)
            reason = f"peer received {sig.name} (the client ended its server)"
        except Exception as err:  # the peer must still say why it stopped
            reason = f"peer error: {type(err).__name__}: {err}"
        finish_safely(reason)
        if signalled is None and state["pending"] is None:
            after_steps(peer, float(plan.get("linger_s", 0)), plan.get("serve_until"))
    except Signalled as sig:  # after the steps: done.json is written, just leave
        signalled = sig.name
        tx.note(event="signal", signal=sig.name)
    if state["pending"] is not None:
        tx.note(event="signal", signal=state["pending"])
    tx.note(event="exit")
    try:  # noqa: SIM105 - contextlib would cost start-up time
        sys.stdout.buffer.close()
    except OSError:
        pass
    return 0


def after_steps(peer: Peer, linger_s: float, serve_until: dict[str, Any] | None = None) -> str:
    """What the peer does once its steps are done; returns how that ended (also noted).

    By default nothing is waited for: what the client has already sent is answered and the
    peer closes, so the client sees its server go as soon as the cell's outcome is decided.
    A target's ``serve_until`` (a client that cannot end while its own start-up requests are
    pending) keeps serving until that method has arrived, at any point of the cell, or its
    bound passes. A window (``linger_s``, which a scenario declares only with a
    ``linger_why``, or a proxy's upstream, which must outlive its steps until the proxy is
    ended) keeps serving until it passes or the client closes first.
    """
    if serve_until and linger_s <= 0:
        method = str(serve_until["await"])
        until = time.monotonic() + float(serve_until["timeout_s"])
        while not peer.closed and not peer.events.get(method) and time.monotonic() < until:
            peer.pump(until)
        how = "closed" if peer.closed else ("awaited" if peer.events.get(method) else "bound")
        peer.tx.note(event="after-steps", serve_until=method, ended=how)
        return how
    if linger_s <= 0:
        while not peer.closed and not peer.inbox.empty():
            peer.pump(time.monotonic() + 0.001)
        how = "closed" if peer.closed else "drained"
    else:
        until = time.monotonic() + linger_s
        while not peer.closed and time.monotonic() < until:
            peer.pump(until)
        how = "closed" if peer.closed else "window"
    peer.tx.note(event="after-steps", linger_s=linger_s, ended=how)
    return how


def load_plan(
    argv: list[str] | None, who: str, required: tuple[str, ...], files: dict[str, str]
) -> dict[str, Any] | int:
    """The plan named by ``--plan`` (shared by the peer and the scripted client), or the exit
    code after saying on stderr why it cannot be used. Every plan carries ``first_modern``, the
    era boundary the harness read from the pins (null: no pinned revision is past the
    handshake); there is no default for a plan without it. File names in the plan (``files``:
    key -> default) are relative to the plan's own folder, so a cell folder can be moved (the
    harness runs in a staging folder and swaps it into place) without rewriting them."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] != "--plan":
        sys.stderr.write(f"usage: {who} --plan PLAN.json\n")
        return 2
    try:
        with open(args[1], encoding="utf-8") as fh:
            plan = json.load(fh)
    except (OSError, ValueError) as err:
        sys.stderr.write(f"{who}: cannot read plan {args[1]}: {err}\n")
        return 2
    if not isinstance(plan, dict):
        sys.stderr.write(f"{who}: plan {args[1]} is not a JSON object\n")
        return 2
    missing = [k for k in required if k not in plan]
    if missing:
        sys.stderr.write(f"{who}: plan {args[1]} lacks {', '.join(missing)}\n")
        return 2
    boundary = plan["first_modern"]
    if boundary is not None and not isinstance(boundary, str):
        sys.stderr.write(f"{who}: plan {args[1]}: first_modern is not a revision name or null\n")
        return 2
    base = os.path.dirname(os.path.abspath(args[1]))
    for key, name in files.items():
        plan[key] = os.path.join(base, plan.get(key, name))
    return plan


def main(argv: list[str] | None = None) -> int:
    plan = load_plan(
        argv,
        "peer",
        ("revision", "answer_revision", "control", "first_modern"),
        {"transcript": "transcript.jsonl", "done": "done.json"},
    )
    if isinstance(plan, int):
        return plan
    if plan.get("per_process_files"):
        # Behind a proxy the peer may be started more than once (a proxy that opens an
        # upstream session per client session or per request): each start gets its own
        # transcript and done file, named by its pid, instead of writing into one another's.
        for key in ("transcript", "done"):
            plan[key] = plan[key].replace("{pid}", str(os.getpid()))
    if (plan.get("transport") or {}).get("kind") in ("http", "sse"):
        # Behind a proxy that connects over HTTP: serve it on 127.0.0.1, a peer per session.
        from ._http_main import run_http

        return run_http(plan)
    return run(plan)
