"""The tools commands: install from the locks, re-lock from the targets, list what is there."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from compare import _lock, _paths
from compare._errors import CompareError
from compare.install import _cargo, _go, _maven, _npm, _pypi
from compare.install._pins import Pin, load_pins

#: Registries whose pins are host programs of ours built against the pinned library:
#: registry -> its builder (``install``, ``lock``, ``installed_version``).
HOST_BUILDERS = {"go": _go, "crates": _cargo, "maven": _maven}


@dataclass(frozen=True)
class ToolStatus:
    """One pinned package and what the tools folder holds for it."""

    target: str
    registry: str
    name: str
    pinned: str
    installed: str | None

    @property
    def ok(self) -> bool:
        return self.installed == self.pinned


@dataclass(frozen=True)
class InstallReport:
    """What an install or lock did, how long it took, and how big the tools folder is."""

    steps: list[str]
    seconds: float
    size_bytes: int
    tools: Path
    #: Each step's own wall time, in the order of ``steps`` (empty: not timed one by one).
    step_seconds: list[float] = field(default_factory=list)


def folder_size(path: Path) -> int:
    """Bytes of regular files under ``path`` (symlinks not followed)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


@contextmanager
def _exclusive(folder: Path) -> Iterator[None]:
    """One install or lock at a time per tools folder: a second says whom it waits for, then
    waits (``compare._lock``; re-entrant, so ``tools install``, which already holds it, passes)."""
    with _lock.holding(folder, "tools folder"):
        yield


def without(pins: list[Pin], leave_out: frozenset[str]) -> list[Pin]:
    """The pins whose package name and target id are both outside ``leave_out``."""
    unknown = leave_out - {p.name for p in pins} - {p.target for p in pins}
    if unknown:
        names = ", ".join(sorted(unknown))
        raise CompareError(
            f"leaving out {names}: no target or package of that name is pinned (--except)"
        )
    return [p for p in pins if p.name not in leave_out and p.target not in leave_out]


def _split(pins: list[Pin]) -> tuple[list[Pin], list[Pin], list[Pin], list[Pin]]:
    """npm pins of the shared tree (installed together; a pin with a tree of its own is
    installed apart, ``_npm.install_own``), PyPI pins (a venv each), host pins (a host program
    of ours built against the pinned library, by the builder of its registry) and crates
    installed as programs (``cargo install``, one per crate)."""
    npm = [p for p in pins if p.registry == "npm" and not _npm.is_own(p)]
    crates = [p for p in pins if _cargo.is_binary(p)]
    hosts = [p for p in pins if p.registry in HOST_BUILDERS and not _cargo.is_binary(p)]
    return npm, [p for p in pins if p.registry == "pypi"], hosts, crates


def install_tools(
    targets_dir: Path | None = None,
    tools: Path | None = None,
    leave_out: frozenset[str] | None = None,
) -> InstallReport:
    """Install every target's package at its pinned version; fast when nothing changed.

    ``leave_out`` names packages or targets not to install this time (default: those of
    ``MCP_COMPARE_TOOLS_EXCEPT``, those of them these targets pin; ``make test`` leaves out
    a program only the golden cells keep, whose build was CI's largest); a name given here
    that matches no pin is refused, so a typo cannot silently install everything."""
    folder = tools or _paths.tools_dir()
    start = time.monotonic()
    pins = load_pins(targets_dir)
    if leave_out is None:  # the environment's names may be of another set of targets
        names = {p.name for p in pins} | {p.target for p in pins}
        leave_out = _paths.tools_left_out() & names
    pins = without(pins, leave_out)
    npm, pypi, hosts, crates = _split(pins)
    jobs: list[Callable[[], str]] = [functools.partial(_npm.install, npm, folder)]
    jobs += [functools.partial(_npm.install_own, pin, folder) for pin in pins if _npm.is_own(pin)]
    jobs += [functools.partial(_pypi.install, pin, folder) for pin in pypi]
    jobs += [functools.partial(HOST_BUILDERS[pin.registry].install, pin, folder) for pin in hosts]
    if crates:
        jobs.append(functools.partial(_cargo.install_binaries, crates, folder))
    # The compiles start first (a crate program, then the hosts: minutes of CPU each on a
    # cold machine) and the downloads fill the slots beside them; reported in the list's order.
    downloads = len(jobs) - len(hosts) - bool(crates)
    order = list(range(len(jobs)))[downloads:][::-1] + list(range(downloads))
    took: list[float] = []
    with _exclusive(folder):
        steps = _in_parallel(jobs, took, order)
    return InstallReport(steps, time.monotonic() - start, folder_size(folder), folder, took)


#: Installs at once: npm and pip mostly wait on the network, a host build on the CPU, so a
#: few side by side finish sooner than one after another on a 2-core machine.
PARALLEL_INSTALLS = 3


def _in_parallel(
    jobs: list[Callable[[], str]],
    seconds: list[float] | None = None,
    order: list[int] | None = None,
) -> list[str]:
    """Run independent installs side by side (each writes only its own folder under tools/);
    results keep the jobs' order, and the first failure is raised once all have ended.
    ``seconds`` receives each job's wall time, in the same order: what a cold start is made of.
    ``order`` is the order the jobs are started in (by index; default: the list's order).
    """
    took = [0.0] * len(jobs)

    def timed(index: int) -> str:
        start = time.monotonic()
        try:
            return jobs[index]()
        finally:
            took[index] = round(time.monotonic() - start, 1)

    with ThreadPoolExecutor(max_workers=PARALLEL_INSTALLS) as pool:
        started = {i: pool.submit(timed, i) for i in (order or range(len(jobs)))}
        futures = [started[i] for i in range(len(jobs))]
        wait(futures)
    if seconds is not None:
        seconds[:] = took
    return [f.result() for f in futures]


def lock_tools(targets_dir: Path | None = None, tools: Path | None = None) -> InstallReport:
    """Re-resolve every target's package and rewrite the lock files (then commit them)."""
    folder = tools or _paths.tools_dir()
    start = time.monotonic()
    pins = load_pins(targets_dir)
    npm, pypi, hosts, crates = _split(pins)
    with _exclusive(folder):
        steps = [_npm.lock(npm, folder)] + [_pypi.lock(pin, folder) for pin in pypi]
        steps += [_npm.lock_own(pin, folder) for pin in pins if _npm.is_own(pin)]
        steps += [HOST_BUILDERS[pin.registry].lock(pin, folder) for pin in hosts]
        steps += [_cargo.lock_binary(pin) for pin in crates]
    return InstallReport(steps, time.monotonic() - start, folder_size(folder), folder)


def tool_status(targets_dir: Path | None = None, tools: Path | None = None) -> list[ToolStatus]:
    """Pinned versus installed, per target package."""
    folder = tools or _paths.tools_dir()
    out: list[ToolStatus] = []
    for pin in load_pins(targets_dir):
        if _npm.is_own(pin):
            got = _npm.installed_version(_npm.own_folder(folder, pin), pin.name)
        elif pin.registry == "npm":
            got = _npm.installed_version(folder, pin.name)
        elif _cargo.is_binary(pin):
            got = _cargo.installed_binary_version(folder, pin.name)
        elif pin.registry in HOST_BUILDERS:
            got = HOST_BUILDERS[pin.registry].installed_version(folder, pin.target, pin.name)
        else:
            got = _pypi.installed_version(folder, pin.target, pin.name)
        out.append(ToolStatus(pin.target, pin.registry, pin.name, pin.version, got))
    return out


def check_status(statuses: list[ToolStatus]) -> None:
    """Raise a CompareError naming every package that is missing or at another version."""
    bad = [s for s in statuses if not s.ok]
    if bad:
        detail = ", ".join(
            f"{s.target}: {s.name} {s.installed or 'missing'} (pinned {s.pinned})" for s in bad
        )
        raise CompareError(
            f"tools do not match the targets: {detail}", "run: mcp-compare tools install"
        )
