"""The shipped proxies between both scripted ends, through the real harness.

Each proxy plays the relay mechanisms of the smoke set once (``tests/smoke.yaml``, ``proxy``:
``relay-roots`` and ``relay-roots-undeclared``, their revisions shared out over the proxies so
each proxy meets both eras). No verdict is written down here: each test reads what a check's
outcome rests on — its evidence lines, which leg they travelled, what the host answered and
what the upstream got — and asserts that the outcome follows from them; and that each leg
spoke the transport the target names, with the proxy the one third-party program in the
chain. Every cell must end by itself with nothing left running.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import _smoke
import pytest

from compare.exchange._targets import load_targets
from compare.judge._transcript import Line, Transcript, read_transcript

from ._proxy_cells import cell_folder as _cell
from ._proxy_cells import check as _check
from ._proxy_cells import evidence as _lines
from ._proxy_cells import play_proxy_cells

pytestmark = pytest.mark.clients

#: The one third-party program each proxy target starts (how its launch line's first item ends).
PROGRAMS = {
    "fastmcp-proxy": "/venvs/fastmcp-proxy/bin/python",
    "mcp-proxy-client": "/venvs/mcp-proxy-client/bin/python",
    "mcp-proxy-server": "/venvs/mcp-proxy-server/bin/python",
    "mcp-remote": "/.bin/mcp-remote",
    "mcp-remote-sse": "/.bin/mcp-remote",
    "supergateway-http-to-stdio": "/.bin/supergateway",
    "supergateway-sse-to-stdio": "/.bin/supergateway",
    "supergateway-stdio-to-http": "/.bin/supergateway",
    "supergateway-stdio-to-sse": "/.bin/supergateway",
}


def _proxies() -> list[str]:
    return [t.id for t in load_targets() if t.kind == "proxy"]


@pytest.fixture(scope="module")
def proxy_run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    # relay-no-stream has its own run and assertions (tests/play/clients/test_proxies_alone)
    return play_proxy_cells(pinned_spec, tmp_path_factory.mktemp("proxy-run") / "results", CELLS)


def _roots(line: Line) -> Any:
    return line.obj["result"]["roots"]


CELLS = _smoke.spread("proxy", _proxies(), "relay", "relay-undeclared")


def test_every_cell_ended_by_itself(proxy_run: dict[str, Any]) -> None:
    assert set(PROGRAMS) == set(_proxies())  # a new proxy names its program here
    assert set(proxy_run["by"]) == set(CELLS)
    for key, v in proxy_run["by"].items():
        assert v["verdict"] != "error", (key, v["reason"])
        assert v["process"]["ended_by"] == "self", key
        assert v["peer_done"]["reason"] == "steps complete", key
    assert proxy_run["leftovers"] == []


@pytest.mark.parametrize("key", CELLS, ids="-".join)
def test_both_legs_recorded_and_the_question_followed(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    v = proxy_run["by"][key]
    folder = _cell(proxy_run, key)
    tx = read_transcript(folder / "transcript.jsonl")
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    assert {x.leg for x in tx.lines} == {"host", "upstream"}
    assert [x.t for x in tx.lines] == sorted(x.t for x in tx.lines)
    calls = _host_calls(tx)
    assert calls, "the host called the proxy's tool"
    asks = _check(v, "asks" if key[1] == "relay-roots" else f"asks-undeclared{_era(key[2])}")
    ev = _lines(tx, asks)
    if asks["outcome"] == "prefetched":  # the host was asked before the upstream asked
        assert (ev[0].leg, ev[1].leg) == ("host", "upstream") and ev[0].t < ev[1].t
    elif asks["outcome"] == "upstream-not-asked":
        assert ev == [] or all(x.method != "roots/list" for x in ev)
    else:
        # every in-call ask was sent while the upstream's forwarded call was still unanswered
        up_asks = [x for x in ev if x.leg == "upstream"]
        assert up_asks and all(x.dir == "out" and x.method == "roots/list" for x in up_asks)
        for ask in up_asks:
            call = _forwarded_before(tx, ask)
            assert call is not None, f"line {ask.n} was asked outside a forwarded call"
    if asks["outcome"] in ("relayed", "partly-relayed", "forwarded-session"):
        relayed = [x for x in ev if x.leg == "host"]
        assert relayed and all(x.dir == "in" and x.method == "roots/list" for x in relayed)
        # each relayed question reached the host while one of its calls was pending
        assert all(any(_pending(tx, c, x.t) for c in calls) for x in relayed)
    if asks["outcome"] == "forwarded-session":
        # a bridge: the host's own initialize reached the upstream, capabilities unchanged
        host_init = next(x for x in tx.lines if x.leg == "host" and x.method == "initialize")
        conns = {x.conn for x in ev if x.leg == "upstream"}
        ups = [x for x in tx.lines if x.leg == "upstream" and x.method == "initialize"]
        assert ups and all(
            x.params.get("capabilities") == host_init.params.get("capabilities")
            for x in ups
            if x.conn in conns
        )
    elif asks["outcome"] == "not-relayed":
        during = [
            x
            for x in tx.lines
            if x.leg == "host" and x.dir == "in" and x.method == "roots/list"
            and any(_pending(tx, c, x.t) and x.t >= ev[0].t for c in calls)
        ]  # fmt: skip
        assert during == []
    # what the proxy declared upstream is what its initialize there says
    declares = _check(v, "declares")
    (init,) = _lines(tx, declares)
    assert init.leg == "upstream" and init.dir == "in" and init.method == "initialize"
    theirs = init.params["capabilities"].get("roots")
    mine = plan["capabilities"].get("roots")
    if mine is None:
        expected = "same-as-host" if theirs is None else "declared-without-host"
    elif theirs is None:
        expected = "not-declared"
    elif bool(mine.get("listChanged")) != bool(theirs.get("listChanged")):
        expected = "list-changed-differs"
    else:
        expected = "same-as-host"
    assert declares["outcome"] == expected


@pytest.mark.parametrize("key", CELLS, ids="-".join)
def test_the_answer_is_judged_on_what_each_side_saw(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    v = proxy_run["by"][key]
    folder = _cell(proxy_run, key)
    tx = read_transcript(folder / "transcript.jsonl")
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    answer = _check(v, "answer")
    ev = _lines(tx, answer)
    if answer["outcome"] == "unchanged":
        ask, host, got = ev
        assert (ask.leg, host.leg, got.leg) == ("upstream", "host", "upstream")
        assert _roots(host) == _roots(got)
        # the URI with its space, '#' and 'é' arrives exactly as the host wrote it
        uris = {f["uri"] for f in plan["folders"].values()}
        assert {r["uri"] for r in _roots(got)} <= uris
        assert all(r["uri"] in (got.raw or "") for r in _roots(got))
    elif answer["outcome"] == "error":
        assert ev[-1].leg == "upstream" and "error" in ev[-1].obj
    elif answer["outcome"] == "no-answer":
        (ask,) = ev
        rid = ask.obj["id"]
        assert not any(
            x.leg == "upstream" and x.conn == ask.conn and x.dir == "in" and x.is_response
            and x.obj.get("id") == rid for x in tx.lines
        )  # fmt: skip
    reply = _check(v, "upstream-reply")
    if reply["outcome"] in ("silence", "closed"):
        assert reply["verdict"] == ("fail" if reply["outcome"] == "silence" else "informational")
    else:
        ask, got = _lines(tx, reply)
        assert got.obj["id"] == ask.obj["id"] and got.conn == ask.conn
        assert reply["outcome"].startswith("error" if "error" in got.obj else "result")


@pytest.mark.parametrize("key", [c for c in CELLS if c[1] == "relay-roots"], ids="-".join)
def test_list_changed_is_judged_on_the_upstream_leg(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    check, ev, tx = _judged(proxy_run, key, "list-changed")
    sent = ev[0]
    assert (sent.leg, sent.dir, sent.method) == (
        "host", "out", "notifications/roots/list_changed"
    )  # fmt: skip
    passed = [
        x for x in tx.lines
        if x.leg == "upstream" and x.dir == "in" and x.method == sent.method and x.t >= sent.t
    ]  # fmt: skip
    if check["outcome"] in ("passed", "passed-undeclared"):
        assert ev[1] is passed[0]
    else:
        assert passed == []


def _judged(
    proxy_run: dict[str, Any], key: tuple[str, str, str], check_id: str
) -> tuple[dict[str, Any], list[Line], Transcript]:
    """One check of a proxy cell, the transcript lines it quotes, and the transcript."""
    tx = read_transcript(_cell(proxy_run, key) / "transcript.jsonl")
    check = _check(proxy_run["by"][key], check_id)
    return check, _lines(tx, check), tx


def _host_calls(tx: Transcript) -> list[Line]:
    return [
        x for x in tx.lines
        if x.leg == "host" and x.dir == "out" and x.is_request and x.method == "tools/call"
    ]  # fmt: skip


def _reply(tx: Transcript, request: Line, direction: str) -> Line | None:
    return next(
        (
            x for x in tx.lines
            if x.leg == request.leg and x.conn == request.conn and x.dir == direction
            and x.is_response and x.obj.get("id") == request.obj.get("id") and x.n > request.n
        ),
        None,
    )  # fmt: skip


def _pending(tx: Transcript, call: Line, t: float) -> bool:
    reply = _reply(tx, call, "in")
    return call.t <= t and (reply is None or t <= reply.t)


def _forwarded_before(tx: Transcript, ask: Line) -> Line | None:
    """The upstream tools/call on the ask's connection still unanswered when it was sent."""
    for x in tx.lines:
        if (
            x.leg == "upstream" and x.conn == ask.conn and x.dir == "in"
            and x.method == "tools/call" and x.is_request and x.n < ask.n
        ):  # fmt: skip
            reply = _reply(tx, x, "out")
            if reply is None or reply.n > ask.n:
                return x
    return None


@pytest.mark.parametrize("key", CELLS, ids="-".join)
def test_the_unsolicited_ask_says_when_it_was_sent(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    """The ask right after initialized is informational, and its evidence holds the timing the
    observed text states: the initialized it followed and the ask itself, on one connection."""
    v = proxy_run["by"][key]
    tx = read_transcript(_cell(proxy_run, key) / "transcript.jsonl")
    check = _check(v, "unsolicited-ask")
    assert check["verdict"] == "informational"
    ready, ask, *rest = _lines(tx, check)
    assert (ready.leg, ready.dir, ready.method) == ("upstream", "in", "notifications/initialized")
    assert (ask.leg, ask.dir, ask.method, ask.conn) == ("upstream", "out", "roots/list", ready.conn)
    assert _forwarded_before(tx, ask) is None
    assert f"{(ask.t - ready.t) * 1000:.1f} ms after notifications/initialized" in check["observed"]
    init = next(x for x in tx.lines if x.leg == "host" and x.method == "initialize")
    result = _reply(tx, init, "in")
    had = result is not None and result.t <= ask.t
    assert ("the host had its initialize result" in check["observed"]) == had
    if check["outcome"] == "relayed":
        assert rest[0].leg == "host" and rest[0].method == "roots/list" and rest[0].t >= ask.t
    elif check["outcome"] in ("proxy-result", "proxy-error"):
        (got,) = rest
        assert got.obj["id"] == ask.obj["id"] and got.conn == ask.conn
        assert ("error" in got.obj) == (check["outcome"] == "proxy-error")


@pytest.mark.parametrize("key", CELLS, ids="-".join)
def test_each_call_is_followed_to_the_upstream_and_back(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    v = proxy_run["by"][key]
    tx = read_transcript(_cell(proxy_run, key) / "transcript.jsonl")
    check = _check(v, "call")
    ev = _lines(tx, check)
    if check["outcome"] == "answered":
        host, up, up_reply, reply = ev[-4:]
        assert (host.leg, host.dir, host.method) == ("host", "out", "tools/call")
        assert (up.leg, up.dir, up.method) == ("upstream", "in", "tools/call")
        assert up_reply.obj["id"] == up.obj["id"] and "result" in up_reply.obj
        assert reply.obj["id"] == host.obj["id"] and "result" in reply.obj
        # the upstream asked for roots while its reply to the call was held
        assert any(
            x.leg == "upstream" and x.conn == up.conn and x.method == "roots/list"
            and x.dir == "out" and up.n < x.n < up_reply.n for x in tx.lines
        )  # fmt: skip
    else:
        assert check["outcome"] in ("error", "not-answered", "answered-without-upstream")


def _era(revision: str) -> str:
    return "" if revision < "2025-06-18" else "-must"


def _notes(tx: Transcript, leg: str, event: str) -> list[tuple[int, dict[str, Any]]]:
    return [(n, x) for n, x in tx.notes if x.get("leg") == leg and x.get("event") == event]


@pytest.mark.parametrize("key", CELLS, ids="-".join)
def test_one_third_party_program_and_our_transports_on_each_leg(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    target = proxy_run["targets"][key[0]]
    tx = read_transcript(_cell(proxy_run, key) / "transcript.jsonl")
    ends = target.transports
    # the host leg is HTTP exactly when the target says so (our client's HTTP notes)
    http_host = bool(_notes(tx, "host", "http-post"))
    assert http_host == (ends["host"] != "stdio")
    listening = _notes(tx, "upstream", "http-listening")
    assert bool(listening) == (ends["upstream"] != "stdio")
    if listening:
        assert listening[0][1]["host"] == "127.0.0.1"
        assert listening[0][1]["transport"] == ends["upstream"]
    # the host started one program, the proxy; over HTTP our host started our upstream too,
    # over stdio the proxy did: no second third-party program anywhere in the chain
    (started,) = [x for _, x in _notes(tx, "host", "server-started")]
    assert started["argv"][0].endswith(PROGRAMS[key[0]]), started["argv"]
    ours = _notes(tx, "host", "upstream-started")
    assert bool(ours) == (ends["upstream"] != "stdio")
    if ours:
        assert ours[0][1]["listening"] is True
        assert "{upstream_url}" not in " ".join(started["argv"])
    inits = [x for x in tx.lines if x.leg == "upstream" and x.dir == "in"
             and x.method == "initialize"]  # fmt: skip
    assert inits, "the proxy never reached our upstream"


@pytest.mark.parametrize("key", [c for c in CELLS if c[1] == "relay-roots"], ids="-".join)
def test_a_relay_loss_is_on_the_leg_of_the_column_program(
    proxy_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    asks, ev, tx = _judged(proxy_run, key, "asks")
    if asks["outcome"] == "not-relayed":
        # the question left our upstream end (delivered on an HTTP stream, or on stdio) and
        # reached the proxy: what happened next is the proxy's, the only program between
        for x in ev:
            assert x.leg == "upstream" and x.dir == "out"
            routed = [note for n, note in _notes(tx, "upstream", "routed")
                      if n > x.n and note.get("id") == x.obj.get("id")]  # fmt: skip
            if routed:
                assert routed[0]["to"] != "held" or any(r.get("was_held") for r in routed)
    elif asks["outcome"] in ("relayed", "partly-relayed"):
        assert any(x.leg == "host" and x.method == "roots/list" for x in ev)
    json.dumps(proxy_run["by"][key])  # the verdict is plain data
