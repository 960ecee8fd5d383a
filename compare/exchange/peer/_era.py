"""The one era test, shared by the peer (which plays by it) and the judge (which reads by it).

An era boundary is the first revision that carries protocol metadata per request instead of an
``initialize`` handshake. It is not typed here: the harness derives it from the pins (the
first pinned revision whose generated models have no ``InitializeRequest``,
``compare.models.first_modern``) and writes it into the plan, and the judge asks the same
function. ``FIRST_MODERN`` is only the peer's fallback for a plan that predates the field.
"""

from __future__ import annotations

#: Fallback boundary for a plan without ``first_modern`` (what the pins said when it was written).
FIRST_MODERN = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"


def is_modern(version: object, first_modern: str | None = FIRST_MODERN) -> bool:
    """A dated revision from ``first_modern`` on (or draft); anything else, junk included, is not.

    ``first_modern`` None means no known revision is past the handshake era, so nothing is.
    Dated names sort as text, and ``draft`` sorts after every date.
    """
    if not isinstance(version, str) or not first_modern:
        return False
    dated = len(version) == 10 and version[:4].isdigit() and version[4] == "-"
    return (dated or version == "draft") and version >= first_modern
