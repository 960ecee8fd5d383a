"""A check's parameters (``with:``), checked against its rule when the scenario loads.

A generic rule reads its method, definition and capability from the check, so a typo there
would otherwise surface only as a quiet ``not-asked`` or a "not run" in every cell. Here each
parameter is held to what its rule declares (``compare.judge.rules.Param``): no unknown
name, every required one given, a step label the scenario has, a method some step sends, and
a schema definition or client capability that exists at every revision the check plays at —
read from the pinned schemas through the models stage, so a new revision that drops a
definition is a load error naming the revision, not a wrong verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from compare._errors import CompareError
from compare.judge.rules import Param, Rule


def check_params(
    rule: Rule,
    params: Mapping[str, Any],
    where: str,
    labels: set[str],
    requests: set[str],
    revisions: Iterable[str],
) -> None:
    """Refuse ``params`` (a check's ``with:``) unless they are what ``rule`` takes.

    ``where`` names the check (``<file>: key checks.N``), ``labels`` the scenario's step
    labels, ``requests`` the methods its steps send and ``revisions`` those the check plays at.
    """
    known = rule.params
    if params and not known:
        raise CompareError(
            f"{where}.with: rule {rule.name} takes no parameters",
            "remove with:, or name a rule that takes them",
        )
    for name in params:
        if name not in known:
            raise CompareError(
                f"{where}.with.{name}: rule {rule.name} has no parameter {name!r}",
                f"its parameters: {', '.join(sorted(known))}",
            )
    for name, spec in known.items():
        if spec.required and name not in params:
            raise CompareError(
                f"{where}.with: rule {rule.name} needs {name} ({spec.doc})",
                f"add {name}: to the check's with:",
            )
        if name in params and spec.needs and spec.needs not in params:
            raise CompareError(
                f"{where}.with.{name}: only beside {spec.needs}",
                f"add {spec.needs}: to the check's with:, or drop {name}",
            )
    played = list(revisions)
    for name, value in params.items():
        _check_one(known[name], name, str(value), f"{where}.with.{name}", labels, played)
    _check_sent(known, params, where, requests)


def _check_one(
    spec: Param, name: str, value: str, where: str, labels: set[str], revisions: list[str]
) -> None:
    if spec.kind == "label" and value not in labels:
        raise CompareError(
            f"{where}: no step is labelled {value!r}",
            f"step labels: {', '.join(sorted(labels)) or '(none)'}",
        )
    if spec.kind == "code" and not value.lstrip("-").isdigit():
        raise CompareError(
            f"{where}: {value!r} is not a JSON-RPC error code",
            "write the integer code, e.g. -32602",
        )
    if spec.kind == "index" and not value.isdigit():
        raise CompareError(
            f"{where}: {value!r} is not an index",
            "write the request's position in host_session, counted from 0",
        )
    if spec.kind == "definition":
        missing = [r for r in revisions if value not in _definitions(r)]
        if missing:
            raise CompareError(
                f"{where}: {value!r} is not a schema definition at {', '.join(missing)}",
                "narrow the check's revisions: to where it exists, or name the definition"
                " that revision has",
            )
    side = {"capability": "Client", "server_capability": "Server"}.get(spec.kind)
    if side:
        members = _client_capabilities if side == "Client" else _server_capabilities
        missing = [r for r in revisions if value not in members(r)]
        if missing:
            raise CompareError(
                f"{where}: {side}Capabilities has no {value!r} at {', '.join(missing)}",
                "narrow the check's revisions: to where the capability exists",
            )


def _check_sent(
    known: Mapping[str, Param], params: Mapping[str, Any], where: str, requests: set[str]
) -> None:
    """A request rule without a named step reads the first step that sends its method: the
    scenario must have one, or every cell would read not-asked."""
    method = params.get("method")
    if "step" not in known or method is None or params.get("step"):
        return
    if str(method) not in requests:
        raise CompareError(
            f"{where}.with.method: no step of the scenario sends {method!r}",
            "add a step that sends it, or name the step with step:",
        )


def _definitions(revision: str) -> frozenset[str]:
    """The schema definitions of ``revision`` (the models stage caches them per pinned file)."""
    from compare.models import schema_index

    return schema_index(revision).definitions


def _client_capabilities(revision: str) -> frozenset[str]:
    """The members of ``ClientCapabilities`` at ``revision`` (their JSON names), read from
    the pinned schema like the definitions: importing every revision's generated models to
    learn a few property names cost more than the rest of loading the scenarios, on every
    command that loads them (tests/models pins that the models' fields are these names)."""
    from compare.models import schema_index

    return schema_index(revision).client_capabilities


def _server_capabilities(revision: str) -> frozenset[str]:
    """The members of ``ServerCapabilities`` at ``revision``, read as the client's are."""
    from compare.models import schema_index

    return schema_index(revision).server_capabilities


def step_requests(data: Mapping[str, Any]) -> set[str]:
    """The methods a scenario's steps send as requests (the peer's and, in a proxy scenario,
    the upstream's)."""
    return {
        str(step["request"])
        for key in ("steps", "upstream_steps")
        for step in data.get(key, [])
        if isinstance(step, dict) and "request" in step
    }
