"""The shipped proxies whose host side is not stdio alone between our two ends, through the
real harness: ``relay-no-stream``, the smoke set's ``no-stream`` mechanism
(``tests/smoke.yaml``), its revisions shared out over those proxies.

No verdict is written down here. The test reads the evidence the check rests on and asserts
that the moment was really created (our HTTP host opened no GET stream and had no POST in
flight when the upstream asked), and that the outcome follows from what each leg saw. Behind
a stdio host a stream is always open: what a proxy does with an unsolicited request there is
``test_real_proxies``' unsolicited-ask test, and which transport each leg spoke and which
program started which is its transport test, over every proxy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _smoke
import pytest

from compare.exchange._targets import load_targets
from compare.judge._transcript import Transcript, read_transcript

from .._proxy_cells import cell_folder as _folder
from .._proxy_cells import check as _check
from .._proxy_cells import evidence as _lines
from .._proxy_cells import play_proxy_cells

pytestmark = pytest.mark.clients

#: The proxies whose host side is Streamable HTTP or legacy SSE.
LISTENING = [t.id for t in load_targets() if t.kind == "proxy" and t.transports["host"] != "stdio"]
CELLS = _smoke.spread("proxy", LISTENING, "no-stream")


@pytest.fixture(scope="module")
def alone_run(pinned_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return play_proxy_cells(pinned_spec, tmp_path_factory.mktemp("alone-run") / "results", CELLS)


def _notes(tx: Transcript, leg: str, event: str) -> list[tuple[int, dict[str, Any]]]:
    return [(n, x) for n, x in tx.notes if x.get("leg") == leg and x.get("event") == event]


def test_the_listening_proxies_are_the_ones_measured(alone_run: dict[str, Any]) -> None:
    # an HTTP host side, where the moment exists, among them
    assert any(alone_run["targets"][t].transports["host"] == "http" for t in LISTENING)
    assert set(alone_run["by"]) == set(CELLS)
    assert {r for _, _, r in CELLS} == set(_smoke.mechanisms("proxy")["no-stream"]["revisions"])
    for key, v in alone_run["by"].items():
        assert v["verdict"] != "error", (key, v["reason"])
    assert alone_run["leftovers"] == []


@pytest.mark.parametrize("key", CELLS, ids="-".join)
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
