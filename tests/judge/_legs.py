"""Crafted proxy-cell recordings for the relay tests: both legs written as the scripted client
and the peer write them (one file each, times on each recorder's clock, a start note carrying
that clock), merged by the harness's own ``merge_legs`` and read back as a rule's context.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _revisions import revisions

from compare.judge._transcript import read_transcript
from compare.judge.rules import Context
from compare.play._proxy import merge_legs

CLOCK = 1000.0
APP = "file:///tmp/x/web%20%23staging%20%C3%A9/app"
OTHER = "file:///tmp/x/web%20%23staging%20%C3%A9/other"
ROOTS = [{"uri": APP, "name": "app"}]
DECLARED = {"listChanged": True}
CALL_RESULT = {"content": [{"type": "text", "text": "ok"}], "isError": False}


class Legs:
    """Records of one host leg and any number of upstream connections, by absolute time."""

    def __init__(self, host_caps: dict[str, Any] | None = DECLARED) -> None:
        self.host_caps = host_caps
        self.files: dict[str, list[tuple[float, str, Any]]] = {"host.jsonl": []}
        self.host_roots = [{"uri": APP, "name": "app"}]

    # -- raw records ------------------------------------------------------------------------
    def _file(self, conn: int | None) -> str:
        name = "host.jsonl" if conn is None else f"upstream-{100 + conn}.jsonl"
        self.files.setdefault(name, [])
        return name

    def line(self, conn: int | None, t: float, direction: str, obj: dict[str, Any]) -> None:
        self.files[self._file(conn)].append((t, direction, obj))

    def note(self, conn: int | None, t: float, **fields: Any) -> None:
        self.files[self._file(conn)].append((t, "note", fields))

    # -- the exchange, in MCP terms -----------------------------------------------------------
    def handshake(self, ok: bool = True) -> Legs:
        self.note(None, 0.0, event="step", index=-1, step={"label": "initialize"})
        init = {"capabilities": {} if self.host_caps is None else {"roots": self.host_caps}}
        self.line(None, 0.0, "out", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                     "params": init})  # fmt: skip
        if ok:
            self.line(None, 0.5, "in", {"jsonrpc": "2.0", "id": 1, "result": {}})
        self.note(None, 0.5, event="step-done", index=-1, label="initialize",
                  outcome="ok" if ok else "timeout", id=1)  # fmt: skip
        return self

    def upstream(self, conn: int, t: float, roots: dict[str, Any] | None = DECLARED) -> Legs:
        caps = {} if roots is None else {"roots": roots}
        self.line(conn, t, "in", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                  "params": {"capabilities": caps}})  # fmt: skip
        self.line(conn, t + 0.01, "out", {"jsonrpc": "2.0", "id": 0, "result": {}})
        self.line(conn, t + 0.02, "in", {"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    def forwarded(self, conn: int, t: float) -> Legs:
        self.line(conn, t, "in", {"jsonrpc": "2.0", "id": 5, "method": "tools/list"})
        return self

    def call(self, t: float, hid: int = 11, label: str = "call") -> Legs:
        """Our host calls the proxy's tool (its step-done note names the request's id)."""
        self.note(None, t, event="step", index=3, step={"tool_call": [{"name": "probe"}],
                                                        "label": label})  # fmt: skip
        self.line(None, t, "out", {"jsonrpc": "2.0", "id": hid, "method": "tools/call",
                                   "params": {"name": "probe", "arguments": {}}})  # fmt: skip
        self.note(None, t + 30.0, event="step-done", index=3, label=label, outcome="ok", id=hid)
        return self

    def up_call(self, conn: int, t: float, rid: int = 21) -> Legs:
        """The proxy forwards a call to the upstream, which holds its reply."""
        self.line(conn, t, "in", {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                  "params": {"name": "probe", "arguments": {}}})  # fmt: skip
        return self

    def up_call_reply(self, conn: int, t: float, rid: int = 21) -> Legs:
        self.line(conn, t, "out", {"jsonrpc": "2.0", "id": rid, "result": CALL_RESULT})
        return self

    def call_reply(self, t: float, hid: int = 11, error: bool = False) -> Legs:
        """The proxy's reply to our host's call."""
        if error:
            body: dict[str, Any] = {"error": {"code": -32603, "message": "Internal error"}}
        else:
            body = {"result": CALL_RESULT}
        self.line(None, t, "in", {"jsonrpc": "2.0", "id": hid, **body})
        return self

    def ask(self, conn: int, t: float, rid: int = 1, label: str = "ask") -> Legs:
        self.note(conn, t, event="step", index=1, step={"request": "roots/list", "label": label})
        self.line(conn, t, "out", {"jsonrpc": "2.0", "id": rid, "method": "roots/list"})
        return self

    def relay(self, t: float, hid: int = 7, roots: list[Any] | None = None) -> Legs:
        """The proxy asks our host, which answers with its roots at once."""
        self.line(None, t, "in", {"jsonrpc": "2.0", "id": hid, "method": "roots/list"})
        answer = self.host_roots if roots is None else roots
        self.line(None, t + 0.001, "out", {"jsonrpc": "2.0", "id": hid,
                                           "result": {"roots": answer}})  # fmt: skip
        return self

    def answer(
        self, conn: int, t: float, rid: int = 1, roots: Any = None, error: bool = False
    ) -> Legs:
        if error:
            body: dict[str, Any] = {"error": {"code": -32601, "message": "Method not found"}}
        else:
            body = {"result": {"roots": self.host_roots if roots is None else roots}}
        self.line(conn, t, "in", {"jsonrpc": "2.0", "id": rid, **body})
        return self

    def step_done(self, conn: int, t: float, label: str, outcome: str, rid: int | None = 1) -> Legs:
        """The peer's step-done note; a request step's names the id it sent."""
        self.note(conn, t, event="step-done", index=1, label=label, outcome=outcome, id=rid)
        return self

    def closed(self, conn: int, t: float) -> Legs:
        self.note(conn, t, event="stdin-closed")
        return self

    def host_changed(self, t: float, to: str = OTHER) -> Legs:
        self.note(None, t, event="step", index=2, step={"set_roots": ["other"], "label": "changed"})
        self.line(None, t, "out", {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        self.host_roots = [{"uri": to, "name": "other"}]
        return self

    def passed(self, conn: int, t: float) -> Legs:
        self.line(conn, t, "in", {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        return self

    # -- files and context --------------------------------------------------------------------
    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        for name, items in self.files.items():
            records = [{"n": 1, "t": 0.0, "dir": "note",
                        "raw": json.dumps({"event": "start", "clock": CLOCK})}]  # fmt: skip
            for t, direction, obj in sorted(items, key=lambda item: item[0]):
                raw = json.dumps(obj, separators=(",", ":"))
                records.append({"n": len(records) + 1, "t": t, "dir": direction, "raw": raw})
            text = "".join(json.dumps(r) + "\n" for r in records)
            (folder / name).write_text(text, encoding="utf-8")
        return merge_legs(folder)

    def context(self, folder: Path) -> Context:
        path = self.write(folder)
        caps = {} if self.host_caps is None else {"roots": self.host_caps}
        plan = {
            "capabilities": caps,
            "roots": ["app"],
            "folders": {
                "app": {"uri": APP, "name": "app"},
                "other": {"uri": OTHER, "name": "other"},
            },
        }
        return Context(read_transcript(path), plan, "2025-11-25", revisions())
