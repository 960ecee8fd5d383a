"""The stand-in model endpoint (``compare/hosts/model_endpoint.py``) and the cell that serves it.

A client that needs a model provider to start is pointed at this endpoint instead of the
network; these tests show it answers what such a client asks (a model list, a completion in
both forms), refuses a bad body with a 400 rather than failing, logs every request in the
cell, and is gone once the cell ends.
"""

from __future__ import annotations

import json
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare._errors import CompareError
from compare.exchange._scenarios import load_scenarios
from compare.exchange._targets import parse_target
from compare.hosts import model_endpoint
from compare.play._cells import Cell
from compare.play._harness import MODEL_LOG, RunSettings, run_cells

from .fakes import FAKE_CLIENT


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _post(url: str, body: bytes) -> tuple[int, bytes, str]:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read(), answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers.get("Content-Type", "")


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def _refused(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) != 0


def test_it_answers_models_and_both_forms_of_completion(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with model_endpoint.serving(log) as endpoint:
        assert endpoint.url == f"http://127.0.0.1:{endpoint.port}/v1"
        status, models = _get(endpoint.url + "/models")
        assert status == 200 and models["data"][0]["id"] == model_endpoint.MODEL_ID

        chat = {"model": "any-name", "messages": [{"role": "user", "content": "hi"}]}
        status, raw, kind = _post(endpoint.url + "/chat/completions", json.dumps(chat).encode())
        plain = json.loads(raw)
        assert status == 200 and kind == "application/json"
        [choice] = plain["choices"]
        assert choice["message"] == {"role": "assistant", "content": model_endpoint.REPLY}
        assert choice["finish_reason"] == "stop" and "tool_calls" not in choice["message"]
        assert plain["model"] == "any-name"

        streamed = {**chat, "stream": True, "stream_options": {"include_usage": True}}
        status, raw, kind = _post(endpoint.url + "/chat/completions", json.dumps(streamed).encode())
        assert status == 200 and kind == "text/event-stream"
        events = [e for e in raw.decode().split("\n\n") if e]
        assert all(e.startswith("data: ") for e in events)
        assert events[-1] == "data: [DONE]"
        chunks = [json.loads(e[len("data: ") :]) for e in events[:-1]]
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
        assert text == model_endpoint.REPLY
        assert chunks[-1]["usage"]["total_tokens"] > 0
        assert endpoint.requests == 3
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(e["method"], e["path"], e["status"]) for e in entries] == [
        ("GET", "/v1/models", 200),
        ("POST", "/v1/chat/completions", 200),
        ("POST", "/v1/chat/completions", 200),
    ]
    assert entries[1]["body"] == chat and entries[2]["body"]["stream"] is True


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"{not json", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[1, 2]", "not a JSON object"),
        (b'{"model": "m"}', "'messages' must be a list"),
        (b"", "not JSON"),
    ],
)
def test_a_bad_body_is_a_400_and_is_logged(tmp_path: Path, body: bytes, why: str) -> None:
    log = tmp_path / "requests.jsonl"
    with model_endpoint.serving(log) as endpoint:
        status, raw, kind = _post(endpoint.url + "/chat/completions", body)
        # the endpoint is still serving after it
        assert _get(endpoint.url + "/models")[0] == 200
    assert status == 400 and kind == "application/json"
    assert why in json.loads(raw)["error"]["message"]
    first = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert first["status"] == 400 and ("body_raw" in first or "body" in first)


def test_an_unknown_path_is_a_json_404(tmp_path: Path) -> None:
    with model_endpoint.serving(tmp_path / "log.jsonl") as endpoint:
        status, answer = _get(endpoint.url + "/responses")
        posted, raw, _ = _post(endpoint.url + "/embeddings", b'{"input": "x"}')
    assert status == 404 and answer["error"]["type"] == "not_found"
    assert posted == 404 and json.loads(raw)["error"]["type"] == "not_found"


def test_model_url_needs_model_endpoint() -> None:
    data = {
        "id": "needs-model",
        "name": "needs a model",
        "kind": "command",
        "launch": {"argv": ["client", "--model", "{model_url}", "--", "{server_argv}"]},
        "ends": "self",
        "timeout_s": 5,
    }
    with pytest.raises(CompareError, match="serves no model"):
        parse_target(data, Path("needs-model.yaml"))
    assert parse_target({**data, "model_endpoint": True}, Path("needs-model.yaml")).model_endpoint


def test_a_bridge_to_the_model_needs_a_model_and_a_scenario_that_asks_needs_one(
    tmp_path: Path,
) -> None:
    """model_bridge only beside model_endpoint; a cell of a scenario whose model asks for a
    tool call is not run for a target that serves no model of ours."""
    data = {
        "id": "bridged",
        "name": "bridged",
        "kind": "command",
        "launch": {"argv": ["client", "--", "{server_argv}"]},
        "ends": "self",
        "timeout_s": 5,
        "model_bridge": {"function": "call", "name": "{tool}", "source": "x.js:1"},
    }
    with pytest.raises(CompareError, match="model_bridge: only beside model_endpoint"):
        parse_target(data, Path("bridged.yaml"))
    target = parse_target({**data, "model_endpoint": True}, Path("bridged.yaml"))
    assert target.model_bridge == data["model_bridge"]
    plain = parse_target({k: v for k, v in data.items() if k != "model_bridge"}, Path("p.yaml"))
    [scenario] = [s for s in load_scenarios() if s.id == "client-tool-error"]
    reason = Cell(plain, "default", scenario, "2025-11-25").not_run_reason()
    assert reason is not None and "asks no model of ours" in reason
    assert Cell(target, "default", scenario, "2025-11-25").not_run_reason() is None


#: A setup step standing in for a client's start-up call to its model: it asks the endpoint
#: the cell serves (through {model_url}) for a completion, and prints the URL it used.
ASK_MODEL = """
import json, sys, urllib.request
url = sys.argv[1]
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
with urllib.request.urlopen(urllib.request.Request(url + "/chat/completions", data=body)) as r:
    assert json.loads(r.read())["choices"][0]["message"]["content"]
print(url)
"""


def test_a_cell_serves_the_endpoint_logs_it_and_stops_it(tmp_path: Path) -> None:
    data = {
        "id": "fake-with-model",
        "name": "fake client with a model",
        "kind": "command",
        "model_endpoint": True,
        # braces doubled: a target's strings are templates
        "setup": [
            [sys.executable, "-c", ASK_MODEL.replace("{", "{{").replace("}", "}}"), "{model_url}"]
        ],
        "launch": {
            "argv": [sys.executable, str(FAKE_CLIENT), "--mode", "good", "--", "{server_argv}"]
        },
        "ends": "harness",
        "timeout_s": 20,
    }
    target = parse_target(data, Path("fake-with-model.yaml"))
    scenario = next(s for s in load_scenarios() if s.id == "handshake")
    cell = Cell(target, "default", scenario, "2025-11-25")
    settings = RunSettings(tmp_path / "results", "test-commit", revisions())
    [verdict] = run_cells([cell], settings)
    assert verdict["verdict"] == "pass", verdict["reason"]
    assert verdict["process"]["model_requests"] == 1
    folder = cell.folder(tmp_path / "results")
    [entry] = [json.loads(x) for x in (folder / MODEL_LOG).read_text("utf-8").splitlines()]
    assert entry["path"] == "/v1/chat/completions" and entry["body"]["messages"]
    url = (folder / "setup-0.stdout").read_text("utf-8").strip()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    # the endpoint ended with its cell: nothing listens on its port any more
    assert _refused(int(url.rsplit(":", 1)[1].split("/")[0]))


def test_a_client_that_hangs_up_or_sends_a_broken_chunk_leaves_it_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with model_endpoint.serving(tmp_path / "log.jsonl") as endpoint:
        # a body announced longer than what is sent, then the connection dropped
        with socket.create_connection(("127.0.0.1", endpoint.port), timeout=5) as sock:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        # a chunked body whose chunk size is not hexadecimal
        with socket.create_connection(("127.0.0.1", endpoint.port), timeout=5) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
            )
            status_line = sock.recv(64)
        assert _get(endpoint.url + "/models")[0] == 200
    assert status_line.startswith(b"HTTP/1.1 400 ")
    assert "Traceback" not in capsys.readouterr().err


def _tools(*names: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": n, "parameters": {}}} for n in names]


def _chat(url: str, body: dict[str, Any]) -> dict[str, Any]:
    status, raw, _kind = _post(url + "/chat/completions", json.dumps(body).encode())
    assert status == 200
    if not body.get("stream"):
        return dict(json.loads(raw)["choices"][0])
    # the streamed chunks put back together: the text, the calls, the finish reason
    events = [e for e in raw.decode().split("\n\n") if e]
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[len("data: ") :]) for e in events[:-1]]
    text, calls, finish = "", [], None
    for chunk in chunks:
        delta = chunk["choices"][0]["delta"]
        text += delta.get("content") or ""
        for part in delta.get("tool_calls") or []:
            if "id" in part:
                calls.append({**part, "function": dict(part["function"])})
            else:
                calls[part["index"]]["function"]["arguments"] += part["function"]["arguments"]
        finish = chunk["choices"][0]["finish_reason"] or finish
    message = {"content": text or None, "tool_calls": calls or None}
    return {"message": message, "finish_reason": finish}


@pytest.mark.parametrize("stream", [False, True])
def test_a_tool_call_is_asked_for_once_on_the_first_request_that_offers_the_tool(
    tmp_path: Path, stream: bool
) -> None:
    """A request that does not offer the tool gets the text; the first that offers it (under
    a client prefix) gets the call, plain or streamed; every later one the text again."""
    log = tmp_path / "requests.jsonl"
    call = model_endpoint.ToolCall("lookup", {"key": "alpha"})
    ask = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": stream}
    with model_endpoint.serving(log, call=call) as endpoint:
        plain = _chat(endpoint.url, {**ask, "tools": _tools("read_file")})
        assert plain["message"]["content"] == model_endpoint.REPLY
        asked = _chat(endpoint.url, {**ask, "tools": _tools("read_file", "mcp__peer__lookup")})
        assert asked["finish_reason"] == "tool_calls"
        [made] = asked["message"]["tool_calls"]
        assert made["function"]["name"] == "mcp__peer__lookup"
        assert json.loads(made["function"]["arguments"]) == {"key": "alpha"}
        again = _chat(endpoint.url, {**ask, "tools": _tools("mcp__peer__lookup")})
        assert again["message"]["content"] == model_endpoint.REPLY
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [e.get("tool_call") for e in entries] == [
        None,
        {"name": "mcp__peer__lookup", "arguments": {"key": "alpha"}, "id": made["id"]},
        None,
    ]


def test_a_name_that_only_ends_like_the_tool_is_not_the_tool() -> None:
    call = model_endpoint.ToolCall("look-up", {})
    assert call.function_for({"tools": _tools("deeplook-up", "look-ups")}) is None
    assert call.function_for({"tools": _tools("peer.look-up")}) == {
        "name": "peer.look-up",
        "arguments": {},
    }
    # a client that makes the name safe for its model, and offers it inside a namespace
    spaced = [{"type": "namespace", "name": "mcp__peer", "tools": [{"name": "look_up"}]}]
    assert call.function_for({"tools": spaced}) == {
        "name": "look_up",
        "arguments": {},
        "namespace": "mcp__peer",
    }


def test_a_bridge_function_carries_the_tool_in_the_clients_spelling() -> None:
    bridge = {"function": "tool_call", "name": "mcp__peer__{tool}", "arguments": "args"}
    call = model_endpoint.ToolCall("lookup", {"key": "alpha"}, bridge)
    listed = [{"role": "user", "content": "tools you may call: mcp__peer__lookup"}]
    assert call.function_for({"tools": _tools("tool_search"), "messages": listed}) is None
    # the bridge alone, with no word of the tool (the client never connected to the server)
    unlisted = {"tools": _tools("tool_search", "tool_call"), "messages": []}
    assert call.function_for(unlisted) is None
    assert call.function_for({**unlisted, "messages": listed}) == {
        "name": "tool_call",
        "arguments": {"name": "mcp__peer__lookup", "args": {"key": "alpha"}},
    }


@pytest.mark.parametrize("stream", [False, True])
def test_a_call_written_in_text_is_asked_once_the_prompt_names_the_tool(
    tmp_path: Path, stream: bool
) -> None:
    bridge = {"name": "peer.{tool}", "text": "```{name}\n{arguments}\n```\n"}
    call = model_endpoint.ToolCall("lookup", {"key": "alpha"}, bridge)
    ask = {"model": "m", "stream": stream}
    with model_endpoint.serving(tmp_path / "log.jsonl", call=call) as endpoint:
        first = _chat(endpoint.url, {**ask, "messages": [{"role": "user", "content": "hi"}]})
        assert first["message"]["content"] == model_endpoint.REPLY
        named = [{"role": "system", "content": [{"type": "text", "text": "## peer.lookup"}]}]
        asked = _chat(endpoint.url, {**ask, "messages": named})
        assert asked["message"]["content"] == '```peer.lookup\n{"key": "alpha"}\n```\n'
        assert asked["finish_reason"] == "stop"
        assert _chat(endpoint.url, {**ask, "messages": named})["message"]["content"] == (
            model_endpoint.REPLY
        )


@pytest.mark.parametrize("stream", [False, True])
def test_the_responses_api_answers_with_the_text_or_the_call_as_one_output_item(
    tmp_path: Path, stream: bool
) -> None:
    """The form Codex speaks: a tool offered inside a namespace, under the name the client
    made safe for its model, is called there; any other request gets the text."""
    call = model_endpoint.ToolCall("mcp-look-up", {"key": "alpha"})
    tools = [{"type": "namespace", "name": "mcp__peer", "tools": [{"name": "mcp_look_up"}]}]
    ask = {"model": "m", "input": [{"type": "message", "role": "user"}], "stream": stream}

    def respond(url: str, body: dict[str, Any]) -> dict[str, Any]:
        status, raw, kind = _post(url + "/responses", json.dumps(body).encode())
        assert status == 200
        if not stream:
            assert kind == "application/json"
            return dict(json.loads(raw))
        assert kind == "text/event-stream"
        events = [e for e in raw.decode().split("\n\n") if e]
        kinds = [e.split("\n", 1)[0] for e in events]
        assert kinds[0] == "event: response.created" and kinds[-1] == "event: response.completed"
        return dict(json.loads(events[-1].split("data: ", 1)[1])["response"])

    with model_endpoint.serving(tmp_path / "log.jsonl", call=call) as endpoint:
        [text] = respond(endpoint.url, ask)["output"]
        assert text["content"][0]["text"] == model_endpoint.REPLY
        [made] = respond(endpoint.url, {**ask, "tools": tools})["output"]
        assert (made["type"], made["name"], made["namespace"]) == (
            "function_call",
            "mcp_look_up",
            "mcp__peer",
        )
        assert json.loads(made["arguments"]) == {"key": "alpha"}
        status, raw, _ = _post(endpoint.url + "/responses", b'{"model": "m"}')
        assert status == 400 and "'input' must be a list" in json.loads(raw)["error"]["message"]


def test_a_thinking_model_takes_its_time_over_a_turns_text_only_and_a_stop_ends_it(
    tmp_path: Path,
) -> None:
    import threading
    import time

    call = model_endpoint.ToolCall("lookup", {})
    ask = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with model_endpoint.serving(tmp_path / "log.jsonl", call=call, think_s=1.0) as endpoint:
        started = time.monotonic()
        assert _chat(endpoint.url, {**ask, "tools": _tools("lookup")})["finish_reason"] == (
            "tool_calls"
        )
        assert time.monotonic() - started < 0.9
        started = time.monotonic()
        assert _chat(endpoint.url, ask)["message"]["content"] == model_endpoint.REPLY
        assert time.monotonic() - started < 0.9  # a side request (no tools): at once
        started = time.monotonic()
        turn = {**ask, "tools": _tools("read_file")}
        assert _chat(endpoint.url, turn)["message"]["content"] == model_endpoint.REPLY
        assert time.monotonic() - started >= 1.0
    slow = model_endpoint.Endpoint(tmp_path / "slow.jsonl", think_s=30.0)
    answers: list[Any] = []
    turn = {**ask, "tools": _tools("read_file")}
    asking = threading.Thread(target=lambda: answers.append(_post(
        slow.url + "/chat/completions", json.dumps(turn).encode())))  # fmt: skip
    asking.start()
    while slow.requests == 0:
        time.sleep(0.05)
    started = time.monotonic()
    slow.stop()  # ends the thinking at once: the cell's end is never held up
    asking.join(timeout=10)
    assert time.monotonic() - started < 10 and not asking.is_alive()


def test_the_gemini_api_answers_with_the_text_the_call_or_the_json_a_side_request_asks_for(
    tmp_path: Path,
) -> None:
    """The form Gemini CLI speaks (under the base URL it is given, /v1 here): a function
    declared among the request's tools is called with a functionCall part; a request that
    asks for JSON (its routing choice) gets the smallest value of the schema it names."""
    call = model_endpoint.ToolCall("mcp-look-up", {"key": "alpha"})
    hi = [{"role": "user", "parts": [{"text": "hi"}]}]
    declared = [{"functionDeclarations": [{"name": "mcp_peer_mcp-look-up"}]}]
    schema = {"type": "OBJECT", "required": ["score", "why"],
              "properties": {"score": {"type": "INTEGER"}, "why": {"type": "STRING"}}}  # fmt: skip
    routing = {"responseMimeType": "application/json", "responseJsonSchema": schema}
    with model_endpoint.serving(tmp_path / "log.jsonl", call=call) as endpoint:
        base = endpoint.url + "/v1beta/models/mcpc-fixed"

        def generate(verb: str, body: dict[str, Any]) -> Any:
            status, raw, kind = _post(base + verb, json.dumps(body).encode())
            assert status == 200
            if kind == "text/event-stream":
                [event] = [e for e in raw.decode().split("\r\n\r\n") if e]
                return json.loads(event.split("data: ", 1)[1])
            return json.loads(raw)

        chosen = generate(":generateContent", {"contents": hi, "generationConfig": routing})
        text = chosen["candidates"][0]["content"]["parts"][0]["text"]
        assert json.loads(text) == {"score": 1, "why": "mcp-compare"}
        asked = generate(":streamGenerateContent?alt=sse", {"contents": hi, "tools": declared})
        [part] = asked["candidates"][0]["content"]["parts"]
        assert part["functionCall"]["name"] == "mcp_peer_mcp-look-up"
        assert part["functionCall"]["args"] == {"key": "alpha"}
        assert generate(":countTokens", {"contents": hi}) == {"totalTokens": 1}
        [answer] = generate(":streamGenerateContent", {"contents": hi})
        assert answer["candidates"][0]["content"]["parts"][0]["text"] == model_endpoint.REPLY
        status, raw, _ = _post(base + ":generateContent", b'{"contents": {}}')
        assert status == 400 and "'contents' must be a list" in raw.decode()


@pytest.mark.parametrize("stream", [False, True])
def test_the_messages_api_answers_with_the_text_or_the_call_as_one_content_block(
    tmp_path: Path, stream: bool
) -> None:
    """The form Claude Code speaks (under the base URL it is given, /v1 here, with its
    ?beta=true): a tool among the request's tools is called with a tool_use block, whose
    input the stream sends as one JSON delta; any other request gets the text."""
    call = model_endpoint.ToolCall("mcp-look-up", {"key": "alpha"})
    hi = [{"role": "user", "content": "hi"}]
    tools = [{"name": "mcp__peer__mcp-look-up", "input_schema": {"type": "object"}}]

    def message(url: str, body: dict[str, Any]) -> dict[str, Any]:
        status, raw, kind = _post(url + "/v1/messages?beta=true", json.dumps(body).encode())
        assert status == 200
        if not stream:
            assert kind == "application/json"
            return dict(json.loads(raw))
        assert kind == "text/event-stream"
        events = [json.loads(e.split("data: ", 1)[1]) for e in raw.decode().split("\n\n") if e]
        kinds = [e["type"] for e in events]
        assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
        made = dict(events[0]["message"])
        block = dict(events[1]["content_block"])
        delta = events[2]["delta"]
        if block["type"] == "text":
            block["text"] += delta["text"]
        else:
            block["input"] = json.loads(delta["partial_json"])
        return {**made, "content": [block], "stop_reason": events[4]["delta"]["stop_reason"]}

    ask = {"model": "m", "max_tokens": 10, "messages": hi, "stream": stream}
    with model_endpoint.serving(tmp_path / "log.jsonl", call=call) as endpoint:
        text = message(endpoint.url, ask)
        assert text["content"] == [{"type": "text", "text": model_endpoint.REPLY}]
        assert text["stop_reason"] == "end_turn"
        made = message(endpoint.url, {**ask, "tools": tools})
        [block] = made["content"]
        assert (block["type"], block["name"], block["input"]) == (
            "tool_use",
            "mcp__peer__mcp-look-up",
            {"key": "alpha"},
        )
        assert made["stop_reason"] == "tool_use" and block["id"].startswith("call_mcpc_")
        counted = _post(endpoint.url + "/v1/messages/count_tokens", json.dumps(ask).encode())
        assert counted[0] == 200 and json.loads(counted[1]) == {"input_tokens": 1}
        status, raw, _ = _post(endpoint.url + "/v1/messages", b'{"messages": "hi"}')
        assert status == 400 and "'messages' must be a list" in raw.decode()
