"""Running the registries' own clients (npm, pip, cargo): every failure is a CompareError.

Each runs in a session of its own, registered with the run's watchdog (``compare._guard``):
when ``tools install`` is killed, interrupted or times out, the installer's whole process
group (npm's install scripts, cargo's rustc) is ended with it — never left writing into
``tools/`` under the next install.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from compare import _guard
from compare._errors import CompareError
from compare.install._home import install_env

#: An install that takes longer than this is treated as a hung registry, not waited for.
INSTALL_TIMEOUT_S = 900
#: How often a running install looks whether the run was told to stop.
POLL_S = 0.2


def require(program: str, hint: str) -> str:
    """The full path of ``program`` on PATH, or a CompareError saying how to get it."""
    found = shutil.which(program)
    if not found:
        raise CompareError(f"{program} was not found on PATH", hint)
    return found


def run(
    argv: Sequence[str],
    *,
    tools: Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    what: str,
    extra_env: Mapping[str, str] | None = None,
) -> str:
    """Run ``argv``; return its stdout, or raise a CompareError carrying the tail of its output.

    The program sees a scratch home under ``tools`` (see ``_home``), so install scripts
    cannot write into the user's real home. A builder that needs more (the go command's caches)
    passes ``env``, built on ``install_env`` itself; ``extra_env`` hands a tool back what it
    keeps in the real home on purpose (cargo's registry and toolchains).
    """
    env = dict(env) if env is not None else install_env(tools)
    env.update(extra_env or {})
    env[_guard.RUN_ENV] = _guard.run_marker()
    done = _run_group(list(argv), cwd, env, what)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        # npm's warnings are not the cause of its failure, and a tree with peer conflicts
        # (@mastra/core's) prints dozens of them before its error: drop them when there is
        # more, or the cause (`npm ci`'s "in sync", which install() reads) falls out of view.
        lines = [x for x in lines if not x.startswith("npm warn")] or lines
        # npm states the cause first and its help last; pip the other way round: keep both ends.
        shown = lines if len(lines) <= 14 else [*lines[:8], "…", *lines[-5:]]
        tail = "\n".join(shown)
        raise CompareError(
            f"{what} failed (exit {done.returncode}):\n{tail}",
            "check the package name and version in the target file and that the registry "
            "is reachable",
        )
    return done.stdout


def _run_group(
    argv: list[str], cwd: Path | None, env: dict[str, str], what: str
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in its own session; on timeout, interruption or our crash end its group."""
    _guard.check()
    watch = _guard.Watch()
    try:
        try:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                errors="replace",
                start_new_session=True,
            )
        except OSError as err:
            raise CompareError(f"{what}: cannot start {argv[0]}: {err}", None) from None
        watch.group(proc.pid)
        try:
            out, errs = _communicate(proc, what)
        except BaseException:
            _end_group(proc)
            raise
        # Whatever the installer left running in its group (a daemon) goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        return subprocess.CompletedProcess(argv, proc.returncode, out, errs)
    finally:
        watch.release()


def _communicate(proc: subprocess.Popen[str], what: str) -> tuple[str, str]:
    """Collect the output, looking up between short waits whether a signal asked us to stop
    (installs run in worker threads, which a signal handler cannot interrupt)."""
    deadline = time.monotonic() + INSTALL_TIMEOUT_S
    while True:
        _guard.check()
        try:
            return proc.communicate(timeout=POLL_S)
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise CompareError(
                    f"{what}: no result after {INSTALL_TIMEOUT_S} s",
                    "check that the package registry is reachable, then retry",
                ) from None


def _end_group(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
