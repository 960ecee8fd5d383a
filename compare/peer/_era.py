"""The one era test, shared by the peer (which plays by it) and the judge (which reads by it).

An era boundary is the first revision that carries protocol metadata per request instead of an
``initialize`` handshake. It is not typed here: the harness derives it from the pins (the
first pinned revision whose generated models have no ``InitializeRequest``,
``compare.models.first_modern``) and writes it into the plan, and the judge asks the same
function. A plan without it is refused when it is loaded (``_main.load_plan``): the boundary
has no default here, so pinning a revision that moves it cannot leave a stale copy behind.

Release order itself is ``compare.pin.release_order``; this process, which imports nothing
outside its folder, compares a dated name to the plan's boundary as the date it spells
(``draft`` after every date), and ``tests/exchange/test_revision_order.py`` holds the two to
the same answer for every pinned revision.
"""

from __future__ import annotations

META_VERSION = "io.modelcontextprotocol/protocolVersion"


def is_modern(version: object, first_modern: str | None) -> bool:
    """A dated revision from ``first_modern`` on (or draft); anything else, junk included, is not.

    ``first_modern`` None means no known revision is past the handshake era, so nothing is.
    Dated names sort as text, and ``draft`` sorts after every date.
    """
    if not isinstance(version, str) or not first_modern:
        return False
    dated = len(version) == 10 and version[:4].isdigit() and version[4] == "-"
    return (dated or version == "draft") and version >= first_modern


#: The variable the harness sets in every client's environment, naming the cell (its
#: processes are found by it); the peer notes whether it reached it. Said once, here, for
#: the peer and the harness both.
CELL_ENV = "MCP_COMPARE_CELL"
