"""The relay rules for progress, cancellation and ``_meta`` on crafted proxy recordings: every
outcome reachable, each from the exchange that shows it.

The recordings are written as the two scripted ends write theirs and merged by the harness's
``merge_legs`` (``tests/judge/_legs.py``). The host's call here carries ``_meta`` and may be
cancelled, which the shared builder does not write, so the lines are spelled out below.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compare.judge.rules import RULES, Outcome

from ._legs import CALL_RESULT, Legs

Build = Callable[[], Legs]
TOKEN = "mcp-compare-relay-1"
TRACE = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
HOST_META: dict[str, Any] = {
    "com.example.mcp-compare/session": "s1",
    "traceparent": TRACE,
    "progressToken": TOKEN,
}


def _call(legs: Legs, t: float, meta: dict[str, Any] | None = None, hid: int = 11) -> Legs:
    """Our host's tools/call, sent without waiting (its step is done at once, as a
    ``wait: false`` step's is), with ``meta`` in its params."""
    params: dict[str, Any] = {"name": "probe", "arguments": {}}
    if meta is not None:
        params["_meta"] = meta
    legs.note(None, t, event="step", index=1, step={"tool_call": [{"name": "probe"}],
                                                    "label": "call"})  # fmt: skip
    legs.line(None, t, "out", {"jsonrpc": "2.0", "id": hid, "method": "tools/call",
                               "params": params})  # fmt: skip
    legs.note(None, t, event="step-done", index=1, label="call", outcome="sent", id=hid)
    return legs


def _up_call(legs: Legs, t: float, meta: dict[str, Any] | None = None, rid: int = 21) -> Legs:
    """The call as the proxy forwards it on upstream connection 1."""
    params: dict[str, Any] = {"name": "probe", "arguments": {}}
    if meta is not None:
        params["_meta"] = meta
    legs.line(1, t, "in", {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                           "params": params})  # fmt: skip
    return legs


def _forwarded(host: dict[str, Any] | None, up: dict[str, Any] | None) -> Legs:
    """Handshake done, the host calls with ``host`` as _meta, the proxy forwards the call with
    ``up`` as _meta."""
    legs = Legs().handshake().upstream(1, 0.2).forwarded(1, 0.6)
    return _up_call(_call(legs, 0.9, host), 0.95, up)


def _not_forwarded(meta: dict[str, Any]) -> Legs:
    return _call(Legs().handshake().upstream(1, 0.2), 0.9, meta)


def _cancel(legs: Legs, t: float = 2.0, hid: int = 11) -> Legs:
    """The host cancels its call, then watches until t + 3 (its last step ends there)."""
    params = {"requestId": hid, "reason": "mcp-compare: the host no longer needs the answer"}
    legs.note(None, t, event="step", index=3, step={"cancel": "call", "label": "cancel"})
    legs.line(None, t, "out", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": params})  # fmt: skip
    legs.note(None, t, event="step-done", index=3, label="cancel", outcome="ok")
    legs.note(None, t + 3.0, event="step-done", index=4, label=None, outcome="ok")
    return legs


def _up_cancel(legs: Legs, t: float = 2.01, rid: int = 21) -> Legs:
    """The proxy's cancellation on upstream connection 1, naming ``rid``."""
    legs.line(1, t, "in", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": rid, "reason": "caller cancelled"}})  # fmt: skip
    return legs


def _held() -> Legs:
    """The host's call forwarded and held upstream, then cancelled by the host."""
    return _cancel(_forwarded(None, None))


def _late(legs: Legs, t: float = 2.2) -> Legs:
    """The upstream answers anyway, and the proxy hands that answer to the host."""
    return legs.up_call_reply(1, t).call_reply(t + 0.01)


def _proxy_gone(legs: Legs, t: float) -> Legs:
    """The proxy's output to the host ends (the scripted client notes it so)."""
    legs.note(None, t, event="server-closed")
    return legs


def _bridged(legs: Legs) -> Legs:
    """The same exchange through a bridge that forwards the host's own session: the host's
    initialize reaches the upstream with the host's client name (the bridge's added after it),
    capabilities and version, and the upstream's result (its server name) reaches the host."""
    for entries in legs.files.values():
        for _t, direction, obj in entries:
            if direction == "note" or not isinstance(obj, dict):
                continue
            if obj.get("method") == "initialize":
                obj["params"] = {**obj["params"], "protocolVersion": "2025-11-25"}
                name = "host" if direction == "out" and obj["id"] == 1 else "host (via bridge)"
                obj["params"]["clientInfo"] = {"name": name, "version": "1"}
            elif obj.get("result") == {} and obj.get("id") in (0, 1):
                obj["result"] = {"serverInfo": {"name": "peer", "version": "1"}}
    return legs


UP_ERROR = {"code": -32603, "message": "upstream failed", "data": {"marker": "m"}}


def _refused(host_reply: dict[str, Any] | None, up: bool = True) -> Legs:
    """The host's call, forwarded (``up``) and refused upstream with :data:`UP_ERROR`; the
    host gets ``host_reply`` (an error or a result member), or nothing."""
    legs = _forwarded(None, None) if up else _not_forwarded({})
    if up:
        legs.line(1, 1.0, "out", {"jsonrpc": "2.0", "id": 21, "error": UP_ERROR})
    if host_reply is not None:
        legs.line(None, 1.1, "in", {"jsonrpc": "2.0", "id": 11, **host_reply})
    return legs


CASES: dict[tuple[str, str], Build] = {
    # relay-error
    ("relay-error", "unchanged"): lambda: _refused({"error": dict(UP_ERROR)}),
    ("relay-error", "changed"): lambda: _refused({"error": {**UP_ERROR, "data": None}}),
    ("relay-error", "result-instead"): lambda: _refused(
        {"result": {"content": [{"type": "text", "text": "upstream failed"}], "isError": True}}
    ),
    ("relay-error", "not-answered"): lambda: _refused(None),
    ("relay-error", "not-forwarded"): lambda: _refused({"error": dict(UP_ERROR)}, up=False),
    ("relay-error", "not-sent"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-error", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-progress-token
    ("relay-progress-token", "same-token"): lambda: _forwarded(
        {"progressToken": TOKEN}, {"progressToken": TOKEN}
    ),
    ("relay-progress-token", "own-token"): lambda: _forwarded(
        {"progressToken": TOKEN}, {"progressToken": 3}
    ),
    ("relay-progress-token", "no-token"): lambda: _forwarded({"progressToken": TOKEN}, None),
    ("relay-progress-token", "not-called"): lambda: _forwarded(None, None),
    ("relay-progress-token", "call-not-forwarded"): lambda: _not_forwarded(
        {"progressToken": TOKEN}
    ),
    ("relay-progress-token", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-meta-keys
    ("relay-meta-keys", "unchanged"): lambda: _forwarded(HOST_META, dict(HOST_META)),
    ("relay-meta-keys", "changed"): lambda: _forwarded(
        HOST_META, {**HOST_META, "progressToken": 2}
    ),
    ("relay-meta-keys", "dropped"): lambda: _forwarded(HOST_META, {"progressToken": 2}),
    ("relay-meta-keys", "none-kept"): lambda: _forwarded(HOST_META, None),
    ("relay-meta-keys", "not-called"): lambda: _forwarded(None, None),
    ("relay-meta-keys", "call-not-forwarded"): lambda: _not_forwarded(HOST_META),
    ("relay-meta-keys", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-cancel-forwarded
    ("relay-cancel-forwarded", "forwarded"): lambda: _up_cancel(_held()),
    ("relay-cancel-forwarded", "other-id"): lambda: _up_cancel(_held(), rid=11),
    ("relay-cancel-forwarded", "closed-instead"): lambda: _held().closed(1, 2.5),
    ("relay-cancel-forwarded", "not-forwarded"): _held,
    ("relay-cancel-forwarded", "answered-first"): lambda: _cancel(
        _late(_forwarded(None, None), t=1.5)
    ),
    ("relay-cancel-forwarded", "not-cancelled"): lambda: _forwarded(None, None),
    ("relay-cancel-forwarded", "not-called"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-cancel-forwarded", "call-not-forwarded"): lambda: _cancel(_not_forwarded({})),
    ("relay-cancel-forwarded", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-cancel-answer
    ("relay-cancel-answer", "no-response"): lambda: _up_cancel(_held()),
    ("relay-cancel-answer", "answered"): lambda: _late(_held()),
    ("relay-cancel-answer", "forwarded-session"): lambda: _bridged(_late(_up_cancel(_held()))),
    ("relay-cancel-answer", "closed"): lambda: _proxy_gone(_held(), 2.5),
    ("relay-cancel-answer", "answered-first"): lambda: _cancel(
        _late(_forwarded(None, None), t=1.5)
    ),
    ("relay-cancel-answer", "not-cancelled"): lambda: _forwarded(None, None),
    ("relay-cancel-answer", "not-called"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-cancel-answer", "no-initialize"): lambda: Legs().handshake(ok=False),
}


#: The ``with:`` of the shipped check, for the rules that take one.
PARAMS: dict[str, dict[str, Any]] = {"relay-error": {"method": "tools/call"}}


def _judge(tmp_path: Path, rule: str, build: Build) -> Outcome:
    ctx = build().context(tmp_path)
    ctx.params = PARAMS.get(rule, {})
    return RULES[rule].fn(ctx)


@pytest.mark.parametrize(("rule", "outcome"), list(CASES), ids=lambda x: str(x))
def test_outcome_reached(tmp_path: Path, rule: str, outcome: str) -> None:
    got = _judge(tmp_path, rule, CASES[(rule, outcome)])
    assert got.name == outcome, got.observed


@pytest.mark.parametrize("rule", sorted({r for r, _ in CASES}))
def test_every_outcome_has_a_case(rule: str) -> None:
    assert {o for r, o in CASES if r == rule} == set(RULES[rule].outcomes)


def test_meta_keys_are_named_one_by_one(tmp_path: Path) -> None:
    """A reader learns which key survived the hop, not only that something changed."""
    up = {"traceparent": TRACE, "progressToken": 2, "io.example/added": True}
    got = _judge(tmp_path, "relay-meta-keys", lambda: _forwarded(HOST_META, up))
    assert got.name == "dropped"
    assert "kept: traceparent" in got.observed
    assert "changed: progressToken arrived as 2" in got.observed
    assert "dropped: com.example.mcp-compare/session" in got.observed
    assert "added by the proxy: io.example/added" in got.observed


def test_a_string_token_and_the_same_digits_as_an_integer_differ(tmp_path: Path) -> None:
    """A token is a string or an integer: "3" and 3 name different requests."""
    got = _judge(
        tmp_path,
        "relay-progress-token",
        lambda: _forwarded({"progressToken": "3"}, {"progressToken": 3}),
    )
    assert got.name == "own-token", got.observed


def test_a_late_answer_through_a_bridge_that_dropped_the_cancel_is_the_bridges(
    tmp_path: Path,
) -> None:
    """The bridge exemption holds only when the cancel reached the upstream: a bridge that
    kept the cancel back and passed the upstream's answer on sent the host that response."""
    got = _judge(tmp_path, "relay-cancel-answer", lambda: _bridged(_late(_held())))
    assert got.name == "answered", got.observed
    assert "a result for it came" in got.observed


def test_the_proxys_own_error_after_a_cancel_is_an_answer(tmp_path: Path) -> None:
    """An SDK that answers a cancelled request with an error ("Request cancelled") still sends
    the host a response for it."""
    got = _judge(tmp_path, "relay-cancel-answer", lambda: _held().call_reply(2.01, error=True))
    assert got.name == "answered" and "an error for it came" in got.observed


def test_cancel_evidence_is_the_cancel_on_each_leg(tmp_path: Path) -> None:
    ctx = _up_cancel(_held()).context(tmp_path)
    got = RULES["relay-cancel-forwarded"].fn(ctx)
    lines = [ctx.tx.by_n(n) for n in got.evidence]
    assert [(x.leg, x.dir, x.method) for x in lines if x] == [
        ("host", "out", "notifications/cancelled"),
        ("upstream", "in", "tools/call"),
        ("upstream", "in", "notifications/cancelled"),
    ]
    assert 'reason "caller cancelled"' in got.observed


def test_a_call_result_is_what_the_upstream_sent(tmp_path: Path) -> None:
    """The builder's late answer is the upstream's result, passed on unchanged."""
    ctx = _late(_held()).context(tmp_path)
    replies = [x for x in ctx.tx.lines if x.is_response and x.obj.get("result") == CALL_RESULT]
    assert [x.leg for x in replies] == ["upstream", "host"]
