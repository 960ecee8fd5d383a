"""Reports how many examples each fuzz target ran, for the figures of the closing note."""

from __future__ import annotations

import pytest
from _strategies import EXAMPLES


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not EXAMPLES:
        return
    terminalreporter.section("fuzz examples run")
    for target, count in sorted(EXAMPLES.items()):
        terminalreporter.write_line(f"{count:6d}  {target}")
