"""The loader on a proxy scenario's two step lists: ``meta`` is the scripted client's (the
host's steps), ``token_of`` the peer's (the upstream's), and each is refused on the other side.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from compare._errors import CompareError
from compare.exchange._scenarios import SCENARIOS_DIR, parse_scenario
from compare.exchange._yaml import load_yaml

SHIPPED = SCENARIOS_DIR / "relay-progress.yaml"


def _shipped() -> dict[str, Any]:
    data = load_yaml(SHIPPED)
    assert isinstance(data, dict)
    return copy.deepcopy(data)


def _parse(data: dict[str, Any]) -> None:
    """Load ``data`` as if it were the shipped file (its refs resolve beside it)."""
    parse_scenario(data, SHIPPED, expected_id="relay-progress")


def test_the_shipped_proxy_scenario_carries_meta_on_the_hosts_call() -> None:
    data = _shipped()
    assert any("meta" in step for step in data["steps"])
    _parse(data)


def test_the_upstreams_steps_carry_no_meta() -> None:
    data = _shipped()
    data["upstream_steps"].insert(2, {"request": "roots/list", "meta": {"progressToken": 1}})
    with pytest.raises(CompareError, match=r"upstream_steps\.2\.meta: only the scripted client"):
        _parse(data)


def test_the_host_takes_no_token_of() -> None:
    data = _shipped()
    data["steps"].append({"notify": "notifications/progress", "token_of": "tools/call"})
    with pytest.raises(CompareError, match=r"steps\.2\.token_of: only the peer's notify steps"):
        _parse(data)


def test_token_of_goes_beside_notify() -> None:
    data = _shipped()
    data["upstream_steps"].append({"observe_s": 1, "why": "a wait of ours", "token_of": "x"})
    with pytest.raises(CompareError, match="token_of"):
        _parse(data)
