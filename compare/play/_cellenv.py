"""What a cell's client starts with: its environment and the files its target asks for."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import tomli_w

from compare import _atomic, _guard
from compare.exchange._targets import Expansion, Target
from compare.play._proc import MARKER_ENV


def cell_env(target: Target, exp: Expansion, token: str, tmp: Path, tools: Path) -> dict[str, str]:
    """A clean environment: fresh HOME, XDG and TMPDIR, a short PATH, no inherited secrets."""
    home = exp.home
    node = shutil.which("node")
    path = [str(tools / "node_modules" / ".bin"), str(Path(sys.executable).parent)]
    # A target with its own npm tree finds its own programs first, and one that pins a
    # Node.js runs every `#!/usr/bin/env node` script on it, not on the machine's.
    own = target.npm_tree(tools)
    if own is not None:
        path.insert(0, str(own / "node_modules" / ".bin"))
        if exp.node != "node":
            path.insert(0, str(Path(exp.node).parent))
    if node:
        path.append(str(Path(node).resolve().parent))
    path += ["/usr/local/bin", "/usr/bin", "/bin"]
    env = {
        "HOME": str(home),
        "USER": os.environ.get("USER", "mcpc"),
        "LOGNAME": os.environ.get("LOGNAME", "mcpc"),
        "PATH": os.pathsep.join(dict.fromkeys(path)),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TMPDIR": str(tmp / "tmp"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_RUNTIME_DIR": str(tmp / "run"),
        MARKER_ENV: token,
        # The run's own marker (compare._guard): the watchdog ends its carriers if we die.
        _guard.RUN_ENV: _guard.run_marker(),
        # Where the cell runs: lets a test (or a person) find what one run started.
        MARKER_ENV + "_DIR": str(exp.cell),
    }
    for key, value in target.env.items():
        env[key] = exp.text(value)
    return env


def write_files(target: Target, exp: Expansion) -> None:
    for spec in target.files:
        path = Path(exp.text(spec["path"]))
        content = exp.value(spec["content"])
        if spec["format"] == "json":
            _atomic.write_json(path, content)
        elif spec["format"] == "toml":
            _atomic.write_text(path, tomli_w.dumps(content))
        else:
            _atomic.write_text(path, str(content))
