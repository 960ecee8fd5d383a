"""Fixtures of the site tests: a temp data set in the contract formats, a hostile real run, the
widened site the matrix browser modules share (``wide_site.py``) and the small site the other
two browser modules share (``small_site.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from site_data import write_dataset

from compare._paths import PROJECT_ROOT

MC = [sys.executable, "-m", "compare"]
HOSTILE_CLIENT = Path(__file__).with_name("hostile_client.py")


@pytest.fixture
def site_env(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Results, build data and a site folder under tmp, filled with the small data set."""
    monkeypatch.setenv("MCP_COMPARE_SITE", str(isolated / "site"))
    write_dataset(isolated)
    yield isolated


def mc(
    *args: str, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run the real ``mcp-compare`` command line (as ``python -m compare``)."""
    return subprocess.run(
        [*MC, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=PROJECT_ROOT,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture(scope="session")
def hostile_results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real cell: the engine's ``command`` target driving the hostile fake client."""
    results = tmp_path_factory.mktemp("hostile") / "results"
    command = f"{sys.executable} {HOSTILE_CLIENT} -- {{server}}"
    proc = mc(
        "run",
        "--target",
        "command",
        "--command",
        command,
        "--scenario",
        "roots-list",
        "--revision",
        "2025-11-25",
        "--results",
        str(results),
        timeout=120,
    )
    assert proc.returncode in (0, 1), f"mcp-compare run failed:\n{proc.stdout}\n{proc.stderr}"
    verdicts = list(results.glob("command/*/roots-list/2025-11-25*/verdict.json"))
    assert verdicts, f"no verdict written under {results}:\n{proc.stdout}\n{proc.stderr}"
    return results


@pytest.fixture(scope="session")
def wide_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The widened site, built once per test process for both matrix browser modules (it is
    the longest setup of the site tests; ``wide_site.py`` says what it holds)."""
    # Imported here, not at the top: wide_site imports this module (for mc).
    from wide_site import build_wide_site

    return build_wide_site(tmp_path_factory.mktemp("wide"))


@pytest.fixture(scope="session")
def small_site(tmp_path_factory: pytest.TempPathFactory, hostile_results: Path) -> Path:
    """The small data set and the hostile client's real cell, built once per test process for
    ``test_site_browser`` and ``test_site_maintainers_browser`` (``small_site.py``)."""
    # Imported here, not at the top: small_site imports this module (for mc).
    from small_site import build_small_site

    return build_small_site(tmp_path_factory.mktemp("small"), hostile_results)
