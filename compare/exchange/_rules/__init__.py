"""Judge rules: each reads a transcript and names one outcome; the scenario YAML grades it.

A rule returns an outcome name, what it observed and the transcript lines that show it. It
never decides pass or fail itself — that lives in the scenario file beside the spec
references, so a reviewer can see and change a grading without reading code.

One module per responsibility: the cell's context, the registry and shared gates, then the
rules of the handshake, of roots/list, of notifications, of 2026-07-28 multi-round-trip
requests, of servers (asked through the scripted client), of servers' enforcement of roots
(read from probe calls), of proxies (both ends ours), of the wire itself and of its hygiene
(who answers what). Importing
this package registers every rule in ``RULES``.
"""

from __future__ import annotations

from compare.exchange._rules import (
    enforce,
    handshake,
    hygiene,
    mrtr,
    notify,
    relay,
    relay_calls,
    relay_stream,
    roots,
    server,
    server_modern,
    wire,
)
from compare.exchange._rules._context import Context
from compare.exchange._rules._registry import EARLY, RULES, Outcome, Rule, rule

#: The rule modules, imported for their registrations (each ``@rule`` adds to ``RULES``).
MODULES = (
    handshake, roots, notify, mrtr, server, server_modern, enforce, relay, relay_calls,
    relay_stream, wire, hygiene,
)  # fmt: skip

__all__ = ["EARLY", "MODULES", "RULES", "Context", "Outcome", "Rule", "rule"]
