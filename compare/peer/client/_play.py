"""The scripted client proper: the handshake, answers to the server's requests, and the steps.

Every wait is bounded by the plan. Nothing is judged here: the client only records what it
did (step notes in the transcript, the step log in ``done.json``) for the harness to judge.
"""

from __future__ import annotations

import json
import queue
import threading
import time

from .._record import EOF_MARK, Transcript
from .._steps import StepWaits
from . import _features, _lists, _modern
from ._fs import run_fs, run_race
from ._http_probe import run_http
from ._probes import run_probes

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any


#: Who we say we are when the plan does not say (initialize requires a name and a version).
CLIENT_INFO = {"name": "mcp-compare-client", "version": "0.1.0"}


class Client(StepWaits):
    """Talks to one server over its stdin/stdout and plays the plan's steps."""

    def __init__(self, plan: dict[str, Any], out: Any, transcript: Transcript) -> None:
        super().__init__()
        self.plan = plan
        self.out = out
        self.tx = transcript
        self.inbox: queue.Queue[Any] = queue.Queue(maxsize=1000)
        #: What the client declares and answers (the host plan's shape: ``_features``).
        self.features: dict[str, Any] = dict(plan.get("features") or {})
        self.capabilities: dict[str, Any] = _features.declared(self.features)
        self.roots: list[Any] = _features.initial_roots(self.features)
        self.next_id = 0
        self.responses: dict[Any, tuple[int, dict[str, Any]]] = {}
        self.tools: list[dict[str, Any]] = []
        #: Each labelled request's answer (the whole message), for ``params_from`` to read.
        self.answers: dict[str, Any] = {}
        self.closed = False
        self.out_lock = threading.Lock()
        self.step_log: list[dict[str, Any]] = []
        #: Past the handshake era (2026-07-28 on): see ``_modern``.
        self.modern = _modern.plays_modern(plan)
        #: How roots/list is answered since the last ``set_roots`` step (its ``answer``):
        #: None answers with the roots; else an error, a result as written, or silence.
        self.roots_answer: dict[str, Any] | None = None
        #: Whether a tools/call has been sent yet: the first one may have a longer bound.
        self.called_tool = False
        #: Probe operations whose ``setup`` calls have been made (once per cell each).
        self.probe_setups: set[str] = set()

    # -- wire -----------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> int:
        data = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        with self.out_lock:
            n = self.tx.line("out", data, total=len(data))
            try:
                self.out.write(data + b"\n")
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.tx.note(event="write-failed", n=n)
                self.closed = True
        return n

    def request(
        self, method: str, params: dict[str, Any] | None, meta: dict[str, Any] | None = None
    ) -> int:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if self.modern:
            params = _modern.with_meta(params, self.plan, meta)
        elif meta:
            params = _with_step_meta(params, meta)
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.next_id

    def call(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float,
        meta: dict[str, Any] | None = None,
        wait: bool = True,
    ) -> tuple[int, Any]:
        """Send a request and wait (bounded) for its response: (id, (line, message) or None).

        The first tools/call of a cell waits at least the plan's ``first_call_s`` when it has
        one: a server that launches a browser on its first tool call answers that one late.
        With ``wait`` false the request is only sent: its response is recorded whenever it
        comes, while later steps go on (a request to cancel, or one left open on purpose).
        """
        if method == "tools/call":
            if not self.called_tool and self.plan.get("first_call_s"):
                timeout = max(timeout, float(self.plan["first_call_s"]))
            self.called_tool = True
        rid = self.request(method, params, meta)
        if wait:
            self.wait(lambda: rid in self.responses, timeout)
        return rid, self.responses.get(rid)

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
            self.tx.note(event="server-closed")
            return True
        n, message, error, _blank = item
        if error is not None:
            return True  # recorded with its parse error; a client owes no answer to garbage
        for element in message if isinstance(message, list) and message else [message]:
            self.handle(n, element)
        return True

    def handle(self, n: int, msg: Any) -> None:
        if not isinstance(msg, dict):
            return
        method = msg.get("method")
        if isinstance(method, str):
            self.event(method, n)
            if "id" in msg and not self.modern:  # a modern client writes no responses
                self.answer(msg["id"], method)
            return
        if "id" in msg and ("result" in msg or "error" in msg):
            self.responses.setdefault(msg["id"], (n, msg))

    def answer(self, rid: Any, method: str) -> None:
        if method == "roots/list" and self.roots_answer is not None and "roots" in self.features:
            self.answer_badly(rid, self.roots_answer)
            return
        result = _features.answer(self.features, self.roots, method)
        if result is None:
            error = {"code": -32601, "message": "Method not found"}
            self.send({"jsonrpc": "2.0", "id": rid, "error": error})
        else:
            self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def answer_badly(self, rid: Any, how: dict[str, Any]) -> None:
        """A ``set_roots`` step's ``answer``: a JSON-RPC error, a result written as is (a
        malformed one on purpose), or no answer at all (noted, so the judge can tell a
        withheld answer from a lost one)."""
        if how.get("silent"):
            self.tx.note(event="left-unanswered", id=rid, method="roots/list")
        elif "error" in how:
            self.send({"jsonrpc": "2.0", "id": rid, "error": how["error"]})
        else:
            self.send({"jsonrpc": "2.0", "id": rid, "result": how.get("result")})

    # -- the exchange ---------------------------------------------------------------------
    def initialize(self) -> str | None:
        """initialize, then notifications/initialized; returns why it failed, or None."""
        timeout = float(self.plan.get("init_timeout_s", 10))
        params = {
            "protocolVersion": self.plan.get("propose_version")
            or self.plan.get("wire_version", self.plan["revision"]),
            "capabilities": self.capabilities,
            "clientInfo": self.plan.get("client_info", CLIENT_INFO),
        }
        self.tx.note(event="step", index=-1, step={"request": "initialize", "label": "initialize"})
        rid, got = self.call("initialize", params, timeout)
        outcome = "ok" if got is not None and "result" in got[1] else "timeout"
        if got is not None and outcome != "ok":
            outcome = "error"
        self.tx.note(
            event="step-done", index=-1, label="initialize", outcome=outcome, id=rid,
            evidence=got and got[0],
        )  # fmt: skip
        if outcome != "ok":
            if outcome == "error":
                return "the server answered initialize with an error"
            if self.closed:
                return "the server closed its stdout before answering initialize"
            return f"no answer to initialize within {timeout:g} s"
        delay = self.plan.get("initialized_delay_s")
        if delay:  # the server's window to ask before it is told we are ready (answered)
            self.tx.note(event="initialized-delayed", seconds=float(delay))
            self.wait(lambda: False, float(delay))
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return None

    def play(self) -> str:
        failed = _modern.discover(self) if self.modern else self.initialize()
        if failed:
            return failed
        default_timeout = float(self.plan.get("step_timeout_s", 10))
        for index, step in enumerate(self.plan.get("steps", [])):
            timeout = float(step.get("timeout_s", default_timeout))
            record: dict[str, Any] = {"index": index, "step": step}
            self.tx.note(event="step", index=index, step=step)
            self.step(step, timeout, record)
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
                return f"step {index} ended {record['outcome']} after at most {timeout:g} s"
            if self.closed:
                return f"the server closed its stdout before step {index} completed"
        return "steps complete"

    def step(self, step: dict[str, Any], timeout: float, record: dict[str, Any]) -> None:
        if "await" in step:
            names = step["await"] if isinstance(step["await"], list) else [step["await"]]
            hit: list[int | None] = [None]

            def arrived() -> bool:
                hit[0] = self.seen(names)
                return hit[0] is not None

            ok = self.wait(arrived, timeout)
            record.update(outcome="ok" if ok else "timeout", evidence=hit[0])
        elif "request" in step:
            params = step.get("params")
            if "params_from" in step:
                params, missing = _lists.filled(step, self.answers)
                if params is None:
                    record.update(outcome="no-value", evidence=None, missing=missing)
                    return
            wait = step.get("wait", True) is not False
            rid, got = self.call(step["request"], params, timeout, step.get("meta"), wait)
            if not wait:
                record.update(outcome="sent", id=rid, evidence=None)
                return
            if step["request"] == "tools/list" and got is not None:
                listed = (got[1].get("result") or {}).get("tools")
                self.tools = [t for t in listed if isinstance(t, dict)] if listed else []
            if step.get("label"):
                self.answers[str(step["label"])] = got[1] if got else None
            record.update(outcome="ok" if got else "timeout", id=rid, evidence=got and got[0])
        elif "paginate" in step:
            _lists.walk(self, step, timeout, record)
        elif "tool_call" in step:
            params = self.pick_tool(step["tool_call"], fallback=not step.get("only_listed"))
            if params is None:
                record.update(outcome="no-tool")
                return
            meta = step.get("meta")
            if step.get("wait", True) is False:
                rid, _ = self.call("tools/call", params, timeout, meta, wait=False)
                record.update(outcome="sent", id=rid, evidence=None)
                return
            if self.modern:
                label = str(step.get("label") or f"#{record['index']}")
                _modern.call_tool(self, params, timeout, label, record, meta)
                return
            rid, got = self.call("tools/call", params, timeout, meta)
            record.update(outcome="ok" if got else "timeout", id=rid, evidence=got and got[0])
        elif "cancel" in step:
            self.cancel(step, record)
        elif "raw" in step:
            self.raw(str(step["raw"]), record)
        elif "set_roots" in step:
            self.roots = _features.named_roots(self.features, step["set_roots"])
            answer = step.get("answer")
            self.roots_answer = answer if isinstance(answer, dict) else None
            if self.modern:  # 2026-07-28 has no roots/list_changed: the next retry carries them
                record.update(outcome="ok", evidence=None)
                return
            n = self.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
            record.update(outcome="ok", evidence=n)
        elif "notify" in step:
            message: dict[str, Any] = {"jsonrpc": "2.0", "method": step["notify"]}
            if step.get("params") is not None:
                message["params"] = step["params"]
            record.update(outcome="ok", evidence=self.send(message))
        elif "http" in step:
            run_http(self, step, timeout, record)
        elif "probe" in step:
            run_probes(self, step, timeout, record)
        elif "fs" in step:
            run_fs(self, step, record)
        elif "race" in step:
            run_race(self, step, timeout, record)
        elif "observe_s" in step:
            self.wait(lambda: False, float(step["observe_s"]))
            record.update(outcome="ok")
        else:
            record.update(outcome="unknown-step")

    def cancel(self, step: dict[str, Any], record: dict[str, Any]) -> None:
        """notifications/cancelled for the request of an earlier step (its label), with the
        step's ``reason``; ``omit_id`` leaves requestId out (a cancel that names nothing,
        optional at 2025-11-25 only). A label that sent no request reads ``no-request``."""
        target = next(
            (r for r in self.step_log if r["step"].get("label") == step["cancel"] and "id" in r),
            None,
        )
        if target is None:
            record.update(outcome="no-request", evidence=None)
            return
        params: dict[str, Any] = {}
        if not step.get("omit_id"):
            params["requestId"] = target["id"]
        if step.get("reason"):
            params["reason"] = step["reason"]
        message = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}
        record.update(outcome="ok", id=None, cancels=target["id"], evidence=self.send(message))

    def raw(self, text: str, record: dict[str, Any]) -> None:
        """Write one line as the scenario spells it, JSON or not: a fault on purpose (a line
        that is no valid MCP message), recorded as ours with the fault mark. When it parses
        to an object with an id, that id is the step's, so its answer is found as any
        request's is."""
        data = text.encode("utf-8")
        with self.out_lock:
            n = self.tx.line("out", data, total=len(data), fault=True)
            try:
                self.out.write(data + b"\n")
                self.out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.tx.note(event="write-failed", n=n)
                self.closed = True
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        rid = parsed.get("id") if isinstance(parsed, dict) else None
        record.update(outcome="ok", id=rid, evidence=n)

    def pick_tool(
        self, candidates: list[dict[str, Any]], fallback: bool = True
    ) -> dict[str, Any] | None:
        """The first candidate the server listed; else (with ``fallback``) its first listed
        tool, with ``{}``. A scenario that must not call a tool it did not choose (one that may
        act on the machine) says ``only_listed`` and reads ``no-tool`` instead."""
        names = {t.get("name") for t in self.tools}
        for candidate in candidates:
            if candidate.get("name") in names:
                return {"name": candidate["name"], "arguments": candidate.get("arguments", {})}
        if fallback and self.tools and isinstance(self.tools[0].get("name"), str):
            return {"name": self.tools[0]["name"], "arguments": {}}
        return None


def _with_step_meta(params: dict[str, Any] | None, meta: dict[str, Any]) -> dict[str, Any]:
    """``params`` with a step's ``meta`` merged into ``params._meta`` (a handshake-era
    request: the only ``_meta`` it carries is the step's; a null leaves a key out)."""
    out = dict(params or {})
    given = out.get("_meta")
    merged = dict(given) if isinstance(given, dict) else {}
    for key, value in meta.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    if merged:
        out["_meta"] = merged
    else:  # every key left out: no _meta at all
        out.pop("_meta", None)
    return out
