"""How the scripted client speaks a revision past the ``initialize`` era (2026-07-28 on).

Kept apart from ``_play`` so that the legacy play stays as it was and this era's rules sit in
one place. What the 2026-07-28 pages ask of a client, and so what is done here:

- there is no handshake: the client may send ``server/discover`` first, and a client that
  only speaks the modern era is recommended to (stdio transport, "Backward Compatibility"),
  so the opening step is that probe, labelled ``discover``;
- every request carries ``_meta`` with the protocol version, the client's capabilities and
  (recommended) its identity (basic page, "Per-request protocol fields");
- a server asks for input (roots, an elicitation, a sampling) by answering ``tools/call``
  with an ``InputRequiredResult`` whose ``inputRequests`` hold the requests; the client
  retries the same call with a new id, ``inputResponses`` under the same keys (each answered
  as ``_features.answer`` answers a plain request, leaving out what the plan does not
  declare) and ``requestState`` echoed exactly (MRTR page). Both legs are recorded: the
  first as the plan's step, the retry as a step of its own labelled ``<label>:retry``;
- a client never writes a JSON-RPC response at this revision, so a request the server sends
  anyway is recorded and left unanswered; there is no ``notifications/roots/list_changed``
  either, so changing roots sends nothing.

The era boundary is the plan's ``first_modern`` (from the pins), read through the peer's one
era test.
"""

from __future__ import annotations

from .._era import META_VERSION, is_modern
from . import _features

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
#: The opening step's label at this era (the legacy one is ``initialize``).
DISCOVER = "discover"


def plays_modern(plan: dict[str, Any]) -> bool:
    """Whether the plan's revision is past the handshake era, by the pins' boundary."""
    return is_modern(plan.get("revision"), plan["first_modern"])


def capabilities(plan: dict[str, Any]) -> dict[str, Any]:
    """The capabilities declared per request. 2026-07-28's ``roots`` capability is an empty
    object (no ``listChanged``: the notification no longer exists), so a declared roots
    capability is sent as ``{}``."""
    caps = _features.declared(plan.get("features") or {})
    if "roots" in caps:
        caps["roots"] = {}
    return caps


def meta(plan: dict[str, Any]) -> dict[str, Any]:
    """The request metadata every modern request carries."""
    return {
        META_VERSION: plan.get("wire_version", plan["revision"]),
        META_CAPABILITIES: capabilities(plan),
        META_CLIENT_INFO: plan.get("client_info") or {"name": "mcp-compare-client", "version": "0"},
    }


def with_meta(
    params: dict[str, Any] | None, plan: dict[str, Any], patch: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``params`` with the request metadata merged into its ``_meta`` (the plan's wins), then
    a step's ``meta`` over it: a key set to null is left out (a request missing a required
    field, on purpose)."""
    out = dict(params or {})
    given = out.get("_meta")
    merged = {**(given if isinstance(given, dict) else {}), **meta(plan)}
    for key, value in (patch or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    out["_meta"] = merged
    return out


def discover(client: Any) -> str | None:
    """The opening probe: ``server/discover``; returns why the server is not modern, or None.

    A result is a modern server; an error or silence is not (the probe's outcomes in the
    stdio transport's "Backward Compatibility"). The step note says which, for the judge.
    """
    timeout = float(client.plan.get("init_timeout_s", 10))
    client.tx.note(event="step", index=-1, step={"request": "server/discover", "label": DISCOVER})
    rid, got = client.call("server/discover", None, timeout)
    outcome = "timeout" if got is None else ("ok" if "result" in got[1] else "error")
    client.tx.note(
        event="step-done", index=-1, label=DISCOVER, outcome=outcome, id=rid,
        evidence=got and got[0],
    )  # fmt: skip
    if outcome == "ok":
        return None
    if outcome == "error":
        return "the server answered server/discover with an error (not a 2026-07-28 server)"
    if client.closed:
        return "the server closed its stdout before answering server/discover"
    return f"no answer to server/discover within {timeout:g} s"


def answerable(result: dict[str, Any]) -> list[str]:
    """The keys of an InputRequiredResult's ``inputRequests`` whose request is one we know an
    answer for (``_features.ANSWERS``), declared or not."""
    asked = result.get("inputRequests")
    if not isinstance(asked, dict):
        return []
    return [
        k
        for k, v in asked.items()
        if isinstance(v, dict) and isinstance(v.get("method"), str)
        and v["method"] in _features.ANSWERS
    ]  # fmt: skip


def call_tool(
    client: Any,
    params: dict[str, Any],
    timeout: float,
    label: str,
    record: dict[str, Any],
    meta: dict[str, Any] | None = None,
) -> None:
    """``tools/call``; when the answer is an InputRequiredResult asking for input the plan's
    features answer, the retry with those answers as its input responses, recorded as its
    own step. Asked input whose feature is not declared is left out; with none left, no retry.
    """
    rid, got = client.call("tools/call", params, timeout, meta)
    record.update(outcome="ok" if got else "timeout", id=rid, evidence=got and got[0])
    result = got[1].get("result") if got else None
    if not isinstance(result, dict) or result.get("resultType") != "input_required":
        return
    keys = answerable(result)
    record["input_required"] = keys
    asked = result["inputRequests"]
    responses: dict[str, Any] = {}
    for key in keys:
        value = _features.answer(client.features, client.roots, asked[key]["method"])
        if value is not None:
            responses[key] = value
    if not responses:
        # Nothing we can answer: nothing known asked, or asked of a feature not declared.
        return
    retry = f"{label}:retry"
    again = dict(params)
    again["inputResponses"] = responses
    if "requestState" in result:
        again["requestState"] = result["requestState"]
    index = record["index"]
    client.tx.note(event="step", index=index, step={"retry": "tools/call", "label": retry})
    rid2, got2 = client.call("tools/call", again, timeout, meta)
    client.tx.note(
        event="step-done", index=index, label=retry, outcome="ok" if got2 else "timeout",
        id=rid2, evidence=got2 and got2[0],
    )  # fmt: skip
    record["retry"] = {"id": rid2, "evidence": got2 and got2[0]}
