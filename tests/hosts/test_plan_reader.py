"""The Python hosts' plan reader (``compare/hosts/host_plan.py``) judges a plan as
jsonschema does against ``host-plan.schema.json``: it reads the schema's few keywords itself
(importing jsonschema in every host start cost more than the SDK client), so this pins that it
accepts and refuses the same plans, and refuses a schema keyword it cannot read."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from compare.exchange._host_plan import HOST_PLAN_SCHEMA, HOSTS, common, host_plan

SCHEMA: dict[str, Any] = json.loads(HOST_PLAN_SCHEMA.read_text(encoding="utf-8"))


def _reader() -> ModuleType:
    spec = importlib.util.spec_from_file_location("host_plan_reader", HOSTS / "host_plan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


READER = _reader()


def _full() -> dict[str, Any]:
    """A valid plan naming every feature (the common variants' fragments together)."""
    features: dict[str, Any] = {}
    for name in ("roots", "elicitation", "sampling"):
        features |= common().variants[name]["features"]
    plan = host_plan({"features": features}, Path("/cell/ws"), Path("/cell/control"))
    plan["options"] = {"roots_form": "documented"}
    return plan


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(plan: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        node: Any = plan
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if value is _DELETE:
            del node[last]
        elif isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


_DELETE = object()
MUTATIONS = {
    "valid": lambda plan: None,
    "format-2": _set("format", 2),
    "relative-workspace": _set("workspace", "ws"),
    "no-control": _set("control", _DELETE),
    "unknown-top-key": _set("surprise", 1),
    "unknown-feature": _set("features.logging", {}),
    "folders-not-list": _set("features.roots.folders", "/a"),
    "folder-relative": _set("features.roots.folders.0", "a"),
    "list-changed-string": _set("features.roots.list_changed", "yes"),
    "bad-signal": _set("features.roots.changes.0.signal", "Add Root"),
    "no-add-folders": _set("features.roots.changes.0.add_folders", []),
    "change-extra": _set("features.roots.changes.0.later", True),
    "elicit-action": _set("features.elicitation.answer.action", "maybe"),
    "elicit-no-url": _set("features.elicitation.url", _DELETE),
    "elicit-content-list": _set("features.elicitation.answer.content", []),
    "sample-no-model": _set("features.sampling.answer.model", _DELETE),
    "sample-role": _set("features.sampling.answer.role", "system"),
    "sample-content-no-type": _set("features.sampling.answer.content", {"text": "x"}),
    "session-extra": _set("session.later", 1),
    "call-tools-int": _set("session.call_tools", 1),
    "options-list": _set("options", []),
    "features-list": _set("features", []),
}


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_the_reader_accepts_and_refuses_what_jsonschema_does(name: str) -> None:
    plan = copy.deepcopy(_full())
    MUTATIONS[name](plan)
    valid = jsonschema.Draft202012Validator(SCHEMA).is_valid(plan)
    problem = READER.check(plan, SCHEMA, SCHEMA)
    assert (problem is None) == valid, problem
    assert valid == (name == "valid")
    if problem:
        assert problem.startswith("key ") and "\n" not in problem


def test_a_schema_keyword_the_reader_cannot_read_is_refused() -> None:
    schema = {**SCHEMA, "properties": {**SCHEMA["properties"], "format": {"maximum": 1}}}
    with pytest.raises(ValueError, match="maximum"):
        READER.check(_full(), schema, schema)
