"""A small MCP client for the harness tests: well-behaved, or misbehaving on purpose.

    fake_client.py --mode MODE [--control DIR] [--plan HOST_PLAN] -- SERVER_ARGV...

It starts the server (our peer) over stdio like any host would, with its working folder as its
root (declared unless a host plan, ``--plan``, names no roots feature). ``good`` answers
everything per spec (so verdicts can be ``pass``); ``modern`` also speaks 2026-07-28
(server/discover, per-request _meta, InputRequiredResult retries). The other modes are faults
the real clients will not produce on demand: garbage, wrong ids, silence, floods, a 10 MB line,
a crash (after the handshake, or ``exit-early`` before it), a client that refuses the server's
version by stopping its server (``refuse``), a client that never exits (ignoring SIGTERM, with
a grandchild in a session of its own), ``bad-roots`` answering roots/list at once with a
result no ListRootsResult admits (a fail that costs no step timeout), and one that is ``good``
and ``bad-roots`` on alternate runs (``flaky``, counting runs in ``--counter FILE``).
The wire hygiene faults: ``double-answer`` answers each server request twice, ``reuse-id``
sends two pings with one id in one write (the second while the first is pending),
``answer-notifications`` answers every notification with an id-less error, ``stray-progress``
sends progress for a token no request carried, ``modern-answer`` speaks 2026-07-28 and writes
a response, which that revision forbids a stdio client. ``modern-elicit`` speaks 2026-07-28,
declares elicitation and answers an embedded ``elicitation/create`` with a valid ElicitResult;
``modern-elicit-garbage`` answers it with one no MCP result type admits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

MODERN = "2026-07-28"
MODERN_MODES = ("modern", "modern-answer", "modern-elicit", "modern-elicit-garbage")
#: What the elicit modes answer an embedded elicitation/create with.
ELICITED = {
    "modern-elicit": {"action": "accept", "content": {"answer": "yes"}},
    "modern-elicit-garbage": {"action": "maybe", "content": {"answer": {"nested": 1}}},
}


class Client:
    def __init__(self, server: list[str], mode: str, control: str | None, roots: bool) -> None:
        self.mode = mode
        self.control = Path(control) if control else None
        self.roots_on = roots
        self.proc = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin = self.proc.stdin
        self.stdout = self.proc.stdout
        self.next_id = 0
        self.pending: dict[int, Any] = {}
        self.lock = threading.Lock()
        self.roots = [Path.cwd()]
        self.modern = False

    # -- wire -----------------------------------------------------------------------------
    def write_raw(self, data: bytes) -> None:
        with self.lock:
            try:
                self.stdin.write(data)
                self.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def send(self, message: dict[str, Any]) -> None:
        self.write_raw(json.dumps(message).encode() + b"\n")

    def meta(self) -> dict[str, Any]:
        caps: dict[str, Any] = {"roots": {}} if self.roots_on else {}
        if self.mode in ELICITED:
            caps["elicitation"] = {"form": {}}
        return {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientInfo": {"name": f"fake-{self.mode}", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": caps,
        }

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.next_id

    def read(self) -> Any:
        line = self.stdout.readline()
        if not line:
            return None
        try:
            return json.loads(line)
        except ValueError:
            return {}

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and serve the server's own requests until its response comes."""
        rid = self.request(method, params)
        while True:
            msg = self.read()
            if msg is None:
                return None
            if msg.get("id") == rid and "method" not in msg:
                return msg
            self.serve(msg)

    # -- behaviour --------------------------------------------------------------------------
    def root_list(self) -> dict[str, Any]:
        return {"roots": [{"uri": p.as_uri(), "name": p.name} for p in self.roots]}

    def serve(self, msg: dict[str, Any]) -> None:
        method = msg.get("method")
        if isinstance(method, str) and "id" not in msg and self.mode == "answer-notifications":
            error = {"code": -32601, "message": f"no handler for {method}"}
            self.send({"jsonrpc": "2.0", "id": None, "error": error})
        if not isinstance(method, str) or "id" not in msg:
            return  # a notification, known or not: never answered
        if self.mode == "silent":
            return
        rid = msg["id"]
        if self.mode == "wrong-ids":
            rid = rid + 1000 if isinstance(rid, int) else f"{rid}-x"
        for _ in range(2 if self.mode == "double-answer" else 1):
            self.answer(method, rid)

    def answer(self, method: str, rid: Any) -> None:
        if method == "roots/list" and self.roots_on and self.mode == "bad-roots":
            self.send({"jsonrpc": "2.0", "id": rid, "result": {"roots": "none"}})
        elif method == "roots/list" and self.roots_on:
            self.send({"jsonrpc": "2.0", "id": rid, "result": self.root_list()})
        elif method == "ping":
            self.send({"jsonrpc": "2.0", "id": rid, "result": {}})
        else:
            error = {"code": -32601, "message": "Method not found"}
            self.send({"jsonrpc": "2.0", "id": rid, "error": error})

    def handshake(self) -> bool:
        if self.mode == "refuse":
            return self.refuse()
        if self.mode in MODERN_MODES:
            reply = self.call("server/discover", {"_meta": self.meta()})
            if reply and isinstance(reply.get("result"), dict):
                self.modern = MODERN in reply["result"].get("supportedVersions", [])
            if self.modern:
                return True
        caps: dict[str, Any] = {"roots": {"listChanged": True}} if self.roots_on else {}
        reply = self.call(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": caps,
                "clientInfo": {"name": f"fake-{self.mode}", "version": "1"},
            },
        )
        if reply is None:
            return False
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return True

    def refuse(self) -> bool:
        """Like Gemini CLI: ask for 2025-06-18; if the server answers another version, stop
        the server with SIGTERM and stay running (only the harness ends this client)."""
        asked = "2025-06-18"
        params = {
            "protocolVersion": asked,
            "capabilities": {},
            "clientInfo": {"name": "r", "version": "1"},
        }
        reply = self.call("initialize", params)
        got = reply.get("result", {}).get("protocolVersion") if reply else None
        if got == asked:
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            return True
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        while True:
            time.sleep(1)

    def use_tools(self) -> None:
        params: dict[str, Any] = {"_meta": self.meta()} if self.modern else {}
        listed = self.call("tools/list", params or None)
        tools = listed.get("result", {}).get("tools", []) if listed else []
        for tool in tools:
            call: dict[str, Any] = {"name": tool["name"], "arguments": {}, **params}
            reply = self.call("tools/call", call)
            result = reply.get("result", {}) if reply else {}
            if result.get("resultType") == "input_required":
                retry = dict(call)
                asked = result.get("inputRequests", {})
                retry["inputResponses"] = {
                    key: self.root_list()
                    for key, req in asked.items()
                    if req.get("method") == "roots/list"
                }
                for key, req in asked.items():
                    if req.get("method") == "elicitation/create" and self.mode in ELICITED:
                        retry["inputResponses"][key] = ELICITED[self.mode]
                if "requestState" in result:
                    retry["requestState"] = result["requestState"]
                self.call("tools/call", retry)

    def watch_control(self) -> None:
        if self.control is None:
            return
        flag = self.control / "add-root"
        while self.proc.poll() is None:
            if flag.exists():
                added = Path.cwd() / "added root ü"
                added.mkdir(exist_ok=True)
                self.roots.append(added)
                self.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
                return
            time.sleep(0.02)

    def serve_forever(self) -> None:
        while True:
            msg = self.read()
            if msg is None:
                return
            self.serve(msg)


def prepare_to_hang() -> None:
    """Ignore SIGTERM and start two grandchildren (one in its own session), first thing: the
    peer may close, and the harness send SIGTERM, before the handshake's follow-up is over (a
    loaded machine), and the fault measured is a client that ignores it, whenever it comes."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    code = "import signal,time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    subprocess.Popen([sys.executable, "-c", code])


def never_exit() -> None:
    while True:
        time.sleep(1)


def main() -> int:
    args = sys.argv[1:]
    split = args.index("--")
    opts, server = args[:split], args[split + 1 :]
    mode = opts[opts.index("--mode") + 1]
    if mode == "flaky":
        # Alternate plays differ on purpose: odd plays (by the counter file) answer as
        # ``good``, even ones as ``bad-roots``, so a repeated cell's outcome changes.
        counter = Path(opts[opts.index("--counter") + 1])
        plays = int(counter.read_text() or "0") + 1 if counter.exists() else 1
        counter.write_text(str(plays))
        mode = "good" if plays % 2 else "bad-roots"
    control = opts[opts.index("--control") + 1] if "--control" in opts else None
    roots = True
    if "--plan" in opts:  # the host plan's features, as an SDK host reads them
        plan = json.loads(Path(opts[opts.index("--plan") + 1]).read_text(encoding="utf-8"))
        roots = "roots" in plan["features"]
    client = Client(server, mode, control, roots=roots)
    if mode == "hang":
        prepare_to_hang()  # after the server started: it keeps the usual SIGTERM
    if mode == "exit-early":
        return 1  # a crash at start: the server was launched, initialize never sent
    if mode == "garbage":
        client.write_raw(b"}{ this is not json\n\xff\xfe\x00 not utf-8 either\n")
    if not client.handshake():
        return 1
    if mode == "crash":
        os._exit(3)
    if mode == "flood":
        burst = b"".join(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/progress",
                    "params": {"progressToken": 1, "progress": i},
                }
            ).encode()
            + b"\n"
            for i in range(30000)
        )
        client.write_raw(burst)
    if mode == "reuse-id":
        ping = json.dumps({"jsonrpc": "2.0", "id": "twice", "method": "ping"}).encode() + b"\n"
        client.write_raw(ping + ping)  # one write: the second is sent before any answer
    if mode == "modern-answer":
        client.send({"jsonrpc": "2.0", "id": 1, "result": {}})
    if mode == "stray-progress":
        for i in range(3):
            note = {"progressToken": "nobody-asked", "progress": i}
            client.send({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
    if mode == "big-line":
        big = {
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "data": "x" * (10 * 1024 * 1024)},
        }
        client.write_raw(json.dumps(big).encode() + b"\n")
    threading.Thread(target=client.watch_control, daemon=True).start()
    client.use_tools()
    if mode == "hang":
        threading.Thread(target=client.serve_forever, daemon=True).start()
        never_exit()
    client.serve_forever()
    client.proc.wait(timeout=10)
    if mode == "slow-exit":
        time.sleep(1.5)  # a client slow to leave once its server has gone (a loaded JVM)
    return 0


if __name__ == "__main__":
    sys.exit(main())
