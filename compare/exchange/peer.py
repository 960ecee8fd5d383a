"""The scripted MCP server a client launches: plays a plan, records every byte, judges nothing.

Run as ``python -m compare.exchange.peer --plan PLAN.json`` (or by file path, which is what the
harness does: ``python -I -S .../peer.py --plan …``). It is on the critical path of every cell,
so it imports only the standard library and starts about as fast as a bare interpreter; all
validation and judging happen later, in the harness, from the transcript this writes.

Wire: newline-delimited JSON-RPC on stdin/stdout. Every line read or written goes to
``transcript.jsonl`` as soon as it is seen (flushed per line, so a crash loses nothing already
recorded), exactly as it travelled. Every wait is bounded by the plan; a watchdog ends the
process at the plan's hard deadline whatever the client does.
"""

from __future__ import annotations

import binascii
import json
import os
import queue
import signal
import sys
import threading
import time

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: The first revision that carries protocol metadata per request instead of an ``initialize``
#: handshake; later dated revisions and ``draft`` sort after it.
FIRST_MODERN = "2026-07-28"


def is_modern(version: object) -> bool:
    """A dated revision from 2026-07-28 on (or draft); anything else, including junk, is not."""
    if not isinstance(version, str):
        return False
    dated = len(version) == 10 and version[:4].isdigit() and version[4] == "-"
    return (dated or version == "draft") and version >= FIRST_MODERN


META_VERSION = "io.modelcontextprotocol/protocolVersion"
_EOF = object()
#: Signals that end the peer cleanly: a client that stops its server (a refused version, a
#: shutdown) usually sends SIGTERM; a closed terminal sends SIGHUP; Ctrl-C sends SIGINT.
END_SIGNALS = ("SIGTERM", "SIGHUP", "SIGINT")


class Signalled(BaseException):
    """Raised in the main thread by the signal handler, so any wait is cut short at once."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


#: Methods whose 2026-07-28 results are cacheable (they require ttlMs and cacheScope).
CACHEABLE = frozenset(
    {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}
)


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
    ) -> int:
        """Record one wire line: ``data`` is its head when ``total`` exceeds the cap."""
        record: dict[str, Any] = {"dir": direction}
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
                self.inbox.put(_EOF)
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
        n = self.transcript.line("in", data, total=total, parse_error=error, keep=response)
        self.inbox.put((n, message, error, data.strip() == b""))


class Peer:
    """Serves MCP requests as they come and plays the plan's steps between them."""

    def __init__(self, plan: dict[str, Any], out: Any, transcript: Transcript) -> None:
        self.plan = plan
        self.out = out
        self.tx = transcript
        self.inbox: queue.Queue[Any] = queue.Queue(maxsize=1000)
        self.revision: str = plan["revision"]
        self.modern = is_modern(self.revision)
        self.next_id = 0
        self.responses: dict[Any, tuple[int, dict[str, Any]]] = {}
        #: event name -> transcript line numbers, so a wait stays cheap under a flood
        self.events: dict[str, list[int]] = {}
        self.consumed: dict[str, int] = {}
        self.closed = False
        self.parse_errors_answered = 0
        self.out_lock = threading.Lock()
        self.step_log: list[dict[str, Any]] = []

    # -- wire -----------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> int:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        data = text.encode("utf-8")
        with self.out_lock:
            n = self.tx.line("out", data, total=len(data))
            try:
                self.out.write(data + b"\n")
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.tx.note(event="write-failed", n=n)
                self.closed = True
        return n

    def request(self, method: str, params: dict[str, Any] | None) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.next_id

    # -- dispatch -------------------------------------------------------------------------
    def pump(self, deadline: float) -> bool:
        """Handle one inbound item, waiting until ``deadline``; False when nothing came."""
        remaining = deadline - time.monotonic()
        if remaining <= 0 or self.closed:
            return False
        try:
            item = self.inbox.get(timeout=remaining)
        except queue.Empty:
            return False
        if item is _EOF:
            self.closed = True
            self.tx.note(event="stdin-closed")
            return True
        n, message, error, blank = item
        if error is not None:
            if not blank and "cap" not in error and self.parse_errors_answered < 100:
                self.parse_errors_answered += 1
                self.send(_error(None, -32700, "Parse error"))
            return True
        for element in message if isinstance(message, list) and message else [message]:
            self.handle(n, element)
        return True

    def handle(self, n: int, msg: Any) -> None:
        if not isinstance(msg, dict):
            self.send(_error(None, -32600, "Invalid Request"))
            return
        method = msg.get("method")
        if isinstance(method, str):
            if "id" in msg:
                self.event(method, n)
                self.answer(n, msg, method)
            else:
                self.event(method, n)
            return
        if "id" in msg and ("result" in msg or "error" in msg):
            self.responses.setdefault(msg["id"], (n, msg))
            return
        if "id" in msg:
            self.send(_error(msg.get("id"), -32600, "Invalid Request"))

    def answer(self, n: int, msg: dict[str, Any], method: str) -> None:
        rid = msg["id"]
        params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
        assert isinstance(params, dict)
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        assert isinstance(meta, dict)
        modern_request = is_modern(meta.get(META_VERSION))
        if modern_request:
            self.event("modern-request", n)
        result: dict[str, Any] | None = None
        if method == "initialize":
            result = {
                "protocolVersion": self.plan["answer_revision"],
                "capabilities": self.plan.get("capabilities", {"tools": {}}),
                "serverInfo": self.plan.get(
                    "server_info", {"name": "mcp-compare-peer", "version": "0"}
                ),
            }
        elif method == "server/discover":
            if not self.modern:
                self.send(_error(rid, -32601, "Method not found"))
                return
            result = {
                "supportedVersions": [self.plan.get("wire_version", self.revision)],
                "capabilities": self.plan.get("capabilities", {"tools": {}}),
                "_meta": {"io.modelcontextprotocol/serverInfo": self.plan.get("server_info", {})},
            }
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": self.plan.get("tools", [])}
        elif method == "tools/call":
            result = self.tools_call(n, params, modern_request)
        elif method in ("resources/list", "prompts/list", "resources/templates/list"):
            key = (
                method.split("/")[0]
                if method != "resources/templates/list"
                else "resourceTemplates"
            )
            result = {key: []}
        if result is None:
            self.send(_error(rid, -32601, "Method not found"))
            return
        if modern_request:
            # 2026-07-28 results say what they are; discovery and lists are cacheable results
            result = {"resultType": "complete", **result}
            if method in CACHEABLE:
                result = {**result, "ttlMs": 0, "cacheScope": "private"}
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def tools_call(self, n: int, params: dict[str, Any], modern_request: bool) -> dict[str, Any]:
        mrtr = self.plan.get("mrtr")
        done = {"content": [{"type": "text", "text": "ok"}], "isError": False}
        if not mrtr:
            return done
        if not modern_request:
            self.event("tools/call:legacy", n)
            return done
        if "inputResponses" in params or "requestState" in params:
            self.event("tools/call:retry", n)
            return {"resultType": "complete", **done}
        self.event("tools/call:input-required", n)
        return {
            "resultType": "input_required",
            "inputRequests": {mrtr["key"]: {"method": "roots/list"}},
            "requestState": mrtr["request_state"],
        }

    def event(self, name: str, n: int) -> None:
        self.events.setdefault(name, []).append(n)

    # -- steps ----------------------------------------------------------------------------
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

    def play(self) -> str:
        default_timeout = float(self.plan.get("step_timeout_s", 10))
        for index, step in enumerate(self.plan.get("steps", [])):
            timeout = float(step.get("timeout_s", default_timeout))
            record: dict[str, Any] = {"index": index, "step": step}
            self.tx.note(event="step", index=index, step=step)
            if "await" in step:
                names = step["await"] if isinstance(step["await"], list) else [step["await"]]
                hit: list[int | None] = [None]

                def arrived(names: list[str] = names, hit: list[int | None] = hit) -> bool:
                    hit[0] = self.seen(names)
                    return hit[0] is not None

                ok = self.wait(arrived, timeout)
                record.update(outcome="ok" if ok else "timeout", evidence=hit[0])
            elif "request" in step:
                rid = self.request(step["request"], step.get("params"))
                ok = self.wait(lambda rid=rid: rid in self.responses, timeout)
                got = self.responses.get(rid)
                record.update(outcome="ok" if ok else "timeout", id=rid, evidence=got and got[0])
            elif "notify" in step:
                message: dict[str, Any] = {"jsonrpc": "2.0", "method": step["notify"]}
                if step.get("params") is not None:
                    message["params"] = step["params"]
                record.update(outcome="ok", evidence=self.send(message))
            elif "observe_s" in step:
                self.wait(lambda: False, float(step["observe_s"]))
                record.update(outcome="ok")
            elif "signal" in step:
                control = self.plan["control"]
                os.makedirs(control, exist_ok=True)
                with open(os.path.join(control, step["signal"]), "w", encoding="utf-8") as fh:
                    fh.write("1\n")
                record.update(outcome="ok")
            else:
                record.update(outcome="unknown-step")
            self.step_log.append(record)
            self.tx.note(
                event="step-done",
                index=index,
                label=step.get("label"),
                outcome=record["outcome"],
                id=record.get("id"),
                evidence=record.get("evidence"),
            )
            if record["outcome"] != "ok" and step.get("required"):
                what = step.get("await") or step.get("request")
                return f"timed out after {timeout:g} s waiting for {what} (step {index})"
            if self.closed:
                return f"stdin closed before step {index} completed"
        return "steps complete"


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _write_done(path: str, fields: dict[str, Any]) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(fields, fh, indent=2, sort_keys=True, default=str)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def run(plan: dict[str, Any]) -> int:
    """Play ``plan`` on this process's stdin/stdout; returns the exit code."""
    tx = Transcript(
        plan["transcript"],
        int(plan.get("max_lines", 20000)),
        int(plan.get("max_line_bytes", 1 << 20)),
    )
    tx.note(
        event="start", pid=os.getpid(), scenario=plan.get("scenario"), revision=plan["revision"]
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
            linger_until = time.monotonic() + float(plan.get("linger_s", 0.5))
            while not peer.closed and time.monotonic() < linger_until:
                peer.pump(linger_until)
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


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2 or args[0] != "--plan":
        sys.stderr.write("usage: peer --plan PLAN.json\n")
        return 2
    try:
        with open(args[1], encoding="utf-8") as fh:
            plan = json.load(fh)
    except (OSError, ValueError) as err:
        sys.stderr.write(f"peer: cannot read plan {args[1]}: {err}\n")
        return 2
    if not isinstance(plan, dict):
        sys.stderr.write(f"peer: plan {args[1]} is not a JSON object\n")
        return 2
    missing = [k for k in ("revision", "answer_revision", "control") if k not in plan]
    if missing:
        sys.stderr.write(f"peer: plan {args[1]} lacks {', '.join(missing)}\n")
        return 2
    # File names in the plan are relative to the plan's own folder, so a cell folder can be
    # moved (the harness runs in a staging folder and swaps it into place) without rewriting.
    base = os.path.dirname(os.path.abspath(args[1]))
    for key in ("transcript", "done"):
        plan[key] = os.path.join(
            base, plan.get(key, key + (".jsonl" if key == "transcript" else ".json"))
        )
    return run(plan)


if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)
