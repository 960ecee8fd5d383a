"""Fixtures shared by every stage's tests.

Tests never touch the checkout's own outputs: ``isolated`` points every location of
``compare._paths`` at a temporary folder. The offline spec source is ``../shared/mcp-spec``
(read in place, never copied into the project).

``pinned_spec`` pins that source once per session into a session cache (with the project's
real ``schemas/revisions.toml``, so every sha256 is checked) and points ``MCP_COMPARE_CACHE``
at it, so any test can call ``compare.pin.pinned_path()``. ``isolated`` gives each test its
own copy of that verified cache, so a test that tampers with it harms nobody else.

Parsed data files are cached for the session in a folder of its own (``yaml_cache``).

``golden`` gives a test the golden file of its measurements (``tests/_golden.py``);
``--update-golden`` (what ``make golden`` passes) writes observed values instead of comparing,
and ``--golden-dir`` points at another folder (to try an update without touching the real one).
Revision lists come from ``tests/_revisions.py``, never spelled out.

The property-based tests (``tests/fuzz/``) run under the hypothesis profile ``ci``, loaded
here: derandomized (each run tries the same examples, so CI is reproducible and a failure
reproduces locally), no example database (nothing written into the checkout), no deadline
(a loaded 2-core machine must not turn slowness into a failure). Each test sets its own
``max_examples`` (sized so that all of them take about a minute on 2 cores);
``HYPOTHESIS_PROFILE=explore`` selects fresh random examples instead, for a local hunt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _golden import GoldenFile, GoldenStore
from _groups import GroupScheduling, sort_items
from _isolate import isolate
from hypothesis import settings

from compare._paths import PROJECT_ROOT

SHARED_SPEC = PROJECT_ROOT.parent / "shared" / "mcp-spec"
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
_GOLDEN = pytest.StashKey[GoldenStore]()

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", database=None, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("golden", "golden files of measured client behaviour")
    group.addoption(
        "--update-golden",
        action="store_true",
        help="write what the clients did into the golden files instead of comparing (make golden)",
    )
    group.addoption(
        "--golden-dir",
        type=Path,
        default=GOLDEN_DIR,
        help=f"folder of the golden files (default {GOLDEN_DIR})",
    )


def pytest_configure(config: pytest.Config) -> None:
    folder = Path(config.getoption("--golden-dir")).resolve()
    config.stash[_GOLDEN] = GoldenStore(folder, bool(config.getoption("--update-golden")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Longest groups of tests first, for the workers ``make pytest`` starts
    (``tests/_groups.py`` says why and how); a run in one process keeps them in this order
    too."""
    sort_items(items)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``--dist loadscope`` hands out our groups (a module, or one target of a module that
    plays per target) instead of xdist's scopes."""
    if config.getvalue("dist") == "loadscope":
        return GroupScheduling(config, log)
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    store = session.config.stash.get(_GOLDEN, None)
    if store is None or not store.update:
        return
    lines = store.flush() or ["golden: nothing measured, no file written"]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for line in lines:
        if reporter is not None:
            reporter.write_line(line)
        else:
            print(line)


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[str], GoldenFile]:
    """``golden(name)``: the golden file ``<golden dir>/<name>.json`` of this session."""
    return request.config.stash[_GOLDEN].file


@pytest.fixture(scope="session", autouse=True)
def yaml_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache of parsed data files for the whole session (``compare._yaml_cache``), out of
    the checkout: the fuzz tests parse thousands of random texts, which must not pile up in
    the project's ``.cache/``, and every test that moves ``MCP_COMPARE_CACHE`` still reads
    the shipped files parsed once."""
    folder = tmp_path_factory.mktemp("yaml-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_YAML_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="session")
def shared_spec() -> Path:
    """The offline spec source; its absence is a failure with a reason, not a skip."""
    if not (SHARED_SPEC / "MANIFEST.tsv").is_file():
        pytest.fail(f"offline spec source missing: expected {SHARED_SPEC}/MANIFEST.tsv")
    return SHARED_SPEC


@pytest.fixture(scope="session")
def pinned_spec(shared_spec: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A session cache holding every pinned file, fetched from the offline source and verified.

    Yields the cache folder (the value of ``MCP_COMPARE_CACHE`` for the session).
    """
    from compare._errors import CompareError
    from compare.pin import fetch, load_pins

    cache = tmp_path_factory.mktemp("session-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(cache))
        patch.delenv("MCP_COMPARE_SCHEMAS", raising=False)
        try:
            fetch(load_pins(), str(shared_spec), lambda _message: None)
        except CompareError as err:
            pytest.fail(f"could not pin the offline spec for the test session: {err}")
        yield cache


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pinned_spec: Path) -> Iterator[Path]:
    """Point cache, results and build outputs at ``tmp_path`` for one test.

    The cache starts with a private copy of the session's verified spec files.
    """
    isolate(tmp_path, monkeypatch, pinned_spec)
    assert os.environ["MCP_COMPARE_CACHE"] == str(tmp_path / "cache")
    yield tmp_path
