"""A small stdio proxy for the harness tests: relays line for line, or breaks one wire rule.

    fake_proxy.py --mode MODE -- UPSTREAM_ARGV...

It starts the upstream server (our peer) and copies each line from its host (stdin) to the
upstream and back. ``good`` only relays. The wire hygiene faults, each on one leg:
``double-answer`` sends the host's answer to an upstream request to the upstream twice;
``double-answer-host`` sends the upstream's answer to the host's tools/list to the host twice;
``stray-answer-host`` answers the host with an id it never sent; ``reuse-id`` forwards the
host's tools/list upstream twice with one id in one write (and drops the second answer);
``answer-notifications`` answers each of the host's notifications with an id-less result;
``stray-progress`` sends the upstream progress for a token no request carried. Standard
library only.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from typing import Any


def _line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


class Proxy:
    def __init__(self, mode: str, upstream: list[str]) -> None:
        self.mode = mode
        self.proc = subprocess.Popen(upstream, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()
        self.doubled: set[str] = set()  # reused ids whose second answer is dropped

    def to_upstream(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def to_host(self, data: bytes) -> None:
        with self.lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def from_host(self, raw: bytes) -> None:
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = None
        if not isinstance(msg, dict):
            self.to_upstream(raw)
            return
        method, has_id = msg.get("method"), "id" in msg
        if method is None and self.mode == "double-answer":
            self.to_upstream(raw + raw)
            return
        if method == "tools/list" and self.mode == "reuse-id":
            self.doubled.add(json.dumps(msg["id"]))
            self.to_upstream(raw + raw)  # one write: the second is sent before any answer
            return
        self.to_upstream(raw)
        if method is not None and not has_id and self.mode == "answer-notifications":
            self.to_host(_line({"jsonrpc": "2.0", "id": None, "result": {}}))
        if method == "notifications/initialized" and self.mode == "stray-progress":
            params = {"progressToken": "nobody-asked", "progress": 1}
            self.to_upstream(
                _line({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
            )

    def from_upstream(self, raw: bytes) -> None:
        try:
            msg = json.loads(raw)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and "method" not in msg and "id" in msg:
            key = json.dumps(msg["id"])
            if key in self.doubled:
                self.doubled.discard(key)
                self.doubled.add("answered:" + key)
            elif "answered:" + key in self.doubled:
                return  # the reused request's second answer: the host asked once
            tools = isinstance(msg.get("result"), dict) and "tools" in msg["result"]
            if tools and self.mode == "double-answer-host":
                self.to_host(raw + raw)
                return
            if tools and self.mode == "stray-answer-host":
                self.to_host(_line({"jsonrpc": "2.0", "id": 777, "result": {}}))
        self.to_host(raw)

    def pump_upstream(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.from_upstream(raw)

    def run(self) -> int:
        threading.Thread(target=self.pump_upstream, daemon=True).start()
        for raw in sys.stdin.buffer:
            self.from_host(raw)
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def main() -> int:
    args = sys.argv[1:]
    split = args.index("--")
    mode = args[args.index("--mode") + 1]
    Proxy(mode, args[split + 1 :]).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
