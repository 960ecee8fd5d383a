"""The peer proper: answers MCP requests as they come and plays the plan's steps between them.

Every wait is bounded by the plan; judging nothing, it only records what it did (events by
transcript line, the step log) for the harness to judge later. A plan's ``hold_replies``
keeps the reply to a request of those methods back until a ``release`` step (or the end of
the steps), so steps can act while the other end waits: a server request sent inside a
``tools/call``, before its answer, the way real servers ask for roots.

A server-to-client request is data, whatever its method: a ``request`` step sends the method
and params it names, as a plain request or, with ``embed: KEY`` at a revision from the plan's
era boundary on, inside the ``InputRequiredResult`` answering the client's next ``tools/call``
(2026-07-28 ``basic/patterns/mrtr.mdx``: ``inputRequests`` maps a key of ours to the request
object, the retry carries ``inputResponses`` under the same key). The plan's ``mrtr`` does
the same for every first-leg call, with the ``input_requests`` map the harness wrote.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time

from ._catalogue import Catalogue
from ._era import META_VERSION, is_modern
from ._record import EOF_MARK, Transcript
from ._steps import StepWaits

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: Methods whose 2026-07-28 results are cacheable (they require ttlMs and cacheScope).
CACHEABLE = frozenset(
    {"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"}
)


class Peer(StepWaits):
    """Serves MCP requests as they come and plays the plan's steps between them."""

    def __init__(self, plan: dict[str, Any], out: Any, transcript: Transcript) -> None:
        super().__init__()
        self.plan = plan
        self.out = out
        self.tx = transcript
        self.inbox: queue.Queue[Any] = queue.Queue(maxsize=1000)
        self.revision: str = plan["revision"]
        #: The era boundary the harness derived from the pins (``load_plan`` requires it).
        self.first_modern: str | None = plan["first_modern"]
        self.modern = is_modern(self.revision, self.first_modern)
        self.next_id = 0
        self.responses: dict[Any, tuple[int, dict[str, Any]]] = {}
        self.closed = False
        #: A long line the other end stopped reading is still being written: nothing more
        #: can be (``send_long``), and the steps end.
        self.write_blocked = False
        self.parse_errors_answered = 0
        self.out_lock = threading.Lock()
        self.step_log: list[dict[str, Any]] = []
        #: Methods whose replies wait for a ``release`` step while the steps run (the plan's
        #: ``hold_replies``): so a step can act while the other end's request is pending.
        self.hold = frozenset(plan.get("hold_replies") or ())
        self.held: list[tuple[str, dict[str, Any]]] = []
        self.holding = bool(self.hold)
        #: What an ``embed`` step asks inside the next first-leg tools/call: (inputRequests,
        #: requestState); taken by that call, so one step embeds once.
        self.embedding: tuple[dict[str, Any], str] | None = None
        #: True while an ``embed`` step runs: its retry is answered (and noted) as a retry.
        self.asking = False
        #: While an ``embed`` step with ``rounds`` runs: what each retry before the last is
        #: asked again, and how many more times.
        self.again: dict[str, Any] = {}
        self.rounds_left = 0
        #: What the peer serves (tools, resources, prompts, completions, their pages).
        self.catalogue = Catalogue(plan.get("serves") or {}, plan.get("tools"))
        #: The params of the last request of each method received, for a ``notify`` step's
        #: ``token_of`` (the progressToken that request asked progress under).
        self.last_params: dict[str, dict[str, Any]] = {}

    # -- wire -----------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> int:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        data = text.encode("utf-8")
        if self.write_blocked:  # stdout is full and nobody reads it: a write would hang us
            what = {k: message[k] for k in ("id", "method") if k in message}
            return self.tx.note(
                event="not-written", why="a long line is still being written", **what
            )
        with self.out_lock:
            n = self.tx.line("out", data, total=len(data))
            try:
                self.out.write(data + b"\n")
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.tx.note(event="write-failed", n=n)
                self.closed = True
        return n

    def send_long(self, message: dict[str, Any], timeout: float) -> bool:
        """Write a long message (a line longer than a pipe holds) from a thread, straight to
        the file descriptor: a client that stops reading leaves the write waiting, and the
        peer must not wait with it. False (noted, and the peer stops writing) when it is
        still unwritten at ``timeout``."""
        fileno = getattr(self.out, "fileno", None)
        if fileno is None:  # not a pipe (an HTTP stream): an ordinary send
            self.send(message)
            return True
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        with self.out_lock:
            n = self.tx.line("out", data, total=len(data))
            try:
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.closed = True
                return False
        done = threading.Event()
        line = data + b"\n"

        def write() -> None:
            view = memoryview(line)
            try:
                while view:
                    view = view[os.write(fileno(), view) :]
            except OSError:
                pass
            done.set()

        threading.Thread(target=write, name="peer-long-line", daemon=True).start()
        if done.wait(timeout):
            return True
        self.write_blocked = True
        why = "the other end stopped reading: the rest of the line waits in the pipe"
        self.tx.note(event="write-blocked", n=n, bytes=len(line), why=why)
        return False

    def request(self, method: str, params: dict[str, Any] | None, rid: Any = None) -> Any:
        """Send a request; its id is the next number, or ``rid`` where the step names one (a
        string id, which the base protocol allows as much as a number)."""
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return rid

    def write_raw(self, text: str) -> int:
        """Write one line that is not a JSON-RPC message to stdout, on purpose (a server's
        banner); noted, not recorded as a line of ours, since it is no message."""
        data = text.encode("utf-8")
        with self.out_lock:
            try:
                self.out.write(data + b"\n")
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.closed = True
        return self.tx.note(event="raw-written", text=text, bytes=len(data) + 1)

    def chatter(self, size: int, timeout: float) -> str:
        """Write ``size`` bytes of log lines to stderr, as a chatty server does: ``ok`` once
        written, ``blocked`` when the writes still wait at ``timeout`` (the client reads
        none of its server's stderr, and the pipe is full)."""
        line = b"mcp-compare peer: a log line on stderr, as servers write them\n"
        data = line * (size // len(line) + 1)
        done = threading.Event()

        def write() -> None:
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(2, view) :]
            except OSError:
                pass
            done.set()

        threading.Thread(target=write, name="peer-stderr", daemon=True).start()
        ok = done.wait(timeout)
        self.tx.note(event="stderr-written", bytes=len(data), complete=ok)
        return "ok" if ok else "blocked"

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
        if item is EOF_MARK:
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
                params = msg.get("params")
                self.last_params[method] = params if isinstance(params, dict) else {}
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
        modern_request = is_modern(meta.get(META_VERSION), self.first_modern)
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
                self.reply(method, _error(rid, -32601, "Method not found"))
                return
            result = {
                "supportedVersions": [self.plan.get("wire_version", self.revision)],
                "capabilities": self.plan.get("capabilities", {"tools": {}}),
                "_meta": {"io.modelcontextprotocol/serverInfo": self.plan.get("server_info", {})},
            }
        elif method == "ping":
            result = {}
        elif method == "logging/setLevel" and "logging" in self.plan.get("capabilities", {}):
            result = {}  # a server that declares logging takes the level (recorded in the line)
        elif self.catalogue.handles(method):
            result, error = self.catalogue.answer(method, params)
            if error is not None:
                self.reply(method, {"jsonrpc": "2.0", "id": rid, "error": error})
                return
            if method == "tools/call":
                assert result is not None
                result = self.tools_call(n, params, modern_request, result)
        if result is None:
            self.reply(method, _error(rid, -32601, "Method not found"))
            return
        if modern_request:
            # 2026-07-28 results say what they are; discovery and lists are cacheable results
            result = {"resultType": "complete", **result}
            if method in CACHEABLE:
                result = {**result, "ttlMs": 0, "cacheScope": "private"}
        self.reply(method, {"jsonrpc": "2.0", "id": rid, "result": result})

    def reply(self, method: str, message: dict[str, Any]) -> None:
        """Send the reply to a ``method`` request, or keep it for a ``release`` step."""
        if self.holding and method in self.hold:
            self.held.append((method, message))
            self.tx.note(event="reply-held", method=method, id=message.get("id"))
            return
        self.send(message)

    def release(self, method: str) -> int | None:
        """Send the oldest held reply to a ``method`` request; its line, or None if none."""
        for index, (held_method, message) in enumerate(self.held):
            if held_method == method:
                del self.held[index]
                return self.send(message)
        return None

    def release_all(self) -> None:
        """Once the steps are over no reply stays held: each is sent, oldest first."""
        self.holding = False
        while self.held:
            method, message = self.held.pop(0)
            n = self.send(message)
            self.tx.note(event="reply-released", method=method, id=message.get("id"), n=n)

    def tools_call(
        self, n: int, params: dict[str, Any], modern_request: bool, done: dict[str, Any]
    ) -> dict[str, Any]:
        """A tools/call's result: the tool's own (``done``, from the catalogue), or at
        2026-07-28 an InputRequiredResult when the plan's ``mrtr`` or an armed ``embed`` step
        has input to ask for. A retry (``inputResponses`` or ``requestState`` present) is
        noted per key it answers, for the step that waits."""
        mrtr = self.plan.get("mrtr")
        if not mrtr and not self.asking:
            return done
        if not modern_request:
            self.event("tools/call:legacy", n)
            return done
        if "inputResponses" in params or "requestState" in params:
            self.event("tools/call:retry", n)
            answered = params.get("inputResponses")
            keys = answered if isinstance(answered, dict) else {}
            for key in keys:
                self.event(f"input-response:{key}", n)
            if self.asking and self.rounds_left > 0 and any(k in self.again for k in keys):
                # Asked again (mrtr.mdx: a server may answer every attempt so): a fresh state.
                self.rounds_left -= 1
                state = _request_state()
                self.tx.note(event="embed-armed", again=True, key=next(iter(self.again)),
                             request_state=state)  # fmt: skip
                return {"resultType": "input_required", "inputRequests": self.again,
                        "requestState": state}  # fmt: skip
            return {"resultType": "complete", **done}
        self.event("tools/call:input-required", n)
        if self.embedding is not None:
            asked, state = self.embedding
            self.embedding = None
        else:
            assert mrtr is not None
            asked, state = mrtr["input_requests"], mrtr["request_state"]
        return {"resultType": "input_required", "inputRequests": asked, "requestState": state}

    def embed(self, step: dict[str, Any], timeout: float, record: dict[str, Any]) -> None:
        """An ``embed`` step: arm the next first-leg tools/call to ask for the step's request
        under its key, then wait (bounded) for the retry that answers that key."""
        key = str(step["embed"])
        asked: dict[str, Any] = {"method": step["request"]}
        if step.get("params") is not None:
            asked["params"] = step["params"]
        state = _request_state()
        rounds = int(step.get("rounds", 1))
        self.embedding = ({key: asked}, state)
        self.again, self.rounds_left = {key: asked}, rounds - 1
        self.asking = True
        self.tx.note(event="embed-armed", index=record["index"], key=key, request_state=state)
        hit: list[int | None] = [None]
        answers = 0

        def answered() -> bool:
            # every retry answering the key counts; the step is done at the last round's
            nonlocal answers
            got = self.seen([f"input-response:{key}"])
            if got is not None:
                hit[0], answers = got, answers + 1
            return answers >= rounds

        try:
            ok = self.wait(answered, timeout)
        finally:  # whether or not a call took it: no later call asks for it
            self.embedding, self.asking = None, False
            self.again, self.rounds_left = {}, 0
        record.update(
            outcome="ok" if ok else "timeout", embedded=True, key=key, request_state=state,
            evidence=hit[0],
        )  # fmt: skip
        if rounds > 1:
            record["rounds_answered"] = answers

    def embeds(self, step: dict[str, Any]) -> bool:
        """Whether a ``request`` step is played embedded: it names a key, the cell's revision
        is from the era boundary on, and the client did not open with ``initialize`` (a
        session of the handshake era has no InputRequiredResult; it is asked plainly)."""
        return "embed" in step and self.modern and "initialize" not in self.events

    def notify_with_token(self, step: dict[str, Any], record: dict[str, Any]) -> None:
        """A ``notify`` step with ``token_of: METHOD``: the progressToken of the last METHOD
        request received (its ``params._meta``) goes into the notification's params, over the
        step's own. The token is the other end's to choose, so it cannot be written in the
        scenario; a request that carried none (or none received) asked for no progress, so
        nothing is sent and the step reads ``no-token``."""
        method = str(step["token_of"])
        params = self.last_params.get(method)
        meta = params.get("_meta") if params is not None else None
        token = meta.get("progressToken") if isinstance(meta, dict) else None
        if token is None:
            why = "no request of that method came" if params is None else "it carried none"
            self.tx.note(event="no-token", method=method, why=why)
            record.update(outcome="no-token", evidence=None)
            return
        merged = {**(step.get("params") or {}), "progressToken": token}
        message = {"jsonrpc": "2.0", "method": step["notify"], "params": merged}
        record.update(outcome="ok", evidence=self.send(message))

    # -- steps ----------------------------------------------------------------------------

    def play(self) -> str:
        """Play the steps; a reply still held when they end (or stop) is sent then."""
        try:
            return self.play_steps()
        finally:
            self.release_all()

    def play_steps(self) -> str:
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
            elif "request" in step and self.embeds(step):
                self.embed(step, timeout, record)
            elif "request" in step:
                params = step.get("params")
                if step.get("pad_bytes"):  # a long line: one request padded in its _meta
                    pad = "x" * int(step["pad_bytes"])
                    params = {**(params or {}), "_meta": {"dev.mcp-compare/pad": pad}}
                    self.next_id += 1
                    rid = self.next_id
                    long = {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "method": step["request"],
                        "params": params,
                    }
                    if not self.send_long(long, timeout):
                        record.update(outcome="blocked", id=rid, evidence=None)
                        self.step_log.append(record)
                        self.tx.note(event="step-done", index=index, label=step.get("label"),
                                     outcome="blocked", id=rid, evidence=None)  # fmt: skip
                        return f"the other end stopped reading (step {index})"
                else:
                    rid = self.request(step["request"], params, step.get("id"))
                ok = self.wait(lambda rid=rid: rid in self.responses, timeout)
                got = self.responses.get(rid)
                record.update(outcome="ok" if ok else "timeout", id=rid, evidence=got and got[0])
                if "embed" in step:  # asked plainly: a handshake-era cell or session
                    record["embedded"] = False
            elif "notify" in step and "token_of" in step:
                self.notify_with_token(step, record)
            elif "notify" in step:
                message: dict[str, Any] = {"jsonrpc": "2.0", "method": step["notify"]}
                if step.get("params") is not None:
                    message["params"] = step["params"]
                record.update(outcome="ok", evidence=self.send(message))
            elif "observe_s" in step:
                self.wait(lambda: False, float(step["observe_s"]))
                record.update(outcome="ok")
            elif "raw" in step:
                record.update(outcome="ok", evidence=self.write_raw(str(step["raw"])))
            elif "stderr_bytes" in step:
                record.update(outcome=self.chatter(int(step["stderr_bytes"]), timeout))
            elif "release" in step:
                # replies held so far are due; one that comes later is held in its turn
                sent = self.release(step["release"])
                record.update(outcome="ok" if sent else "nothing-held", evidence=sent)
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


def _request_state() -> str:
    """A fresh requestState: opaque to the client; '+', '/' and '=' catch a client that
    re-encodes it."""
    return f"mcpc1.{os.urandom(9).hex()}+/="


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
