"""Running the registries' own clients (npm, pip, cargo): every failure is a CompareError."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from compare._errors import CompareError
from compare.exchange.install._home import install_env

#: An install that takes longer than this is treated as a hung registry, not waited for.
INSTALL_TIMEOUT_S = 900


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
    try:
        done = subprocess.run(
            list(argv),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=INSTALL_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CompareError(
            f"{what}: no result after {INSTALL_TIMEOUT_S} s",
            "check that the package registry is reachable, then retry",
        ) from None
    except OSError as err:
        raise CompareError(f"{what}: cannot start {argv[0]}: {err}", None) from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        # npm states the cause first and its help last; pip the other way round: keep both ends.
        shown = lines if len(lines) <= 14 else [*lines[:8], "…", *lines[-5:]]
        tail = "\n".join(shown)
        raise CompareError(
            f"{what} failed (exit {done.returncode}):\n{tail}",
            "check the package name and version in the target file and that the registry "
            "is reachable",
        )
    return done.stdout
