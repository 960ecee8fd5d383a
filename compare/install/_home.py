"""The environment npm and pip run in: a scratch home, but the user's caches and settings.

Package install scripts write into the home folder: opencode-ai's postinstall runs
``opencode --version``, which creates ``~/.config/opencode``, ``~/.local/share/opencode``,
``~/.local/state/opencode`` and ``~/.cache/opencode``. Installing our pinned clients must not
leave such folders in the maintainer's real home, so every installer subprocess gets ``HOME``
and the four XDG base folders pointed at ``<tools>/.install-home/`` (gitignored, kept between
runs so what a script wrote can be inspected).

Moving the home would also move what npm and pip read from it, so three things are handed
over explicitly, each from the *real* home as it was before the move:

- the download caches (``npm_config_cache``, ``PIP_CACHE_DIR``): a fresh cache per tools
  folder would re-download hundreds of megabytes on every clean install; the user's cache is
  content-addressed and shared by design, so reusing it changes no result, only the time;
- the user's npm settings (``npm_config_userconfig`` = ``~/.npmrc``): registry, proxy and
  lock-file options such as ``omit-lockfile-registry-resolved`` decide what the lock holds;
- the user's pip settings (``PIP_CONFIG_FILE``): an index or ``find-links`` set there is how
  pip reaches packages on some machines.

A value the user already set in the environment is kept as it is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: The scratch home, relative to the tools folder.
SCRATCH_HOME = ".install-home"

#: The XDG base folders, and where each lives inside a home when unset.
_XDG = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
}


def scratch_home(tools: Path) -> Path:
    """Where installer subprocesses see their home for this tools folder."""
    return tools / SCRATCH_HOME


def _get(env: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        value = env.get(name)
        if value:
            return value
    return None


def _npmrc_sets_cache(npmrc: Path) -> bool:
    """Whether the user's ``.npmrc`` names a cache folder itself (then npm reads it there)."""
    try:
        text = npmrc.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.split("=", 1)[0].strip() == "cache" for line in text.splitlines())


def _pip_config(env: Mapping[str, str], home: Path) -> Path | None:
    """The user's own pip config file, found as pip would find it from the real home."""
    xdg = _get(env, "XDG_CONFIG_HOME")
    candidates = [Path(xdg) / "pip" / "pip.conf"] if xdg else []
    candidates += [home / ".config" / "pip" / "pip.conf", home / ".pip" / "pip.conf"]
    return next((path for path in candidates if path.is_file()), None)


def install_env(tools: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for one npm or pip subprocess installing into ``tools``."""
    env = dict(os.environ if base is None else base)
    real_home = Path(env.get("HOME") or Path.home())
    real_cache = Path(_get(env, "XDG_CACHE_HOME") or real_home / ".cache")

    npmrc = Path(_get(env, "npm_config_userconfig", "NPM_CONFIG_USERCONFIG") or "")
    if not npmrc.name:
        npmrc = real_home / ".npmrc"
        if npmrc.is_file():
            env["npm_config_userconfig"] = str(npmrc)
    if not _get(env, "npm_config_cache", "NPM_CONFIG_CACHE") and not _npmrc_sets_cache(npmrc):
        env["npm_config_cache"] = str(real_home / ".npm")
    if not _get(env, "PIP_CACHE_DIR"):
        env["PIP_CACHE_DIR"] = str(real_cache / "pip")
    if not _get(env, "PIP_CONFIG_FILE"):
        found = _pip_config(env, real_home)
        if found is not None:
            env["PIP_CONFIG_FILE"] = str(found)

    home = scratch_home(tools).resolve()
    env["HOME"] = str(home)
    for name, sub in _XDG.items():
        env[name] = str(home / sub)
        (home / sub).mkdir(parents=True, exist_ok=True)
    return env
