"""The scripted client's 2026-07-28 helpers (``peer/client/_modern.py``), without a server."""

from __future__ import annotations

from _revisions import revisions

from compare.exchange.peer.client import _modern
from compare.models import first_modern

BOUNDARY = first_modern(revisions())


def _plan(revision: str, caps: dict[str, object]) -> dict[str, object]:
    return {
        "revision": revision,
        "wire_version": revision,
        "first_modern": BOUNDARY,
        "capabilities": caps,
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
    plan = _plan(str(BOUNDARY), {"roots": {"listChanged": True}, "sampling": {}})
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


def test_only_roots_list_input_requests_are_answered() -> None:
    result = {
        "resultType": "input_required",
        "inputRequests": {
            "a": {"method": "roots/list"},
            "b": {"method": "elicitation/create", "params": {}},
            "c": "junk",
        },
    }
    assert _modern.roots_keys(result) == ["a"]
    assert _modern.roots_keys({"inputRequests": []}) == []
