"""The scripted client's 2026-07-28 helpers (``peer/client/_modern.py``), without a server."""

from __future__ import annotations

from _revisions import revisions

from compare.models import first_modern
from compare.peer.client import _features, _modern

BOUNDARY = first_modern(revisions())


def _plan(revision: str, features: dict[str, object]) -> dict[str, object]:
    return {
        "revision": revision,
        "wire_version": revision,
        "first_modern": BOUNDARY,
        "features": features,
        "client_info": {"name": "c", "version": "1"},
    }


def test_era_follows_the_plans_boundary() -> None:
    assert BOUNDARY is not None
    earlier = [r for r in revisions() if r < BOUNDARY and r != "draft"]
    assert _modern.plays_modern(_plan(BOUNDARY, {}))
    assert not any(_modern.plays_modern(_plan(r, {})) for r in earlier)
    # a boundary moved by the pins moves the client with it, with no code edit
    assert not _modern.plays_modern({**_plan(BOUNDARY, {}), "first_modern": "2999-01-01"})


def test_meta_carries_version_capabilities_and_identity() -> None:
    plan = _plan(str(BOUNDARY), {"roots": {"list_changed": True}, "sampling": {"answer": {}}})
    params = _modern.with_meta({"name": "t", "_meta": {"progressToken": 7}}, plan)
    meta = params["_meta"]
    assert params["name"] == "t" and meta["progressToken"] == 7
    assert meta["io.modelcontextprotocol/protocolVersion"] == BOUNDARY
    # roots at this revision is an empty object: listChanged is gone with its notification
    assert meta["io.modelcontextprotocol/clientCapabilities"] == {"roots": {}, "sampling": {}}
    assert meta["io.modelcontextprotocol/clientInfo"] == {"name": "c", "version": "1"}
    assert (
        _modern.with_meta(None, _plan(str(BOUNDARY), {}))["_meta"][
            "io.modelcontextprotocol/clientCapabilities"
        ]
        == {}
    )


ELICIT = {"action": "accept", "content": {"answer": "yes"}}
SAMPLE = {"role": "assistant", "content": {"type": "text", "text": "c"}, "model": "m"}
ASKED = {
    "resultType": "input_required",
    "inputRequests": {
        "a": {"method": "roots/list"},
        "b": {"method": "elicitation/create", "params": {}},
        "c": "junk",
        "d": {"method": "sampling/createMessage", "params": {}},
        "e": {"method": "no/such"},
    },
}


def test_every_input_request_with_a_known_method_is_answerable() -> None:
    """Not only roots/list: every method the features answer, by method, never junk."""
    assert _modern.answerable(ASKED) == ["a", "b", "d"]
    assert _modern.answerable({"inputRequests": []}) == []


class _Recorder:
    def note(self, **_fields: object) -> None:
        pass


class _Client:
    """What ``call_tool`` uses of the client: its features, roots, calls and notes."""

    def __init__(self, features: dict[str, object]) -> None:
        self.features = features
        self.roots = _features.initial_roots(features)
        self.tx = _Recorder()
        self.sent: list[tuple[str, dict[str, object]]] = []

    def call(
        self,
        method: str,
        params: dict[str, object],
        timeout: float,
        meta: dict[str, object] | None = None,
    ) -> tuple[int, object]:
        self.sent.append((method, params))
        result = ASKED if len(self.sent) == 1 else {"resultType": "complete", "content": []}
        return len(self.sent), (len(self.sent), {"id": len(self.sent), "result": result})


def test_the_retry_answers_each_declared_feature_and_leaves_out_the_rest() -> None:
    client = _Client(
        {"elicitation": {"form": True, "answer": ELICIT}, "sampling": {"answer": SAMPLE}}
    )
    record: dict[str, object] = {"index": 0}
    _modern.call_tool(client, {"name": "t"}, 1.0, "call", record)
    (_, first), (_, retry) = client.sent
    # roots were asked but not declared: left out; elicitation and sampling answered as planned
    assert retry["inputResponses"] == {"b": ELICIT, "d": SAMPLE}
    assert "inputResponses" not in first and record["input_required"] == ["a", "b", "d"]


def test_no_retry_when_nothing_asked_is_declared() -> None:
    client = _Client({})
    _modern.call_tool(client, {"name": "t"}, 1.0, "call", {"index": 0})
    assert [m for m, _ in client.sent] == ["tools/call"]


def test_features_declare_what_the_host_plan_shape_says() -> None:
    features = {
        "roots": {"list_changed": False, "folders": ["/w/web #staging é", {"uri": "x:"}]},
        "elicitation": {"form": True, "url": False, "answer": ELICIT},
        "sampling": {"answer": SAMPLE},
    }
    assert _features.declared(features) == {
        "roots": {"listChanged": False},
        "elicitation": {"form": {}},
        "sampling": {},
    }
    assert _features.declared({"roots": {}}) == {"roots": {}}
    assert _features.initial_roots(features) == [
        {"uri": "file:///w/web%20%23staging%20%C3%A9", "name": "web #staging é"},
        {"uri": "x:"},
    ]
    assert _features.answer(features, [], "elicitation/create") == ELICIT
    assert _features.answer({}, [], "elicitation/create") is None
    assert _features.answer({}, [], "ping") == {}
    assert _features.answer(features, [], "tools/list") is None
