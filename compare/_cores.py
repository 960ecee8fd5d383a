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
