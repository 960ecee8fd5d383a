"""How many cores this process may use: the default number of cells run at once.

Its own module so that ``mcp-compare compare`` can size its run stage before importing the
exchange stage (whose imports cost more than a warm pipeline is allowed to take).
"""

from __future__ import annotations

import os


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the machine's count): the default
    of ``--jobs``. Each cell is a client process of its own, so cells scale with cores."""
    counter = getattr(os, "process_cpu_count", None)  # Python >= 3.13
    if counter is not None:
        return max(1, int(counter() or 1))
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


#: Cells in flight per core by default (``--jobs``). Most of a cell's wall time is waiting
#: (``compare.play._schedule`` lets only as many cells *start* at once as there are cores),
#: so four per core overlap the matrix's waits without crowding memory.
IN_FLIGHT_PER_CORE = 4
#: What ``--jobs`` means, for every command that plays cells.
JOBS_HELP = (
    "Cells in flight at once (default: 4 per usable core); as many start at once as there "
    "are cores."
)


def default_jobs() -> int:
    """Cells in flight when ``--jobs`` is not given."""
    return IN_FLIGHT_PER_CORE * usable_cores()
