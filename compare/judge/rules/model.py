"""What a client handed its model, read from the cell's stand-in model log.

A client that runs a model (an agent CLI) shows what it does with a tool's result only in its
next request to the model: the result is not sent to the MCP server, so the wire between
client and peer cannot show it. In a scenario whose model asks for a tool call, the endpoint
logs which request it answered with the call and the call's id; the client's later request
that carries a message for that id (or, for a call written in the reply's text, the messages
after that reply) is the result as the client passed it on.

- ``model-tool-result``: whether the client handed a result back for our call, and whether it
  holds the text ``contains``, in any case (a marker the peer put in one part of the tool's
  result: a text block, the structured content, an error's text; or a word such as "error"
  the result itself does not hold). ``not-offered``: no request offered the
  tool, so the model never asked; ``not-returned``: it asked, and no later request carried a
  result for that call. A client that never got past the handshake (it refused the cell's
  revision, or never started) reads as the handshake gate says, as every client rule does.
"""

from __future__ import annotations

import json
from typing import Any

from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, Param, rule, stopped_early


def _answer_to(entry: dict[str, Any], call: dict[str, Any]) -> Any:
    """What a logged request holds in answer to our call, or None: the message for the call's
    id (the OpenAI chat shape: role ``tool`` with ``tool_call_id``; the Anthropic API's: a
    ``tool_result`` block with its ``tool_use_id``, whole when it is flagged an error; the
    Responses API's:
    a ``function_call_output`` input item with its ``call_id``; the Gemini API's: a
    ``functionResponse`` part); for a call written in the reply's text, the content of every
    message after our reply that holds it."""
    body = entry.get("body")
    messages = body.get("messages") if isinstance(body, dict) else None
    messages = [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []
    for message in messages:
        if message.get("tool_call_id") == call.get("id"):
            return message.get("content")
        # the Anthropic Messages API: a tool_result block with the call's id; its error flag
        # is how that API tells the model a call failed, so a raised flag is part of the answer
        parts = message.get("content")
        for part in parts if isinstance(parts, list) else []:
            result = isinstance(part, dict) and part.get("type") == "tool_result"
            if result and part.get("tool_use_id") == call.get("id"):
                flagged = part.get("is_error") is True
                return {"is_error": True, **part} if flagged else part.get("content")
    # the Responses API: the input item that carries the call's output
    items = body.get("input") if isinstance(body, dict) else None
    for item in items if isinstance(items, list) else []:
        output = isinstance(item, dict) and item.get("type") == "function_call_output"
        if output and item.get("call_id") == call.get("id"):
            return item.get("output")
    # the Gemini API: a functionResponse part (with our id, or for a client that drops the id,
    # the function's name)
    for content in body.get("contents") or [] if isinstance(body, dict) else []:
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            answer = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(answer, dict):
                continue
            same = answer.get("id") == call.get("id") if answer.get("id") else None
            if same or (same is None and answer.get("name") == call.get("name")):
                return answer.get("response")
    written = call.get("text")
    if not isinstance(written, str):
        return None
    for i, message in enumerate(messages):
        if message.get("role") == "assistant" and written in _text(message.get("content")):
            after = [m.get("content") for m in messages[i + 1 :]]
            return after or None
    return None


def _text(content: Any) -> str:
    """A message's content as one text: a string as it is, a list of parts as their texts one
    a line (a part without text, and anything else, as JSON with its strings as written)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p["text"] if isinstance(p, dict) and isinstance(p.get("text"), str) else _text(p)
            for p in content
        )
    return json.dumps(content, ensure_ascii=False)


@rule(
    "model-tool-result",
    ("holds", "lacks", "not-returned", "not-offered", *EARLY),
    gate=stopped_early,
    params={"contains": Param("text", "the marker looked for in the result handed back",
                              required=True)},
)  # fmt: skip
def _model_tool_result(ctx: Context) -> Outcome:
    log = ctx.model_requests
    asked = next((e for e in log if isinstance(e.get("tool_call"), dict)), None)
    if asked is None:
        return Outcome(
            "not-offered", f"{len(log)} request(s) to the model; none offered the tool to call"
        )
    call = asked["tool_call"]
    call_id, number = str(call.get("id")), asked.get("n", 0)
    for entry in log:
        if not isinstance(entry.get("n"), int) or entry["n"] <= number:
            continue
        answer = _answer_to(entry, call)
        if answer is None:
            continue
        text = _text(answer)
        marker = str(ctx.params["contains"])
        shown = json.dumps(text[:200], ensure_ascii=False)
        named = call.get("name") or "the call written in our reply"
        where = f"model request {entry['n']}, the answer to {named} ({call_id})"
        if marker.casefold() in text.casefold():
            return Outcome("holds", f"{where} holds {marker}: {shown}")
        return Outcome("lacks", f"{where} lacks {marker}: {shown}")
    later = sum(1 for e in log if isinstance(e.get("n"), int) and e["n"] > number)
    return Outcome(
        "not-returned",
        f"the model asked for {call.get('name') or 'a tool'} ({call_id}) in request {number};"
        f" none of the {later} later request(s) carries a result for it",
    )
