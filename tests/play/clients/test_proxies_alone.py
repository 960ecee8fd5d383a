"""Each shipped proxy alone between our two ends, through the real harness: the relay
scenarios and ``relay-no-stream`` at one or two revisions.

No verdict is written down here. Each test reads the evidence a check rests on and asserts
that it belongs where the outcome says: which leg a line travelled, which transport each of
our ends spoke (the HTTP notes of our own ends), and that the host started one program, the
proxy, while our upstream was started by the proxy (stdio) or by our host (HTTP): no chain
holds a second third-party program. For ``relay-no-stream`` it asserts that the moment was
really created (our HTTP host opened no GET stream and had no POST in flight when the
upstream asked).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare.judge._transcript import Transcript, read_transcript

from .._proxy_cells import cell_folder as _folder
from .._proxy_cells import check as _check
from .._proxy_cells import evidence as _lines
from .._proxy_cells import play_proxy_cells

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
CELLS = [
    *[(t, "relay-no-stream", r) for t in PROGRAMS for r in ("2025-03-26", "2025-11-25")],
    *[(t, "relay-roots", "2025-06-18") for t in PROGRAMS],
]


@pytest.fixture(scope="module")
def alone_run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return play_proxy_cells(pinned_spec, tmp_path_factory.mktemp("alone-run") / "results", CELLS)


def _notes(tx: Transcript, leg: str, event: str) -> list[tuple[int, dict[str, Any]]]:
    return [(n, x) for n, x in tx.notes if x.get("leg") == leg and x.get("event") == event]


def test_the_shipped_proxies_are_the_ones_measured(alone_run: dict[str, Any]) -> None:
    assert set(alone_run["targets"]) == set(PROGRAMS)
    assert set(alone_run["by"]) == set(CELLS)
    for key, v in alone_run["by"].items():
        assert v["verdict"] != "error", (key, v["reason"])
    assert alone_run["leftovers"] == []


@pytest.mark.parametrize("key", CELLS, ids="-".join)
def test_one_third_party_program_and_our_transports_on_each_leg(
    alone_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    target = alone_run["targets"][key[0]]
    tx = read_transcript(_folder(alone_run, key) / "transcript.jsonl")
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


@pytest.mark.parametrize("key", [c for c in CELLS if c[1] == "relay-no-stream"], ids="-".join)
def test_no_stream_is_judged_at_the_moment_it_creates(
    alone_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    v = alone_run["by"][key]
    target = alone_run["targets"][key[0]]
    tx = read_transcript(_folder(alone_run, key) / "transcript.jsonl")
    check = _check(v, "no-stream")
    assert check["verdict"] == "informational"
    ev = _lines(tx, check)
    ask = ev[0]
    assert (ask.leg, ask.dir, ask.method) == ("upstream", "out", "roots/list")
    host_asks = [x for x in tx.lines if x.leg == "host" and x.dir == "in"
                 and x.method == "roots/list"]  # fmt: skip
    if target.transports["host"] != "http":
        assert check["outcome"] == "host-stdio"
        return
    # the moment: no GET stream was opened, and every POST before the ask was answered
    (get,) = [x for _, x in _notes(tx, "host", "get-stream")]
    assert get["opened"] is False
    sent = [x for x in tx.lines if x.leg == "host" and x.dir == "out" and x.is_request]
    before = [x for x in sent if x.t < ask.t]
    answered = {x.obj.get("id") for x in tx.lines if x.leg == "host" and x.dir == "in"
                and x.is_response and x.t < ask.t}  # fmt: skip
    assert {x.obj["id"] for x in before} <= answered
    assert check["outcome"] != "stream-open"
    if check["outcome"] == "dropped":
        assert host_asks == []
        assert not any(x.leg == "upstream" and x.dir == "in" and x.is_response
                       and x.obj.get("id") == ask.obj["id"] for x in tx.lines)  # fmt: skip
    elif check["outcome"] == "delivered-later":
        assert ev[1] is host_asks[0] and ev[1].t > ask.t


@pytest.mark.parametrize("key", [c for c in CELLS if c[1] == "relay-roots"], ids="-".join)
def test_a_relay_loss_is_on_the_leg_of_the_column_program(
    alone_run: dict[str, Any], key: tuple[str, str, str]
) -> None:
    v = alone_run["by"][key]
    tx = read_transcript(_folder(alone_run, key) / "transcript.jsonl")
    asks = _check(v, "asks")
    ev = _lines(tx, asks)
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
    json.dumps(v)  # the verdict is plain data
