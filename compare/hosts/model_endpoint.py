"""A stand-in model service: the smallest model endpoint a CLI client needs.

Some clients (gptme, qwen-code, codex, gemini-cli, claude-code) refuse to start, or never
reach their MCP start-up, without a model provider. Most of what we measure happens before or
without a model answer: the MCP connection, initialize, roots. So each such cell gets this
endpoint on 127.0.0.1 instead of the network: it lists one model, answers every chat
completion, every request of the Responses API, every generateContent of the Gemini API and
every message of the Anthropic Messages API with one short fixed assistant text (plain JSON,
or streamed as server-sent events: chat chunks ending ``data: [DONE]``, Responses events
ending ``response.completed``, Gemini's one candidate, Anthropic's events ending
``message_stop``), and answers anything else with a JSON 404. A body that is not a JSON
object with a ``messages`` list (chat, Anthropic), an ``input`` (Responses) or a ``contents``
list (Gemini) gets a 400, so a client's malformed request is a recorded answer, not a crash.
Every request is written as one JSON line (method, path, body) to a log in the cell, which is
the evidence of what the client asked of its model.

A cell may also give it one tool call to ask for (``ToolCall``: an MCP tool as the peer lists
it, the arguments, and how the client offers MCP tools to its model). On the first chat
request that offers that tool, the endpoint answers with a call to it instead of the text
(``finish_reason: tool_calls``, plain or streamed), once; every later request gets the text,
so the client hands the tool's result back and ends. Which request was answered with the call,
and its id, is written in the log beside the request, so a judge can find the result the
client passed back.

Standard library only, so it runs in the harness's own process (a thread per cell, stopped
with the cell, so it cannot outlive it) and also alone, for exploring a client by hand:

    python compare/hosts/model_endpoint.py --log requests.jsonl [--port N]

prints its base URL (``http://127.0.0.1:PORT/v1``) on one line and serves until it is
signalled (SIGTERM, SIGINT, SIGHUP).
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

#: The one model it lists; any model name a client asks for is answered all the same.
MODEL_ID = "mcpc-fixed"
#: The one assistant text: short, and naming no tool, so no client has a reason to act on it.
REPLY = "Hello from the mcp-compare model endpoint."
#: A request body larger than this is refused (413) unread: a bound, not a limit a client meets.
MAX_BODY = 8 << 20
HOST = "127.0.0.1"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Log:
    """Appends one JSON object a line; shared by the server's threads."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.count = 0

    def write(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.count += 1
            if self.path is None:
                return
            line = json.dumps({"n": self.count, **entry}, ensure_ascii=False)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")


#: The Gemini API's model methods: ``/v1beta/models/MODEL:VERB`` (any API version).
_GEMINI = re.compile(
    r"(?:/v1)?/v1[a-z0-9]*/models/([^/:]+):(generateContent|streamGenerateContent|countTokens)"
)
#: The Anthropic Messages API (``/v1/messages``, and its token count), under a base URL given
#: with or without ``/v1``.
_MESSAGES = re.compile(r"(?:/v1)?/v1/messages(/count_tokens)?")
#: Characters a client puts between its own prefix and an MCP tool's name in the function it
#: offers its model (``mcp__peer__echo``, ``peer_echo``, ``peer.echo``, ``peer:echo``).
_JOINERS = ("__", "_", ".", ":", "/", "-")


@dataclass(frozen=True)
class ToolCall:
    """The one tool call a cell's model asks for.

    ``tool`` is the MCP tool's name as the peer lists it; ``arguments`` what the model passes.
    A client that offers the tool as a function of its own name (the name itself, or it after
    a prefix of the client's) is asked to call that function. ``bridge`` says how a client
    offers MCP tools otherwise:

    - behind one function of its own (``{"function": "tool_call", "name":
      "mcp__peer__{tool}", "arguments": "arguments"}``): that function is called with the
      tool's name in the client's spelling and the arguments under the member given;
    - as a tool call written in the reply's text (``{"text": "```{name}\\n{arguments}\\n```",
      "name": "peer.{tool}"}``): once a request's messages name the tool so, the reply is that
      text with the arguments as JSON.
    """

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    bridge: dict[str, str] | None = None

    def function_for(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The function to call (``name``, ``arguments``, and the ``namespace`` it was offered
        in, if any), if ``request`` offers the tool; else None."""
        offered = list(_offered(request.get("tools")))
        for name, namespace in offered:
            if _same(name, self.tool):
                found = {"name": name, "arguments": dict(self.arguments)}
                return {**found, "namespace": namespace} if namespace else found
        bridge = self.bridge or {}
        if "text" in bridge:
            return None  # a client that reads tool calls from the reply's text: text_for
        spelled = str(bridge.get("name", "{tool}")).format(tool=self.tool)
        # the bridge is offered whatever the client connected to: the tool is offered only
        # where the request also names it (a list of what the bridge reaches)
        if bridge.get("function") in {n for n, _ns in offered} and _names(request, spelled):
            member = str(bridge.get("arguments", "arguments"))
            arguments = {"name": spelled, member: dict(self.arguments)}
            return {"name": str(bridge["function"]), "arguments": arguments}
        return None

    def text_for(self, request: dict[str, Any]) -> str | None:
        """The reply that writes the tool call, if the client reads calls from text and one of
        ``request``'s messages names the tool as the client does; else None."""
        bridge = self.bridge or {}
        if "text" not in bridge:
            return None
        spelled = str(bridge.get("name", "{tool}")).format(tool=self.tool)
        if not _names(request, spelled):
            return None
        arguments = json.dumps(self.arguments, ensure_ascii=False)
        return str(bridge["text"]).replace("{name}", spelled).replace("{arguments}", arguments)


def _offered(tools: Any, namespace: str | None = None) -> Iterator[tuple[str, str | None]]:
    """Each function a request offers, with the namespace it sits in: a chat tool's
    ``function``, a Responses tool itself, and the tools of a Responses ``namespace``."""
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("tools"), list):
            yield from _offered(tool["tools"], str(tool.get("name") or "") or None)
            continue
        if isinstance(tool.get("functionDeclarations"), list):  # the Gemini API's shape
            yield from _offered(tool["functionDeclarations"], namespace)
            continue
        inner = tool.get("function")
        function: dict[str, Any] = inner if isinstance(inner, dict) else tool
        if function.get("name"):
            yield str(function["name"]), namespace


def _plain(name: str) -> str:
    """A tool name with every character outside A-Z, a-z, 0-9 made ``_``, as clients make the
    names they offer a model (``mcp-compare-lookup`` → ``mcp_compare_lookup``)."""
    return re.sub(r"[^0-9A-Za-z]", "_", name)


def _same(offered: str, tool: str) -> bool:
    """Whether a function a client offers is the MCP tool: the name itself, or it after a
    prefix of the client's, as written or with the client's character substitutions."""
    for a, b in ((offered, tool), (_plain(offered), _plain(tool))):
        if a == b or any(a.endswith(j + b) for j in _JOINERS):
            return True
    return False


def _asked_json(config: Any) -> dict[str, Any] | None:
    """The JSON schema a Gemini request asks its answer to follow, if it asks for JSON."""
    if not isinstance(config, dict) or config.get("responseMimeType") != "application/json":
        return None
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return schema if isinstance(schema, dict) else {}


def _instance(schema: Any) -> Any:
    """The smallest value of a JSON schema's shape (the first of an enum, every required
    member of an object): what a model answers when a client asks for JSON, which our text
    is not. Types may be written upper-case, as the Gemini API does."""
    if not isinstance(schema, dict):
        return None
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = str(schema.get("type") or "object").lower()
    if kind == "object":
        given, named = schema.get("properties"), schema.get("required")
        members: dict[str, Any] = given if isinstance(given, dict) else {}
        wanted: list[Any] = named if isinstance(named, list) else list(members)
        return {str(k): _instance(members.get(k)) for k in wanted}
    plain: dict[str, Any] = {"string": "mcp-compare", "integer": 1, "number": 1, "boolean": False,
                             "array": [], "null": None}  # fmt: skip
    return plain.get(kind)


def _names(request: dict[str, Any], spelled: str) -> bool:
    """Whether a request's prompt (chat messages, or a Responses request's instructions and
    input) names the tool as the client spells it."""
    keys = ("messages", "instructions", "input", "contents", "systemInstruction")
    prompt = {k: request.get(k) for k in keys}
    said = json.dumps(prompt, ensure_ascii=False)
    return spelled in said or json.dumps(spelled)[1:-1] in said


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # A port given by hand may still be in TIME_WAIT from a previous run.
    allow_reuse_address = True

    def __init__(
        self, port: int, log: _Log, reply: str, call: ToolCall | None = None, think_s: float = 0.0
    ) -> None:
        self.log = log
        self.reply = reply
        self.call = call
        self.think_s = think_s
        self.stopping = threading.Event()  # set on stop: a reply still thinking ends at once
        self.called = False  # the tool call is asked for once
        self.turn = threading.Lock()
        self.serial = 0
        super().__init__((HOST, port), _Handler)

    def decide(self, request: dict[str, Any]) -> dict[str, Any] | None:
        """The tool call to answer ``request`` with (name, arguments, id), once; else None."""
        if self.call is None:
            return None
        with self.turn:
            if self.called:
                return None
            found = self.call.function_for(request)
            text = None if found is not None else self.call.text_for(request)
            if found is None and text is None:
                return None
            self.called = True
            self.serial += 1
            call_id = f"call_mcpc_{self.serial}"
            if found is None:
                return {"text": text, "id": call_id}
            return {**found, "id": call_id}

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet: a client that hangs up mid-answer is the client's business, and the base
        class would print a traceback into the harness's own output."""


def _completion_id(server: _Server) -> str:
    server.serial += 1
    return f"chatcmpl-mcpc-{server.serial}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mcp-compare-model/1"
    server: _Server

    # -- plumbing ------------------------------------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: the JSON log is the record, stderr belongs to the harness."""

    def _read_body(self) -> bytes | None:
        """The request body, or None when it is too large (the answer is then sent)."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts: list[bytes] = []
            size = 0
            while True:
                line = self.rfile.readline(1024).strip()
                length = int(line.split(b";")[0] or b"0", 16)
                if length == 0:
                    self.rfile.readline(1024)  # the blank line after the last chunk
                    break
                size += length
                if size > MAX_BODY:
                    return None
                parts.append(self.rfile.read(length))
                self.rfile.readline(1024)
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            return None
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str) -> None:
        # The OpenAI error shape, so a client's SDK can show the message.
        self._send_json(status, {"error": {"message": message, "type": kind, "code": None}})

    def _record(self, body: bytes, status: int, answer: dict[str, Any] | None = None) -> None:
        text = body.decode("utf-8", errors="replace")
        try:
            parsed: Any = json.loads(text) if text else None
            entry_body: dict[str, Any] = {"body": parsed}
        except ValueError:
            entry_body = {"body_raw": text}
        said = {"tool_call": answer} if answer is not None else {}
        self.server.log.write(
            {
                "at": _now(),
                "method": self.command,
                "path": self.path,
                "user_agent": self.headers.get("User-Agent"),
                **entry_body,
                "status": status,
                **said,
            }
        )

    # -- the routes ----------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self._record(b"", 200)
            self._send_json(200, {"object": "list", "data": [_model()]})
        elif path.startswith(("/v1/models/", "/models/")):
            self._record(b"", 200)
            self._send_json(200, _model(path.rsplit("/", 1)[1]))
        else:
            self._record(b"", 404)
            self._error(404, f"no route for GET {self.path}", "not_found")

    def do_POST(self) -> None:
        try:
            body = self._read_body()
        except (ValueError, OSError):
            self._record(b"", 400)
            self._error(400, "unreadable request body", "invalid_request_error")
            return
        if body is None:
            self._record(b"", 413)
            self._error(413, f"request body over {MAX_BODY} bytes", "invalid_request_error")
            self.close_connection = True
            return
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("/v1/responses", "/responses"):
            self._respond(body)
            return
        gemini = _GEMINI.fullmatch(path)
        if gemini is not None:
            self._generate(body, gemini.group(1), gemini.group(2), "alt=sse" in self.path)
            return
        messages = _MESSAGES.fullmatch(path)
        if messages is not None:
            self._message(body, counting=messages.group(1) is not None)
            return
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self._record(body, 404)
            self._error(404, f"no route for POST {self.path}", "not_found")
            return
        taken = self._take(body, "messages", "invalid_request_error")
        if taken is None:
            return
        request, call = taken
        model = str(request.get("model") or MODEL_ID)
        if request.get("stream") is True:
            options = request.get("stream_options")
            usage = isinstance(options, dict) and options.get("include_usage") is True
            self._stream(model, usage, call)
        else:
            cid = _completion_id(self.server)
            self._send_json(200, _completion(cid, model, self.server.reply, call))

    def _take(
        self, body: bytes, turns: str, kind: str
    ) -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        """Read a model request, log it with what it will be answered (a tool call or the
        text) and think over it; None when it was refused with a 400 (logged too)."""
        request = _parse_request(body, turns)
        if isinstance(request, str):
            self._record(body, 400)
            self._error(400, request, kind)
            return None
        call = self.server.decide(request)
        self._record(body, 200, call)
        self._think(request, call)
        return request, call

    def _think(self, request: dict[str, Any], call: dict[str, Any] | None) -> None:
        """Take ``think_s`` over the fixed text of an agent's turn (a request that offers
        tools), as a model takes its time; a tool call, and a side request of the client's
        (a title, a routing choice: no tools offered), are answered at once. A client that
        ends its session once its model has answered keeps it open meanwhile, so the
        scenario's later steps still reach it."""
        turn = next(_offered(request.get("tools")), None) is not None
        if call is None and turn and self.server.think_s > 0:
            self.server.stopping.wait(self.server.think_s)

    def _turn(
        self, body: bytes, turns: str, prefix: str
    ) -> tuple[dict[str, Any], str | None, dict[str, Any], str, str] | None:
        """A request of the Responses or the Messages API, taken (``_take``) and given its
        answer's parts: the request; the reply's words (the fixed text, or a tool call written
        as text; None when the answer is a function call); that call (empty when there is
        none); a fresh answer id (``prefix`` and a serial); and the model the answer names."""
        taken = self._take(body, turns, "invalid_request_error")
        if taken is None:
            return None
        request, call = taken
        self.server.serial += 1
        answer_id = f"{prefix}_mcpc_{self.server.serial}"
        model = str(request.get("model") or MODEL_ID)
        text = self.server.reply if call is None else call.get("text")
        words = None if text is None else str(text)
        return request, words, call or {}, answer_id, model

    def _respond(self, body: bytes) -> None:
        """The Responses API (``POST /v1/responses``), the other form an OpenAI-compatible
        client may speak: the same text or tool call, as one output item, in a JSON response
        or as the stream of events that ends with response.completed."""
        turn = self._turn(body, "input", "resp")
        if turn is None:
            return
        request, text, call, rid, model = turn
        if text is not None:
            part = {"type": "output_text", "text": text, "annotations": []}
            item: dict[str, Any] = {"type": "message", "id": f"msg_{rid}", "status": "completed",
                                    "role": "assistant", "content": [part]}  # fmt: skip
        else:
            item = {"type": "function_call", "id": f"fc_{rid}", "status": "completed",
                    "call_id": call["id"], "name": call["name"],
                    "arguments": json.dumps(call["arguments"])}  # fmt: skip
            if call.get("namespace"):
                item["namespace"] = call["namespace"]  # a tool offered inside a namespace
        words = len(self.server.reply.split())
        done = {
            "id": rid, "object": "response", "created_at": int(time.time()), "model": model,
            "status": "completed", "output": [item],
            "usage": {"input_tokens": 1, "output_tokens": words, "total_tokens": words + 1,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}},
        }  # fmt: skip
        if request.get("stream") is not True:
            self._send_json(200, done)
            return
        started = {**done, "status": "in_progress", "output": []}
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": started},
            {"type": "response.output_item.added", "output_index": 0,
             "item": {**item, "status": "in_progress"}},
        ]  # fmt: skip
        if item["type"] == "message":
            events.append({"type": "response.output_text.delta", "item_id": item["id"],
                           "output_index": 0, "content_index": 0,
                           "delta": item["content"][0]["text"]})  # fmt: skip
        events += [
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": done},
        ]
        self._send_events(
            [f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n"
             for n, e in enumerate(events)]
        )  # fmt: skip

    def _generate(self, body: bytes, model: str, verb: str, sse: bool) -> None:
        """The Gemini API (``POST /v1beta/models/MODEL:generateContent``, ``…:stream…`` with
        ``alt=sse``, and ``…:countTokens``), the third form a CLI may speak: the text or one
        functionCall part in a candidate, whole or as one server-sent event."""
        if verb == "countTokens":
            self._record(body, 200)
            self._send_json(200, {"totalTokens": 1})
            return
        taken = self._take(body, "contents", "INVALID_ARGUMENT")
        if taken is None:
            return
        request, call = taken
        if call is None or "text" in call:
            text = self.server.reply if call is None else str(call["text"])
            config = request.get("generationConfig")
            schema = _asked_json(config) if call is None else None
            if schema is not None:  # a side request that wants JSON (a routing choice)
                text = json.dumps(_instance(schema))
            part: dict[str, Any] = {"text": text}
        else:
            part = {"functionCall": {"name": call["name"], "args": call["arguments"],
                                     "id": call["id"]}}  # fmt: skip
        words = len(self.server.reply.split())
        answer = {
            "candidates": [{"content": {"role": "model", "parts": [part]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": words,
                              "totalTokenCount": words + 1},
            "modelVersion": model,
        }  # fmt: skip
        if verb == "streamGenerateContent" and sse:
            self._send_events([f"data: {json.dumps(answer)}\r\n\r\n"])
        elif verb == "streamGenerateContent":
            self._send_json_list([answer])  # the stream without alt=sse is one JSON array
        else:
            self._send_json(200, answer)

    def _message(self, body: bytes, *, counting: bool) -> None:
        """The Anthropic Messages API (``POST /v1/messages``, and ``…/count_tokens``), the
        fourth form a CLI may speak: the text or one ``tool_use`` block in an assistant
        message, whole or as the stream of events that ends with message_stop."""
        if counting:
            self._record(body, 200)
            self._send_json(200, {"input_tokens": 1})
            return
        turn = self._turn(body, "messages", "msg")
        if turn is None:
            return
        request, text, call, mid, model = turn
        if text is not None:
            block: dict[str, Any] = {"type": "text", "text": text}
            start: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": text}
        else:
            block = {"type": "tool_use", "id": call["id"], "name": call["name"],
                     "input": call["arguments"]}  # fmt: skip
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(call["arguments"])}
        stop = "tool_use" if block["type"] == "tool_use" else "end_turn"
        words = len(self.server.reply.split())
        done = {"id": mid, "type": "message", "role": "assistant", "model": model,
                "content": [block], "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": words}}  # fmt: skip
        if request.get("stream") is not True:
            self._send_json(200, done)
            return
        opened = {**done, "content": [], "stop_reason": None,
                  "usage": {"input_tokens": 1, "output_tokens": 0}}  # fmt: skip
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": opened},
            {"type": "content_block_start", "index": 0, "content_block": start},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
             "usage": {"output_tokens": words}},
            {"type": "message_stop"},
        ]  # fmt: skip
        self._send_events([f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events])

    def _send_json_list(self, items: list[dict[str, Any]]) -> None:
        data = json.dumps(items).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_events(self, texts: list[str]) -> None:
        """Server-sent events, chunked on the wire."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for text in texts:
            data = text.encode("utf-8")
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_PUT(self) -> None:
        self._unknown()

    def do_DELETE(self) -> None:
        self._unknown()

    def _unknown(self) -> None:
        try:
            body = self._read_body() or b""
        except (ValueError, OSError):
            body = b""
        self._record(body, 404)
        self._error(404, f"no route for {self.command} {self.path}", "not_found")

    def _stream(self, model: str, usage: bool, call: dict[str, Any] | None = None) -> None:
        """The reply (or the tool call) as chat.completion.chunk events, chunked on the wire,
        then [DONE]."""
        cid, created = _completion_id(self.server), int(time.time())

        def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
            return {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        if call is None or "text" in call:
            reply = self.server.reply if call is None else str(call["text"])
            events: list[dict[str, Any]] = [
                chunk({"role": "assistant", "content": ""}, None),
                chunk({"content": reply}, None),
                chunk({}, "stop"),
            ]
        else:
            head = {"index": 0, "id": call["id"], "type": "function",
                    "function": {"name": call["name"], "arguments": ""}}  # fmt: skip
            body = {"index": 0, "function": {"arguments": json.dumps(call["arguments"])}}
            events = [
                chunk({"role": "assistant", "content": None, "tool_calls": [head]}, None),
                chunk({"tool_calls": [body]}, None),
                chunk({}, "tool_calls"),
            ]
        if usage:
            events.append({**chunk({}, None), "choices": [], "usage": _usage(self.server.reply)})
        self._send_events([f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"])


def _model(model_id: str = MODEL_ID) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": 0, "owned_by": "mcp-compare"}


def _usage(reply: str) -> dict[str, int]:
    words = len(reply.split())
    return {"prompt_tokens": 1, "completion_tokens": words, "total_tokens": words + 1}


def _completion(
    cid: str, model: str, reply: str, call: dict[str, Any] | None = None
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply}
    if call is not None and "text" in call:
        message = {"role": "assistant", "content": str(call["text"])}
    elif call is not None:
        function = {"name": call["name"], "arguments": json.dumps(call["arguments"])}
        asked = {"id": call["id"], "type": "function", "function": function}
        message = {"role": "assistant", "content": None, "tool_calls": [asked]}
    return {
        "id": cid,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if call is not None and "name" in call else "stop",
            }
        ],
        "usage": _usage(reply),
    }


def _parse_request(body: bytes, turns: str) -> dict[str, Any] | str:
    """The request as a mapping, or why it is refused: a JSON object whose ``turns`` member
    (``messages`` for chat, ``input`` for the Responses API, ``contents`` for Gemini's) is a
    list (or, for ``input``, a plain string, which that API also takes)."""
    try:
        request = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        return f"the body is not JSON: {err}"
    if not isinstance(request, dict):
        return "the body is not a JSON object"
    given = request.get(turns)
    if not isinstance(given, list) and not (turns == "input" and isinstance(given, str)):
        return f"'{turns}' must be a list"
    return request


class Endpoint:
    """A running endpoint: its base URL, how many requests it saw, and how to stop it."""

    def __init__(
        self,
        log_path: Path | None,
        port: int = 0,
        reply: str = REPLY,
        call: ToolCall | None = None,
        think_s: float = 0.0,
    ) -> None:
        self._log = _Log(log_path)
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            log_path.touch()
        self._server = _Server(port, self._log, reply, call, think_s)
        self.port = int(self._server.server_address[1])
        self.url = f"http://{HOST}:{self.port}/v1"
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"model-endpoint-{self.port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def requests(self) -> int:
        return self._log.count

    def stop(self) -> None:
        """Stop serving and close the listening socket (idempotent)."""
        self._server.stopping.set()
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()


@contextmanager
def serving(
    log_path: Path | None,
    port: int = 0,
    reply: str = REPLY,
    call: ToolCall | None = None,
    think_s: float = 0.0,
) -> Iterator[Endpoint]:
    """An endpoint for the length of a ``with`` block: a cell's, so it ends with the cell."""
    endpoint = Endpoint(log_path, port, reply, call, think_s)
    try:
        yield endpoint
    finally:
        endpoint.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--port", type=int, default=0, help="0 (default): a free port")
    parser.add_argument("--log", type=Path, help="append each request here as a JSON line")
    parser.add_argument("--reply", default=REPLY, help="the assistant text")
    args = parser.parse_args(argv)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    try:
        endpoint = Endpoint(args.log, args.port, args.reply)
    except OSError as err:
        print(f"model-endpoint: cannot listen on {HOST}:{args.port}: {err}", file=sys.stderr)
        return 1
    print(endpoint.url, flush=True)

    try:
        stop.wait()
    finally:
        endpoint.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
