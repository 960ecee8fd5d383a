"""How the suite is split between pytest-xdist workers (``make pytest`` runs ``-n`` workers with
``--dist loadscope``, whose scheduler is :class:`GroupScheduling`).

Much of the suite's time is spent waiting on real programs (a client starting, an observe
window, a JVM), so three workers on two cores finish in about half the time of one. But
many modules play their cells once, in a module- or session-scoped fixture, and every test of
the module reads that one run: spread over workers, each worker would play it again. So the
unit handed to a worker is a *group*: by default a whole module. A module whose one big run is
really one run per target is named in ``SPLIT``: its tests are grouped by their target (its
fixture then plays one target at a time), and the targets go to different workers.

The groups are handed out longest first, so that the last group to start is a short one and no
worker idles while another still has a quarter of an hour of cells queued. ``SLOW`` holds the
measured cost of the slow groups; every other group is taken as short and keeps its collection
order.

xdist's own ``loadgroup`` would do the grouping from a mark, but with pytest 9 it cannot: it
renames each item's ``_nodeid``, which pytest 9 no longer reads, so every test became a group
of its own. Grouping by node id in the scheduler needs nothing from the items.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

#: Modules that split by target: every test of theirs takes the one parameter ``target``, so
#: the target is the whole id between the brackets of the test's node id.
SPLIT = frozenset({"tests/hosts/test_sdk_runs.py"})

#: Modules that read one costly session fixture run as one group (named for the module that
#: holds what they share), so one worker sets it up once for all of them: the matrix browser
#: modules share the widened site (``tests/site/wide_site.py``), half a minute to a minute to
#: build, which each of them built on its own before; the browser module and the maintainers'
#: browser module share the small site (``tests/site/small_site.py``), a quarter of a minute.
TOGETHER: dict[str, str] = {
    "tests/site/test_site_matrix_browser.py": "tests/site/wide_site.py",
    "tests/site/test_site_reader_browser.py": "tests/site/wide_site.py",
    "tests/site/test_site_browser.py": "tests/site/small_site.py",
    "tests/site/test_site_maintainers_browser.py": "tests/site/small_site.py",
}

#: Seconds one worker spent on each slow group (``-n 3`` on a loaded 2-core machine,
#: 2026-12-03, from ``--junitxml``; the groups issue 37 cut to a smoke set re-estimated on
#: 2026-12-05 from their own runs; the groups narrowed again later scaled by their own
#: before/after times, each module run alone; test_kill_compare and test_real_refresh
#: narrowed on 2026-12-06 and timed alone); only the order matters, so an estimate that
#: is off by a third does no harm. The CLI clients' module is not here: ``make pytest`` runs
#: it alone first.
SLOW: dict[str, float] = {
    "tests/pipeline/test_pipeline.py": 75,
    # the two matrix browser modules (TOGETHER), sharing one build since 2026-12-06: their
    # 150 + 92 s less the build one of them no longer makes
    "tests/site/wide_site.py": 200,
    "tests/site/test_site_render.py": 147,
    "tests/hosts/test_hosts.py": 60,  # since 2026-12-07: the start and hang-up runs alone
    # the browser and the maintainers' browser modules (TOGETHER), sharing one build since
    # 2026-12-06: their 106 + 45 s less the build the maintainers' one no longer makes
    "tests/site/small_site.py": 130,
    "tests/fuzz/test_fuzz_judge.py": 97,
    "tests/play/test_real_proxies.py": 85,
    "tests/pipeline/test_kill_compare.py": 40,
    "tests/hosts/test_host_contract.py": 78,
    "tests/test_contracts.py": 35,
    "tests/play/test_kill.py": 75,
    "tests/play/test_real_servers.py": 60,
    "tests/play/clients/test_proxies_alone.py": 56,
    "tests/play/test_real_refresh.py": 10,
    "tests/play/test_repeat.py": 17,
    # issue 42's site modules, each run alone on 2026-12-06
    "tests/site/test_site_evidence_pages.py": 37,
    "tests/site/test_site_interop.py": 25,
    "tests/site/test_site_answers.py": 10,  # one render since 2026-12-06 (was 22)
}


def group_of(nodeid: str) -> str:
    """The group of a test: its module, its module and its parameter where the module splits
    (``SPLIT``), or the group its module shares with others (``TOGETHER``)."""
    module = nodeid.split("::", 1)[0]
    if module in SPLIT and nodeid.endswith("]") and "[" in nodeid:
        return f"{module}:{nodeid[nodeid.index('[') + 1 : -1]}"
    return TOGETHER.get(module, module)


def sort_items(items: list[pytest.Item]) -> None:
    """Collection order, longest groups first (each group's items together, in their order):
    the scheduler hands out groups in the order it first meets them."""
    groups = {item.nodeid: group_of(item.nodeid) for item in items}
    order: dict[str, int] = {}
    for group in groups.values():
        order.setdefault(group, len(order))
    items.sort(key=lambda i: (-SLOW.get(groups[i.nodeid], 0.0), order[groups[i.nodeid]]))


class GroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
    """xdist's scope scheduling with our groups as the scopes, in collection order."""

    def __init__(self, config: pytest.Config, log: Any = None) -> None:
        super().__init__(config, log)
        config.option.loadscopereorder = False  # keep sort_items' order

    def _split_scope(self, nodeid: str) -> str:
        return group_of(nodeid)
