"""The shipped proxies relaying elicitation, sampling and log messages, through the real harness.

As in ``test_real_proxies``, no verdict is written down: each test reads the lines a check
names as its evidence and asserts the outcome follows from them, on the leg each travelled.

The three relays are two mechanisms of ours: a request from the upstream server to the host
(elicitation, sampling: one rule, one way of reading both legs) and a notification (log
messages). So each proxy plays one of the three, in turn (issue 37: real programs once per
mechanism): each relay is read on three proxies of different programs and transports, and
every outcome of each check is among them (asserted below, so a pick that stops covering one
says so). What every proxy does in every relay is kept by the golden cells and by
``mcp-compare compare --replay``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.exchange._targets import load_targets
from compare.judge._transcript import Line, Transcript, read_transcript

from ._proxy_cells import cell_folder, check, evidence, play_proxy_cells

pytestmark = pytest.mark.clients

REVISION = "2025-11-25"
ELICIT, SAMPLE, LOGS = "relay-elicitation", "relay-sampling", "relay-log-messages"
#: The server-to-client request each request relay asks, and the part of the host's canned
#: result that must reach the upstream unchanged.
ASKED = {
    ELICIT: ("elicitation/create", "elicitation", {"content": {"answer": "from the host"}}),
    SAMPLE: (
        "sampling/createMessage",
        "sampling",
        {"content": {"type": "text", "text": "from the host"}},
    ),
}
#: Each proxy, in the target files' order, with one relay, the three taken in turn.
CELLS = [
    (t.id, (ELICIT, SAMPLE, LOGS)[i % 3], REVISION)
    for i, t in enumerate(t for t in load_targets() if t.kind == "proxy")
]


@pytest.fixture(scope="module")
def relay_run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return play_proxy_cells(pinned_spec, tmp_path_factory.mktemp("relays") / "results", CELLS)


def _tx(run: dict[str, Any], key: tuple[str, str, str]) -> Transcript:
    return read_transcript(cell_folder(run, key) / "transcript.jsonl")


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def test_every_relay_cell_ended_by_itself(relay_run: dict[str, Any]) -> None:
    assert set(relay_run["by"]) == set(CELLS)
    for key, v in relay_run["by"].items():
        assert v["verdict"] not in ("error", "not-run"), (key, v["reason"])
        assert v["process"]["ended_by"] == "self", key
    assert relay_run["leftovers"] == []


def test_the_cells_read_every_outcome_of_each_relay_check(relay_run: dict[str, Any]) -> None:
    """What the tests below read covers both branches of each check: a request relayed and
    one not, an answer passed back unchanged and an error, an error to a declared and to an
    undeclared capability, log messages passed and not."""
    seen: dict[str, set[str]] = {}
    for v in relay_run["by"].values():
        for c in v["checks"]:
            seen.setdefault(c["id"], set()).add(c.get("outcome"))
    assert {"relayed", "not-relayed"} <= seen["asks"]
    assert {"unchanged", "error"} <= seen["answer"]
    assert {"result-declared", "error-declared", "error-undeclared"} <= seen["upstream-reply"]
    assert {"passed", "not-passed"} <= seen["passed"]


@pytest.mark.parametrize("key", [c for c in CELLS if c[1] in ASKED], ids="-".join)
def test_a_request_relay_rests_on_both_legs(
    relay_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    """The question (elicitation/create or sampling/createMessage) is read on both legs, the
    host's canned answer compared with what the upstream got, and upstream-reply with the
    capability the proxy's own initialize declared upstream."""
    method, capability, given_part = ASKED[key[1]]
    v = relay_run["by"][key]
    tx = _tx(relay_run, key)
    asks = check(v, "asks")
    ev = evidence(tx, asks)
    up = [x for x in ev if x.leg == "upstream"]
    host = [x for x in ev if x.leg == "host"]
    assert up and all(x.dir == "out" and x.method == method for x in up)
    if asks["outcome"] == "relayed":
        assert [x.method for x in host] == [method] * len(up)
        assert all(h.dir == "in" and h.t >= u.t for u, h in zip(up, host, strict=True))
    else:
        assert asks["outcome"] == "not-relayed" and host == []
    answer = check(v, "answer")
    got = [x for x in evidence(tx, answer) if x.leg == "upstream" and x.dir == "in"]
    assert got, "the upstream's answer is evidence"
    if answer["outcome"] == "unchanged":
        given = [x for x in evidence(tx, answer) if x.leg == "host" and x.dir == "out"]
        assert _canon(given[0].obj["result"]) == _canon(got[0].obj["result"])
        assert {k: got[0].obj["result"][k] for k in given_part} == given_part
    elif answer["outcome"] == "error":
        assert "error" in got[0].obj and asks["outcome"] == "not-relayed"
    reply = check(v, "upstream-reply")
    init = next(x for x in evidence(tx, reply) if x.method == "initialize")
    declared = capability in init.params["capabilities"]
    kind = "error" if "error" in got[0].obj else "result"
    assert reply["outcome"] == f"{kind}-{'declared' if declared else 'undeclared'}"


@pytest.mark.parametrize("key", [c for c in CELLS if c[1] == LOGS], ids="-".join)
def test_log_messages_are_followed_to_the_host(
    relay_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    v = relay_run["by"][key]
    tx = _tx(relay_run, key)
    passed = check(v, "passed")
    ev = evidence(tx, passed)
    sent = [x for x in tx.lines if x.leg == "upstream" and x.dir == "out"
            and x.method == "notifications/message"]  # fmt: skip
    got = [x for x in tx.lines if x.leg == "host" and x.dir == "in"
           and x.method == "notifications/message"]  # fmt: skip
    assert len(sent) == 2, "the upstream sent both messages inside the call"
    assert {x.n for x in sent} <= {x.n for x in ev}
    if passed["outcome"] == "passed":
        assert [_canon(x.params) for x in got] == [_canon(x.params) for x in sent]
        assert all(g.t >= s.t for s, g in zip(sent, got, strict=True))
    else:
        assert passed["outcome"] == "not-passed" and got == []
    declares = check(v, "declares-logging")
    result = next(x for x in evidence(tx, declares) if x.leg == "host" and x.is_response)
    told = "logging" in result.obj["result"]["capabilities"]
    assert declares["outcome"] == ("passed-on" if told else "not-passed-on")


def _line(tx: Transcript, n: int) -> Line:
    line = tx.by_n(n)
    assert line is not None
    return line


def test_a_fail_would_be_read_from_an_undeclared_relay(relay_run: dict[str, Any]) -> None:
    # The grading can fail: no shipped proxy passes messages to a host it declared no logging
    # to, so the rule's other branch is read on a real cell with the declaration removed.
    from compare.judge.rules import RULES
    from compare.judge.rules._context import Context

    key = next(
        k
        for k in CELLS
        if k[1] == LOGS and check(relay_run["by"][k], "passed")["outcome"] == "passed"
    )
    folder = cell_folder(relay_run, key)
    tx = _tx(relay_run, key)
    ev = check(relay_run["by"][key], "declares-logging")["evidence"]
    result = next(_line(tx, n) for n in ev if _line(tx, n).leg == "host")
    result.obj["result"]["capabilities"].pop("logging")
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    from _revisions import revisions

    params = {"method": "notifications/message", "server_capability": "logging"}
    ctx = Context(tx=tx, plan=plan, revision=key[2], known_revisions=revisions(), params=params)
    assert RULES["relay-notification"].fn(ctx).name == "passed-undeclared"
