"""Each relay rule on crafted proxy recordings: every outcome reachable, with its evidence.

The recordings are written as the two scripted ends write theirs and merged by the harness's
``merge_legs`` (``tests/judge/_legs.py``), so these tests also read what the merge makes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compare.judge.rules import RULES, Outcome
from compare.judge.rules.relay import main_conn

from ._legs import APP, OTHER, Legs

Build = Callable[[], Legs]


def _asked(host_caps: dict[str, bool] | None = None, up_roots: object = "same") -> Legs:
    """Handshake done, one upstream connection (declaring like the host unless told), which
    asked once right after its handshake (answered with an error) and again inside the host's
    forwarded tools/call, whose reply it holds."""
    caps = {"listChanged": True} if host_caps is None else host_caps
    legs = Legs(caps).handshake()
    legs.upstream(1, 0.2, caps if up_roots == "same" else up_roots)  # type: ignore[arg-type]
    legs.ask(1, 0.23, rid=1, label="unsolicited-ask").answer(1, 0.24, rid=1, error=True)
    legs.forwarded(1, 0.6)
    return legs.call(0.9).up_call(1, 0.95).ask(1, 1.0, rid=2)


def _undeclared_host() -> Legs:
    legs = Legs(None).handshake()
    legs.upstream(1, 0.2, None).forwarded(1, 0.6)
    return legs.call(0.9).up_call(1, 0.95).ask(1, 1.0, rid=2)


def _answered(legs: Legs, t: float = 1.03, hid: int = 11, rid: int = 21) -> Legs:
    """The upstream releases its reply to the call and the proxy passes it to the host."""
    return legs.up_call_reply(1, t, rid=rid).call_reply(t + 0.01, hid=hid)


def _again(legs: Legs, t: float = 6.0) -> Legs:
    """After the host's change, its second call reaches the upstream, which asks inside it."""
    legs.host_changed(t - 1.0)
    return (
        legs.call(t - 0.1, hid=12, label="call-again")
        .up_call(1, t - 0.05, rid=22)
        .ask(1, t, rid=3, label="ask-again")
    )


def _unsolicited(relay: bool = False, **answer: object) -> Legs:
    legs = Legs().handshake().upstream(1, 0.2).ask(1, 0.23, rid=1, label="unsolicited-ask")
    if relay:
        legs.relay(0.6)
    if answer:
        legs.answer(1, 0.7, rid=1, **answer)  # type: ignore[arg-type]
    return legs


def _bridged(legs: Legs, client: str = "host (via bridge)") -> Legs:
    """The same exchange through a bridge that forwards the host's session: the host's
    initialize reaches the upstream with the host's client name (``client``), capabilities and
    version, and the upstream's result (its server name) reaches the host."""
    for entries in legs.files.values():
        for _t, direction, obj in entries:
            if direction == "note" or not isinstance(obj, dict):
                continue
            if obj.get("method") == "initialize":
                obj["params"] = {**obj["params"], "protocolVersion": "2025-11-25"}
                name = "host" if direction == "out" and obj["id"] == 1 else client
                obj["params"]["clientInfo"] = {"name": name, "version": "1"}
            elif obj.get("result") == {} and obj.get("id") in (0, 1):
                obj["result"] = {"serverInfo": {"name": "peer", "version": "1"}}
    return legs


def _partly_undeclared() -> Legs:
    """Two in-call asks of a host without roots: the first not relayed, the second relayed."""
    return (
        _answered(_undeclared_host().step_done(1, 7.0, "ask", "timeout", rid=2), t=7.01)
        .call(8.0, hid=12, label="call-again")
        .up_call(1, 8.05, rid=22)
        .ask(1, 8.1, rid=3, label="ask-again")
        .relay(8.11)
        .answer(1, 8.12, rid=3, error=True)
    )


CASES: dict[tuple[str, str], Build] = {
    # relay-asks
    ("relay-asks", "relayed"): lambda: _asked().relay(1.01).answer(1, 1.02, rid=2),
    ("relay-asks", "partly-relayed"): lambda: (
        _answered(_asked().step_done(1, 7.0, "ask", "timeout", rid=2), t=7.01)
        .call(8.0, hid=12, label="call-again")
        .up_call(1, 8.05, rid=22)
        .ask(1, 8.1, rid=3, label="ask-again")
        .relay(8.11)
        .answer(1, 8.12, rid=3)
    ),
    ("relay-asks", "prefetched"): lambda: _asked().relay(0.55).answer(1, 1.02, rid=2),
    ("relay-asks", "not-relayed"): lambda: _asked().answer(1, 1.02, rid=2, error=True),
    ("relay-asks", "upstream-not-asked"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-asks", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-asks-undeclared: relay-asks, and a bridge that forwards its host's own session
    ("relay-asks-undeclared", "relayed"): lambda: (
        _undeclared_host().relay(1.01).answer(1, 1.02, rid=2, error=True)
    ),
    ("relay-asks-undeclared", "forwarded-session"): lambda: _bridged(
        _undeclared_host().relay(1.01).answer(1, 1.02, rid=2, error=True)
    ),
    ("relay-asks-undeclared", "partly-relayed"): _partly_undeclared,
    ("relay-asks-undeclared", "prefetched"): lambda: (
        _undeclared_host().relay(0.55).answer(1, 1.02, rid=2, error=True)
    ),
    ("relay-asks-undeclared", "not-relayed"): lambda: _undeclared_host().answer(
        1, 1.02, rid=2, error=True
    ),
    ("relay-asks-undeclared", "upstream-not-asked"): lambda: (
        Legs(None).handshake().upstream(1, 0.2, None)
    ),
    ("relay-asks-undeclared", "no-initialize"): lambda: Legs(None).handshake(ok=False),
    # relay-answer
    ("relay-answer", "unchanged"): lambda: _asked().relay(1.01).answer(1, 1.02, rid=2),
    ("relay-answer", "uris-changed"): lambda: (
        _asked()
        .relay(1.01)
        .answer(1, 1.02, rid=2, roots=[{"uri": APP.replace("%20", " "), "name": "app"}])
    ),
    ("relay-answer", "other-changed"): lambda: (
        _asked().relay(1.01).answer(1, 1.02, rid=2, roots=[{"uri": APP}])
    ),
    ("relay-answer", "answered-by-proxy"): lambda: _asked().answer(1, 1.02, rid=2),
    ("relay-answer", "error"): lambda: _asked().answer(1, 1.02, rid=2, error=True),
    ("relay-answer", "no-answer"): lambda: _asked().step_done(1, 7.0, "ask", "timeout", rid=2),
    ("relay-answer", "upstream-not-asked"): lambda: Legs().handshake(),
    ("relay-answer", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-upstream-reply
    ("relay-upstream-reply", "result-declared"): lambda: (
        _asked().relay(1.01).answer(1, 1.02, rid=2)
    ),
    ("relay-upstream-reply", "error-declared"): lambda: _asked().answer(1, 1.02, rid=2, error=True),
    ("relay-upstream-reply", "result-undeclared"): lambda: _undeclared_host().answer(
        1, 1.02, rid=2
    ),
    ("relay-upstream-reply", "error-undeclared"): lambda: _undeclared_host().answer(
        1, 1.02, rid=2, error=True
    ),
    ("relay-upstream-reply", "silence"): lambda: _asked().step_done(
        1, 7.0, "ask", "timeout", rid=2
    ),
    ("relay-upstream-reply", "closed"): lambda: (
        _asked().closed(1, 2.0).step_done(1, 2.0, "ask", "timeout", rid=2)
    ),
    ("relay-upstream-reply", "upstream-not-asked"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-upstream-reply", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-declares
    ("relay-declares", "same-as-host"): lambda: _asked(),
    ("relay-declares", "declared-without-host"): lambda: (
        Legs(None).handshake().upstream(1, 0.2, {"listChanged": True})
    ),
    ("relay-declares", "not-declared"): lambda: _asked(up_roots=None),
    ("relay-declares", "list-changed-differs"): lambda: _asked(up_roots={}),
    ("relay-declares", "upstream-not-connected"): lambda: Legs().handshake(),
    ("relay-declares", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-list-changed
    ("relay-list-changed", "passed"): lambda: (
        _asked().relay(1.01).host_changed(5.0).passed(1, 5.01)
    ),
    ("relay-list-changed", "passed-undeclared"): lambda: (
        _asked(up_roots={}).host_changed(5.0).passed(1, 5.01)
    ),
    ("relay-list-changed", "not-passed-declared"): lambda: _answered(
        _asked().relay(1.01).answer(1, 1.02, rid=2)
    ).host_changed(5.0),
    ("relay-list-changed", "not-passed"): lambda: (
        _asked().answer(1, 1.02, rid=2, error=True).host_changed(5.0)
    ),
    ("relay-list-changed", "no-upstream-open"): lambda: _asked().closed(1, 3.0).host_changed(5.0),
    ("relay-list-changed", "not-sent"): lambda: _asked(),
    ("relay-list-changed", "upstream-not-connected"): lambda: Legs().handshake().host_changed(5.0),
    ("relay-list-changed", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-after-change
    ("relay-after-change", "fresh"): lambda: (
        _again(_answered(_asked().relay(1.01).answer(1, 1.02, rid=2)))
        .relay(6.01)
        .answer(1, 6.02, rid=3)
    ),
    ("relay-after-change", "stale"): lambda: _again(
        _answered(_asked().relay(1.01).answer(1, 1.02, rid=2))
    ).answer(1, 6.02, rid=3, roots=[{"uri": APP, "name": "app"}]),
    ("relay-after-change", "error"): lambda: _again(
        _answered(_asked().answer(1, 1.02, rid=2))
    ).answer(1, 6.02, rid=3, error=True),
    ("relay-after-change", "no-answer"): lambda: _again(_answered(_asked())),
    ("relay-after-change", "not-asked-again"): lambda: _asked().host_changed(5.0),
    ("relay-after-change", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-unsolicited
    ("relay-unsolicited", "relayed"): lambda: _unsolicited(relay=True),
    ("relay-unsolicited", "proxy-result"): lambda: _unsolicited(roots=[]),
    ("relay-unsolicited", "proxy-error"): lambda: _unsolicited(error=True),
    ("relay-unsolicited", "unanswered"): lambda: _unsolicited().step_done(
        1, 3.3, "unsolicited-ask", "timeout"
    ),
    ("relay-unsolicited", "closed"): lambda: (
        _unsolicited().closed(1, 1.0).step_done(1, 1.0, "unsolicited-ask", "timeout")
    ),
    ("relay-unsolicited", "upstream-not-asked"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-unsolicited", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-call
    ("relay-call", "answered"): lambda: _answered(_asked().relay(1.01).answer(1, 1.02, rid=2)),
    ("relay-call", "answered-without-upstream"): lambda: (
        Legs().handshake().upstream(1, 0.2).call(0.9).call_reply(0.95)
    ),
    ("relay-call", "error"): lambda: _asked().call_reply(1.5, error=True),
    ("relay-call", "not-answered"): lambda: _asked(),
    ("relay-call", "not-called"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-call", "no-initialize"): lambda: Legs().handshake(ok=False),
}


def _judge(tmp_path: Path, rule: str, build: Build) -> Outcome:
    return RULES[rule].fn(build().context(tmp_path))


@pytest.mark.parametrize(("rule", "outcome"), list(CASES), ids=lambda x: str(x))
def test_outcome_reached(tmp_path: Path, rule: str, outcome: str) -> None:
    got = _judge(tmp_path, rule, CASES[(rule, outcome)])
    assert got.name == outcome, got.observed


@pytest.mark.parametrize("rule", sorted({r for r, _ in CASES}))
def test_every_outcome_has_a_case(rule: str) -> None:
    assert {o for r, o in CASES if r == rule} == set(RULES[rule].outcomes)


def test_a_bridge_that_renames_the_client_is_still_forwarding_but_a_proxy_of_its_own_is_not(
    tmp_path: Path,
) -> None:
    """mcp-remote adds "(via mcp-remote)" to the host's client name and forwards the rest: the
    session is still the host's. A proxy that initializes with its own client name (or its own
    capabilities) is a party to the session, so passing the question on stays its finding."""

    def relayed() -> Legs:
        return _undeclared_host().relay(1.01).answer(1, 1.02, rid=2, error=True)

    renamed = RULES["relay-asks-undeclared"].fn(_bridged(relayed()).context(tmp_path / "a"))
    assert (
        renamed.name == "forwarded-session" and "the session is the host's own" in renamed.observed
    )
    own = RULES["relay-asks-undeclared"].fn(
        _bridged(relayed(), client="some-proxy").context(tmp_path / "b")
    )
    assert own.name == "relayed"


def test_relayed_evidence_is_the_question_on_each_leg(tmp_path: Path) -> None:
    ctx = _asked().relay(1.01).answer(1, 1.02, rid=2).context(tmp_path)
    got = RULES["relay-asks"].fn(ctx)
    lines = [ctx.tx.by_n(n) for n in got.evidence]
    assert [(x.leg, x.dir, x.method) for x in lines if x] == [
        ("upstream", "out", "roots/list"),
        ("host", "in", "roots/list"),
    ]


def test_answer_evidence_pairs_host_answer_and_upstream_result(tmp_path: Path) -> None:
    ctx = _asked().relay(1.01).answer(1, 1.02, rid=2).context(tmp_path)
    got = RULES["relay-answer"].fn(ctx)
    legs = [(x.leg, x.dir) for n in got.evidence if (x := ctx.tx.by_n(n))]
    assert legs == [("upstream", "out"), ("host", "out"), ("upstream", "in")]
    assert "byte for byte" in got.observed and APP in got.observed


def test_main_connection_is_the_one_carrying_the_host_session(tmp_path: Path) -> None:
    """A probe connection (mcp-remote opens one) does not replace the session: declares
    reads the session; upstream-reply reads the asks inside calls, on whichever connection
    carried the call, and the probe's own unanswered ask is the unsolicited check's."""
    legs = Legs().handshake().upstream(1, 0.1, None).ask(1, 0.2, label="unsolicited-ask")
    legs.upstream(2, 0.3).forwarded(2, 0.6).call(0.9).up_call(2, 0.95).ask(2, 1.0, rid=2)
    legs.relay(1.01).answer(2, 1.02, rid=2)
    legs.step_done(1, 3.2, "unsolicited-ask", "timeout")
    ctx = legs.context(tmp_path)
    assert main_conn(ctx) == 2
    assert RULES["relay-declares"].fn(ctx).name == "same-as-host"
    reply = RULES["relay-upstream-reply"].fn(ctx)
    assert reply.name == "result-declared" and "connection 2" in reply.observed
    assert RULES["relay-asks"].fn(ctx).name == "relayed"


def test_an_ask_on_a_fresh_connection_per_call_is_still_inside_its_call(tmp_path: Path) -> None:
    """fastmcp opens an upstream session per forwarded request: the second call arrives on a
    connection of its own, and its ask is the after-change ask, not an unsolicited one."""
    legs = _answered(_asked().relay(1.01).answer(1, 1.02, rid=2))
    legs.host_changed(5.0).call(5.9, hid=12, label="call-again")
    legs.upstream(2, 5.92).up_call(2, 5.95, rid=22).ask(2, 6.0, rid=2).relay(6.01)
    legs.answer(2, 6.02, rid=2)
    ctx = legs.context(tmp_path)
    got = RULES["relay-after-change"].fn(ctx)
    assert got.name == "fresh" and "call-again" in got.observed, got.observed
    assert "upstream connection 2" in got.observed
    assert RULES["relay-asks"].fn(ctx).name == "relayed"


def test_unsolicited_timing_says_whether_the_host_had_its_result(tmp_path: Path) -> None:
    """Asked 30 ms after initialized, 250 ms before the host got its initialize result."""
    legs = Legs().handshake().upstream(1, 0.2).ask(1, 0.25, rid=1, label="unsolicited-ask")
    got = RULES["relay-unsolicited"].fn(legs.answer(1, 0.3, rid=1, error=True).context(
        tmp_path / "early"))  # fmt: skip
    assert got.name == "proxy-error", got.observed
    assert "30.0 ms after notifications/initialized" in got.observed
    assert "did not yet have its initialize result (it came 250.0 ms later)" in got.observed
    late = Legs().handshake().upstream(1, 0.6).ask(1, 0.7, rid=1, label="unsolicited-ask")
    got = RULES["relay-unsolicited"].fn(late.relay(0.8).context(tmp_path / "late"))
    assert got.name == "relayed"
    assert "the host had its initialize result (200.0 ms before)" in got.observed


def test_an_unsolicited_relay_is_no_prefetch_of_the_in_call_ask(tmp_path: Path) -> None:
    """The host question that relayed the ask right after the handshake belongs to that ask:
    an in-call ask the proxy then answers from it is not-relayed, never prefetched."""
    legs = Legs().handshake().upstream(1, 0.2).ask(1, 0.23, rid=1, label="unsolicited-ask")
    legs.relay(0.6).answer(1, 0.62, rid=1).call(0.9).up_call(1, 0.95).ask(1, 1.0, rid=2)
    legs.answer(1, 1.02, rid=2)
    ctx = legs.context(tmp_path)
    assert RULES["relay-asks"].fn(ctx).name == "not-relayed"
    assert RULES["relay-unsolicited"].fn(ctx).name == "relayed"
    assert RULES["relay-answer"].fn(ctx).name == "unchanged"  # from the earlier answer


def test_a_question_after_the_call_was_answered_is_not_relayed_inside_it(tmp_path: Path) -> None:
    legs = _asked().call_reply(1.005).relay(1.01).answer(1, 1.02, rid=2)
    got = RULES["relay-asks"].fn(legs.context(tmp_path))
    assert got.name == "not-relayed" and "no longer pending" in got.observed


def test_merge_keeps_each_leg_and_renumbers_notes(tmp_path: Path) -> None:
    ctx = _asked().relay(1.01).answer(1, 1.02, rid=2).context(tmp_path)
    # the host's step-done note for initialize points at the merged number of its evidence
    trace = ctx.tx.steps["initialize"]
    assert trace.outcome == "ok"
    assert {x.leg for x in ctx.tx.lines} == {"host", "upstream"}
    times = [x.t for x in ctx.tx.lines]
    assert times == sorted(times)
    assert OTHER not in [x.raw for x in ctx.tx.lines]


def test_a_relayed_error_names_a_changed_code(tmp_path: Path) -> None:
    legs = _undeclared_host()
    legs.line(None, 1.01, "in", {"jsonrpc": "2.0", "id": 7, "method": "roots/list"})
    missing = {"message": "Method not found"}
    legs.line(None, 1.011, "out", {"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, **missing}})
    legs.line(1, 1.02, "in", {"jsonrpc": "2.0", "id": 2, "error": {"code": -32603, **missing}})
    got = RULES["relay-answer"].fn(legs.context(tmp_path))
    assert got.name == "error" and "code -32601; it arrived as -32603" in got.observed
    assert len(got.evidence) == 3
