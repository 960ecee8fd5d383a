"""Reports how many examples each fuzz target ran, for the figures of the closing note."""

from __future__ import annotations

import pytest
from _strategies import EXAMPLES, REACHED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not EXAMPLES:
        return
    terminalreporter.section("fuzz examples run")
    for target, count in sorted(EXAMPLES.items()):
        terminalreporter.write_line(f"{count:6d}  {target}")
    if REACHED:
        declared = _declared()
        terminalreporter.write_line(
            f"judge: {len(REACHED)} (scenario, check, outcome) triples reached"
            + (f" of {declared} declared" if declared else "")
        )


def _declared() -> int:
    """How many (scenario, check, outcome) triples the scenarios declare, when they load."""
    from compare.exchange._scenarios import common_checks, load_scenarios

    try:
        return sum(
            len(c.outcomes) for s in load_scenarios() for c in [*s.checks, *common_checks(s.side)]
        )
    except Exception:  # the figure is a nicety; the tests say whether loading works
        return 0
