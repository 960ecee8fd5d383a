"""The stamp of ``mcp-compare tools install`` (``build/stamps/tools.json``, see
``compare._stamp``): skip the whole install while the locks, the target files, our host
programs' sources, the toolchains and every installer's own stamp are what the last install
saw.

Each installer already skips an unchanged install, but asking all of them (and weighing the
2 GiB tools folder for the report) costs most of a second on every ``make compare``; this
check costs a few stat calls. Installed packages are judged by the installers' own stamps,
exactly as the installers judge them. It lives outside ``compare.exchange`` so that asking it
does not import the exchange stage (``compare/cli.py`` asks it before mounting any command).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from compare import _paths
from compare._stamp import Digest, why_stale

STAGE = "tools"
_EXCHANGE = Path(__file__).resolve().parent.parent / "exchange"
#: Programs an install runs: a new toolchain (another path, size or date) means a new build.
_TOOLCHAINS = ("node", "npm", "go", "cargo", "rustc", "java", "javac", "mvn", "python3")
#: Settings the installers read from the environment.
_ENV = ("PATH", "GOFLAGS", "GOTOOLCHAIN", "GOMODCACHE", "GOCACHE", "GOENV", "MCP_COMPARE_M2_REPO")


def inputs(targets_dir: Path | None = None, left_out: frozenset[str] | None = None) -> str:
    """Digest of everything an install depends on, and of what it was told to leave out
    (default: ``MCP_COMPARE_TOOLS_EXCEPT``'s): an install that left a program out does not
    stand for one that must install it."""
    tools = _paths.tools_dir()
    digest = Digest(STAGE).settings().code("install")
    left = _paths.tools_left_out() if left_out is None else left_out
    digest.text("left-out", "\n".join(sorted(left)))
    digest.tree("targets", targets_dir or _EXCHANGE / "targets", content=True)
    digest.tree("hosts", _EXCHANGE.parent / "hosts", content=True)
    locks = [tools / "package.json", tools / "package-lock.json"]
    locks += sorted(tools.glob("npm/*/package.json"))  # the targets' own npm trees
    locks += sorted(tools.glob("npm/*/package-lock.json"))
    digest.files("locks", [*locks, *sorted((tools / "requirements").glob("*.txt"))])
    for name in _ENV:
        digest.text(f"env:{name}", os.environ.get(name, "\0unset"))
    for name in _TOOLCHAINS:
        found = shutil.which(name)
        if found is None:
            digest.text(f"tool:{name}", "(not found)")
            continue
        real = Path(found).resolve()
        info = real.stat()
        digest.text(f"tool:{name}", f"{real}:{info.st_size}:{info.st_mtime_ns}")
    return digest.hexdigest()


def skipped(targets_dir: Path | None = None) -> bool:
    """True when the last install's stamp still holds (nothing to install)."""
    return why_stale(STAGE, inputs(targets_dir)) is None


def outputs() -> list[Path]:
    """Each installer's own record of what it installed, and each built host program."""
    tools = _paths.tools_dir()
    found = [
        tools / "node_modules" / ".mcp-compare-stamp",
        tools / "node_modules" / ".package-lock.json",
    ]
    for pattern in ("npm/*/node_modules/.mcp-compare-stamp", "venvs/*/.mcp-compare-stamp"):
        found += sorted(tools.glob(pattern))
    for pattern in ("venvs/*/pyvenv.cfg",):
        found += sorted(tools.glob(pattern))
    for pattern in ("hosts/*/.mcp-compare-stamp", "hosts/*/build.json", "hosts/*/bin/host"):
        found += sorted(tools.glob(pattern))
    for pattern in ("crates/*/.mcp-compare-stamp", "crates/*/bin/*"):  # cargo install --root
        found += sorted(tools.glob(pattern))
    return found
