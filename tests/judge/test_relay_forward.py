"""relay-forward from crafted proxy recordings: the host's prompts/get, where the proxy took it,
and the result each end saw. Between them the cases reach every outcome the rule names."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compare.judge.rules import RULES, Outcome
from compare.judge.rules.relay_forward import differences

from ._legs import Legs

GET = "prompts/get"
SENT = {
    "description": "d",
    "messages": [
        {"role": "user", "content": {"type": "text", "text": "hi"}},
        {"role": "user", "content": {"type": "audio", "mimeType": "audio/wav", "data": "UklG"}},
    ],
}


def _get(legs: Legs, t: float = 1.0, hid: int = 11) -> Legs:
    legs.line(None, t, "out", {"jsonrpc": "2.0", "id": hid, "method": GET,
                               "params": {"name": "media"}})  # fmt: skip
    return legs


def _up(
    legs: Legs, t: float = 1.01, rid: int = 21, result: Any = SENT, name: str = "media"
) -> Legs:
    """The proxy forwards the get (under ``name``), and the upstream answers it at once."""
    legs.line(1, t, "in", {"jsonrpc": "2.0", "id": rid, "method": GET, "params": {"name": name}})
    legs.line(1, t + 0.01, "out", {"jsonrpc": "2.0", "id": rid, "result": result})
    return legs


def _back(legs: Legs, t: float = 1.03, hid: int = 11, **answer: Any) -> Legs:
    legs.line(None, t, "in", {"jsonrpc": "2.0", "id": hid, **(answer or {"result": SENT})})
    return legs


def _session() -> Legs:
    return Legs().handshake().upstream(1, 0.2)


DROPPED = {**SENT, "messages": SENT["messages"][:1]}
Build = Callable[[], Legs]
CASES: dict[str, Build] = {
    "unchanged": lambda: _back(_up(_get(_session()))),
    "changed": lambda: _back(_up(_get(_session())), result=DROPPED),
    "request-changed": lambda: _back(_up(_get(_session()), name="other")),
    "answered-without-upstream": lambda: _back(_get(_session())),
    "error": lambda: _back(_up(_get(_session())), error={"code": -32603, "message": "x"}),
    "not-answered": lambda: _up(_get(_session())),
    "not-sent": lambda: _session(),
    "no-initialize": lambda: Legs().handshake(ok=False),
}


def _judge(tmp_path: Path, build: Build) -> Outcome:
    ctx = build().context(tmp_path)
    ctx.params = {"method": GET}
    return RULES["relay-forward"].fn(ctx)


@pytest.mark.parametrize("outcome", list(CASES))
def test_outcome_reached(tmp_path: Path, outcome: str) -> None:
    got = _judge(tmp_path, CASES[outcome])
    assert got.name == outcome, got.observed


def test_every_outcome_has_a_case() -> None:
    assert set(CASES) == set(RULES["relay-forward"].outcomes)


def test_a_changed_result_names_what_changed_and_rests_on_both_answers(tmp_path: Path) -> None:
    got = _judge(tmp_path, CASES["changed"])
    assert "result.messages has 1 items, 2 sent" in got.observed
    # the host's request, the forwarded one, the upstream's result, the host's result
    assert len(got.evidence) == 4 and got.evidence == sorted(got.evidence)


def test_an_upstream_request_before_the_hosts_own_is_not_its_forward(tmp_path: Path) -> None:
    """A get the upstream saw before the host asked (a probe of the proxy's own) forwards
    nothing: the host's result then came from nowhere the upstream answered."""
    got = _judge(tmp_path, lambda: _back(_get(_up(_session(), t=0.5), t=1.0)))
    assert got.name == "answered-without-upstream", got.observed


def test_differences_name_each_member_dropped_added_or_rewritten() -> None:
    sent = {"a": 1, "b": {"c": [1, 2]}, "d": "x"}
    got = {"a": 1, "b": {"c": [1]}, "d": "y", "e": True}
    assert differences(sent, got) == [
        "result.b.c has 1 items, 2 sent",
        'result.d is "y", sent "x"',
        "result.e added",
    ]
    assert differences({"a": 1}, {}) == ["result.a dropped"]
    assert differences(sent, sent) == []


def test_a_request_changed_on_its_way_is_named_beside_the_result(tmp_path: Path) -> None:
    got = _judge(tmp_path, CASES["request-changed"])
    assert 'params.name is "other", sent "media"' in got.observed
    both = _judge(tmp_path, lambda: _back(_up(_get(_session()), name="x"), result=DROPPED))
    assert both.name == "changed" and "params.name" in both.observed, both.observed
