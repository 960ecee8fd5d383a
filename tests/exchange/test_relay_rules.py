"""Each relay rule on crafted proxy recordings: every outcome reachable, with its evidence.

The recordings are written as the two scripted ends write theirs and merged by the harness's
``merge_legs`` (``tests/exchange/_legs.py``), so these tests also read what the merge makes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compare.exchange._rules import RULES, Outcome
from compare.exchange._rules.relay import main_conn

from ._legs import APP, OTHER, Legs

Build = Callable[[], Legs]


def _asked(host_caps: dict[str, bool] | None = None, up_roots: object = "same") -> Legs:
    """Handshake done, one upstream connection (declaring like the host unless told), asked."""
    caps = {"listChanged": True} if host_caps is None else host_caps
    legs = Legs(caps).handshake()
    legs.upstream(1, 0.2, caps if up_roots == "same" else up_roots)  # type: ignore[arg-type]
    return legs.forwarded(1, 0.6).ask(1, 1.0)


def _undeclared_host() -> Legs:
    legs = Legs(None).handshake()
    return legs.upstream(1, 0.2, None).forwarded(1, 0.6).ask(1, 1.0)


CASES: dict[tuple[str, str], Build] = {
    # relay-asks
    ("relay-asks", "relayed"): lambda: _asked().relay(1.01).answer(1, 1.02),
    ("relay-asks", "partly-relayed"): lambda: (
        _asked()
        .step_done(1, 7.0, "ask", "timeout")
        .ask(1, 8.0, rid=2, label="ask-again")
        .relay(8.01)
        .answer(1, 8.02, rid=2)
    ),
    ("relay-asks", "prefetched"): lambda: _asked().relay(0.55).answer(1, 1.02),
    ("relay-asks", "not-relayed"): lambda: _asked().answer(1, 1.02, error=True),
    ("relay-asks", "upstream-not-asked"): lambda: Legs().handshake().upstream(1, 0.2),
    ("relay-asks", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-answer
    ("relay-answer", "unchanged"): lambda: _asked().relay(1.01).answer(1, 1.02),
    ("relay-answer", "uris-changed"): lambda: (
        _asked()
        .relay(1.01)
        .answer(1, 1.02, roots=[{"uri": APP.replace("%20", " "), "name": "app"}])
    ),
    ("relay-answer", "other-changed"): lambda: (
        _asked().relay(1.01).answer(1, 1.02, roots=[{"uri": APP}])
    ),
    ("relay-answer", "answered-by-proxy"): lambda: _asked().answer(1, 1.02),
    ("relay-answer", "error"): lambda: _asked().answer(1, 1.02, error=True),
    ("relay-answer", "no-answer"): lambda: _asked().step_done(1, 7.0, "ask", "timeout"),
    ("relay-answer", "upstream-not-asked"): lambda: Legs().handshake(),
    ("relay-answer", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-upstream-reply
    ("relay-upstream-reply", "result-declared"): lambda: _asked().relay(1.01).answer(1, 1.02),
    ("relay-upstream-reply", "error-declared"): lambda: _asked().answer(1, 1.02, error=True),
    ("relay-upstream-reply", "result-undeclared"): lambda: _undeclared_host().answer(1, 1.02),
    ("relay-upstream-reply", "error-undeclared"): lambda: _undeclared_host().answer(
        1, 1.02, error=True
    ),
    ("relay-upstream-reply", "silence"): lambda: _asked().step_done(1, 7.0, "ask", "timeout"),
    ("relay-upstream-reply", "closed"): lambda: (
        _asked().closed(1, 2.0).step_done(1, 2.0, "ask", "timeout")
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
    ("relay-list-changed", "not-passed-declared"): lambda: (
        _asked().relay(1.01).answer(1, 1.02).host_changed(5.0)
    ),
    ("relay-list-changed", "not-passed"): lambda: (
        _asked().answer(1, 1.02, error=True).host_changed(5.0)
    ),
    ("relay-list-changed", "no-upstream-open"): lambda: _asked().closed(1, 3.0).host_changed(5.0),
    ("relay-list-changed", "not-sent"): lambda: _asked(),
    ("relay-list-changed", "upstream-not-connected"): lambda: Legs().handshake().host_changed(5.0),
    ("relay-list-changed", "no-initialize"): lambda: Legs().handshake(ok=False),
    # relay-after-change
    ("relay-after-change", "fresh"): lambda: (
        _asked()
        .host_changed(5.0)
        .ask(1, 6.0, rid=2, label="ask-again")
        .relay(6.01)
        .answer(1, 6.02, rid=2)
    ),
    ("relay-after-change", "stale"): lambda: (
        _asked()
        .host_changed(5.0)
        .ask(1, 6.0, rid=2, label="ask-again")
        .answer(1, 6.02, rid=2, roots=[{"uri": APP, "name": "app"}])
    ),
    ("relay-after-change", "error"): lambda: (
        _asked()
        .host_changed(5.0)
        .ask(1, 6.0, rid=2, label="ask-again")
        .answer(1, 6.02, rid=2, error=True)
    ),
    ("relay-after-change", "no-answer"): lambda: (
        _asked().host_changed(5.0).ask(1, 6.0, rid=2, label="ask-again")
    ),
    ("relay-after-change", "not-asked-again"): lambda: _asked().host_changed(5.0),
    ("relay-after-change", "no-initialize"): lambda: Legs().handshake(ok=False),
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


def test_relayed_evidence_is_the_question_on_each_leg(tmp_path: Path) -> None:
    ctx = _asked().relay(1.01).answer(1, 1.02).context(tmp_path)
    got = RULES["relay-asks"].fn(ctx)
    lines = [ctx.tx.by_n(n) for n in got.evidence]
    assert [(x.leg, x.dir, x.method) for x in lines if x] == [
        ("upstream", "out", "roots/list"),
        ("host", "in", "roots/list"),
    ]


def test_answer_evidence_pairs_host_answer_and_upstream_result(tmp_path: Path) -> None:
    ctx = _asked().relay(1.01).answer(1, 1.02).context(tmp_path)
    got = RULES["relay-answer"].fn(ctx)
    legs = [(x.leg, x.dir) for n in got.evidence if (x := ctx.tx.by_n(n))]
    assert legs == [("upstream", "out"), ("host", "out"), ("upstream", "in")]
    assert "byte for byte" in got.observed and APP in got.observed


def test_main_connection_is_the_one_carrying_the_host_session(tmp_path: Path) -> None:
    """A probe connection (mcp-remote opens one) neither replaces the session nor hides a
    silence on it: declares reads the session, upstream-reply every connection."""
    legs = Legs().handshake().upstream(1, 0.1, None).ask(1, 0.2)
    legs.upstream(2, 0.3).forwarded(2, 0.6).ask(2, 1.0).relay(1.01).answer(2, 1.02)
    legs.step_done(1, 6.2, "ask", "timeout")
    ctx = legs.context(tmp_path)
    assert main_conn(ctx) == 2
    assert RULES["relay-declares"].fn(ctx).name == "same-as-host"
    reply = RULES["relay-upstream-reply"].fn(ctx)
    assert reply.name == "silence" and "connection 1" in reply.observed


def test_merge_keeps_each_leg_and_renumbers_notes(tmp_path: Path) -> None:
    ctx = _asked().relay(1.01).answer(1, 1.02).context(tmp_path)
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
    legs.line(1, 1.02, "in", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, **missing}})
    got = RULES["relay-answer"].fn(legs.context(tmp_path))
    assert got.name == "error" and "code -32601; it arrived as -32603" in got.observed
    assert len(got.evidence) == 3
