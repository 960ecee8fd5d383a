"""Starting the scripted client: read the plan, start the server in its own process group,
wire up the recorder, watchdog and signals, play, end the server, and always leave a
``done.json`` saying why it stopped.

The server is ended the way the stdio transport describes (close its stdin, then SIGTERM,
then SIGKILL), each wait bounded, and its whole process group is killed at the end, so
nothing it started outlives the cell even when the harness never has to step in.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time

from .._main import END_SIGNALS, Signalled, _write_done, load_plan
from .._record import EOF_MARK, Reader, Transcript
from ._play import Client
from ._probes import snapshot

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any


def _signal_group(pgid: int, sig: int) -> None:
    try:  # noqa: SIM105 - contextlib would cost start-up time
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def stop_server(proc: subprocess.Popen[bytes], tx: Transcript, grace: float) -> None:
    """Close stdin, wait; SIGTERM, wait; SIGKILL the group. Notes how the server ended."""
    how = "self"
    closed = time.monotonic()
    try:
        if proc.stdin is not None:
            proc.stdin.close()
    except OSError:
        pass
    for sig, name in ((None, "self"), (signal.SIGTERM, "sigterm"), (signal.SIGKILL, "sigkill")):
        if sig is not None and proc.poll() is None:
            how = name
            _signal_group(proc.pid, sig)
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    # how long the server took to go once its stdin closed (signals included): the stdio
    # shutdown a client SHOULD follow, timed from the server's side
    after_s = round(time.monotonic() - closed, 3)
    left = _group_alive(proc.pid)
    if left:
        _signal_group(proc.pid, signal.SIGKILL)
    tx.note(
        event="server-exit", code=proc.returncode, ended_by=how, group_left=left, after_s=after_s
    )


def run(plan: dict[str, Any]) -> int:
    """Start the plan's server and play the plan against it; returns the exit code."""
    tx = Transcript(
        plan["transcript"],
        int(plan.get("max_lines", 20000)),
        int(plan.get("max_line_bytes", 1 << 20)),
    )
    tx.note(
        event="start",
        pid=os.getpid(),
        scenario=plan.get("scenario"),
        side="client",
        clock=round(tx.started, 6),
    )
    fixture = plan.get("fixture")
    if fixture:
        tx.note(event="fixture-before", files=snapshot(fixture))
    transport = plan.get("transport") or {}
    http = transport.get("kind") in ("http", "sse")
    upstream: Any = None
    if plan.get("upstream"):
        # A proxy that reaches its upstream over HTTP: our peer listens before it starts.
        from . import _upstream

        upstream = _upstream.start(plan["upstream"], tx, plan["upstream"]["stderr"])
        if isinstance(upstream, str):
            _write_done(plan["done"], {"reason": upstream, "steps": []})
            return 0
    if transport.get("external"):  # already running at its URL: not ours to start or end
        tx.note(event="server-external", url=transport.get("url"))
        return _play(plan, None, tx, upstream)
    stderr = open(plan["server_stderr"], "wb")  # noqa: SIM115 - handed to the server
    env = None
    if plan.get("listen_log"):  # where the loopback preload notes what the server asked for
        env = {**os.environ, "MCP_COMPARE_LISTEN_LOG": str(plan["listen_log"])}
    try:
        proc = subprocess.Popen(
            list(plan["server_argv"]),
            env=env,
            stdin=subprocess.PIPE,
            # over HTTP the proxy's stdout is only its log: it goes beside its stderr
            stdout=stderr if http else subprocess.PIPE,
            stderr=stderr,
            cwd=plan.get("server_cwd") or None,
            start_new_session=True,
        )
    except OSError as err:
        tx.note(event="server-start-failed", error=str(err))
        _write_done(plan["done"], {"reason": f"server did not start: {err}", "steps": []})
        if upstream is not None:
            _upstream_stop(upstream, tx)
        return 0
    finally:
        stderr.close()
    tx.note(event="server-started", pid=proc.pid, argv=plan["server_argv"])
    return _play(plan, proc, tx, upstream)


def _play(
    plan: dict[str, Any], proc: subprocess.Popen[bytes] | None, tx: Transcript, upstream: Any
) -> int:
    """Play the plan against the started server (``proc``), or against one already running
    at its URL (None), and end what we started; returns the exit code."""
    transport = plan.get("transport") or {}
    http = transport.get("kind") in ("http", "sse")
    fixture = plan.get("fixture")
    out: Any = None if proc is None else proc.stdin
    if http:
        from . import _http

        out = _http.Out(transport, tx, int(plan.get("max_line_bytes", 1 << 20)))
    client = Client(plan, out, tx)
    grace = float(plan.get("shutdown_s", 2))
    done_lock = threading.Lock()
    done_written: list[bool] = [False]

    def finish(reason: str) -> None:
        with done_lock:
            if done_written[0]:
                return
            done_written[0] = True
            fields: dict[str, Any] = {"reason": reason, "t": round(tx.now(), 6)}
            fields["steps"] = client.step_log
            if tx.dropped:
                fields["dropped_lines"] = tx.dropped
                tx.note(event="lines-not-stored", count=tx.dropped)
            tx.note(event="done", reason=reason)
            _write_done(plan["done"], fields)

    hard = float(plan.get("hard_deadline_s", 60))

    def watchdog() -> None:
        time.sleep(hard)
        if proc is not None:
            _signal_group(proc.pid, signal.SIGKILL)
        finish(f"client hard deadline of {hard:g} s reached")
        os._exit(3)

    def on_signal(signum: int, _frame: object) -> None:
        signal.signal(signum, signal.SIG_IGN)  # one interruption is enough
        raise Signalled(signal.Signals(signum).name)

    for name in END_SIGNALS:
        signal.signal(getattr(signal, name), on_signal)
    threading.Thread(target=watchdog, name="client-watchdog", daemon=True).start()
    try:
        failed = _connect(plan, proc, out, client, tx) if http else None
        if not http:
            assert proc is not None and proc.stdout is not None
            Reader(proc.stdout.fileno(), tx, client.inbox).start()
        reason = failed or client.play()
    except Signalled as sig:
        tx.note(event="signal", signal=sig.name)
        reason = f"client received {sig.name}"
    except Exception as err:  # the client must still say why it stopped
        reason = f"client error: {type(err).__name__}: {err}"
    for name in END_SIGNALS:  # from here on, ending the server must not be cut short
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    if http:
        out.close()
    if proc is not None:
        stop_server(proc, tx, grace)
    if upstream is not None:
        _upstream_stop(upstream, tx)
    if fixture:
        tx.note(event="fixture-after", files=snapshot(fixture))
    finish(reason)
    tx.note(event="exit")
    return 0


def _connect(
    plan: dict[str, Any],
    proc: subprocess.Popen[bytes] | None,
    out: Any,
    client: Client,
    tx: Transcript,
) -> str | None:
    """Over HTTP: wait until the proxy listens, then (legacy SSE) open its event stream; a
    thread queues the end of input when the proxy exits, as a closed stdout would. Returns
    why the exchange cannot start, or None. A server already running (``proc`` None) is
    the user's: where it listens is recorded, and probed at 127.0.0.1 all the same."""
    transport = plan["transport"]
    out.inbox = client.inbox
    timeout = float(transport.get("ready_timeout_s", plan.get("init_timeout_s", 10)))
    from ._http import LOOPBACK, listening_addresses, wait_listening

    port = int(transport["port"])
    ok = wait_listening(port, timeout, lambda: proc is None or proc.poll() is None)
    # Where it listens, from the kernel's table, before any request: only the loopback
    # address may be probed (a socket on every interface is recorded, and not used).
    bound = listening_addresses(port) if ok else None
    asked = _asked(plan)
    mine = proc is not None
    extra = {} if mine else {"external": True}
    tx.note(event="proxy-listening", port=port, listening=ok, url=transport["url"],
            bound=bound, asked=asked, **extra)  # fmt: skip
    if not ok:
        return f"the proxy is not listening on 127.0.0.1:{port} after {timeout:g} s"
    if mine and bound and any(address not in LOOPBACK for address in bound):
        # one we started must not be reachable from elsewhere while we probe it
        return f"it listens on {', '.join(bound)} at port {port}, not only 127.0.0.1: not probed"

    def ended(started: subprocess.Popen[bytes]) -> None:
        started.wait()
        client.inbox.put(EOF_MARK)

    if proc is not None:
        threading.Thread(target=ended, args=(proc,), name="client-proxy-exit", daemon=True).start()
    failed: str | None = out.connect(timeout)
    return failed


def _asked(plan: dict[str, Any]) -> list[Any] | None:
    """What the program asked to listen on, as the loopback preload recorded it (one JSON
    line per listen() call: the host it named, or null for none, which means every
    interface); None where no preload recorded anything."""
    path = plan.get("listen_log")
    if not path:
        return None
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            return [json.loads(line) for line in handle if line.strip()]
    except (OSError, ValueError):
        return None


def _upstream_stop(proc: Any, tx: Transcript) -> None:
    from . import _upstream

    _upstream.stop(proc, tx)


def main(argv: list[str] | None = None) -> int:
    plan = load_plan(
        argv,
        "client",
        ("revision", "server_argv", "first_modern"),
        {"transcript": "transcript.jsonl", "done": "done.json", "server_stderr": "server.stderr"},
    )
    return plan if isinstance(plan, int) else run(plan)
