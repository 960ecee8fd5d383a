"""One real run of the CLI targets, shared by every test in this folder.

The run goes through ``mcp-compare run`` in a child process whose own ``HOME`` and XDG folders
point at a sentinel folder: if a client (or the harness) fell back to the caller's home instead
of the cell's, the sentinel would change. The child's ``TMPDIR`` is a folder of this session,
so every cell folder, workspace and peer plan lives under one path that a process scan can look
for afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from _revisions import initialize_era, revisions

from compare import _paths
from compare._errors import CompareError
from compare.exchange._targets import Target, load_targets

#: The targets this folder is about, with the program each one runs, relative to the tools
#: folder: an npm package's binary (in the shared tree, or in the target's own tree under
#: ``npm/<id>/``), or a PyPI package's script in the target's own venv.
CLI_BINS = {
    "claude-code": "node_modules/.bin/claude",
    "claude-code-prompt": "node_modules/.bin/claude",
    "opencode": "node_modules/.bin/opencode",
    "opencode-run": "node_modules/.bin/opencode",
    "gemini-cli-health": "node_modules/.bin/gemini",
    "gemini-cli-prompt": "node_modules/.bin/gemini",
    "codex": "node_modules/.bin/codex",
    "gptme": "venvs/gptme/bin/gptme",
    "qwen-code": "npm/qwen-code/node_modules/.bin/qwen",
    "mcpc": "npm/mcpc/node_modules/.bin/mcpc",
}
#: The scenarios the CLI clients are played in here (issue 37's smoke set for them): the
#: handshake and the version window (whether a client refuses a revision; at
#: ``smoke_revisions``), answering our roots/list and refusing it undeclared. Everything else
#: they do is kept by the golden cells and by `mcp-compare compare --replay`, so adding an
#: area adds nothing here.
CLI_SCENARIOS = ("handshake", "version-window", "roots-list", "roots-undeclared")
#: Targets that run the same CLI as another target here, in the mode where it asks its model
#: (the stand-in of ours) and is ended by the harness. What their launch adds to the other's
#: is the model endpoint, the harness's end and the home they keep, which the handshake and
#: the roots pair show; the version window, a second reading of the same client's handshake,
#: is left to the other target here and to the matrix.
MODEL_MODES = {
    "claude-code-prompt": "claude-code",
    "gemini-cli-prompt": "gemini-cli-health",
    "opencode-run": "opencode",
}


def smoke_scenarios(target: str) -> tuple[str, ...]:
    """The smoke scenarios ``target`` plays here."""
    if target in MODEL_MODES:
        return tuple(s for s in CLI_SCENARIOS if s != "version-window")
    return CLI_SCENARIOS


#: The roots pair is a mechanism (answering our roots/list, refusing it undeclared), played
#: at the first revision of the handshake era only, which every CLI here takes: which
#: revisions a client takes is measured by the handshake and the version window, and what it
#: answers at the others by the matrix (issue 37's budget: 22 cells, about 35 s, fewer).
ROOTS_SCENARIOS = ("roots-list", "roots-undeclared")


def smoke_revisions() -> list[str]:
    """The revisions the handshake and the version window are played at: the first and the
    last of the handshake era (every CLI here takes the first and Gemini CLI refuses the last,
    so an accepted revision and a refused one are both read) and every revision after it,
    whose cells the plan does not play (each says why, at no cost). Which of the era's
    revisions a client takes is the matrix's to measure, by mechanism the same at each."""
    era = initialize_era()
    return [r for r in revisions() if r not in era[1:-1]]


def roots_revisions() -> list[str]:
    """The revisions the roots pair is played at (from the pins): the era's first."""
    return initialize_era()[:1]


#: A whole target's run (its smoke scenarios × revisions, two at a time) must end within this.
RUN_BOUND_S = 900
#: Where the clients keep their state under a home folder; the real home's copies must not move.
CLIENT_HOME_PATHS = (
    ".claude.json",
    ".claude",
    ".gemini",
    ".codex",
    ".config/opencode",
    ".local/share/opencode",
    ".local/state/opencode",
    ".cache/opencode",
    ".cache/claude-cli-nodejs",
    ".config/gptme",
    ".local/share/gptme",
    ".local/state/gptme",
    ".qwen",
    ".mcpc",
)


def snapshot(root: Path, limit: int = 20000) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` (or ``root`` itself) with its mtime and size, for comparison."""
    found: dict[str, tuple[int, int]] = {}
    if not root.exists():
        return found
    items = [root, *root.rglob("*")] if root.is_dir() else [root]
    for path in items[:limit]:
        try:
            info = path.lstat()
        except OSError:
            continue
        found[str(path)] = (info.st_mtime_ns, info.st_size)
    return found


def processes_mentioning(needle: str) -> list[str]:
    """Live processes whose command line, environment or working folder names ``needle``."""
    mark = needle.encode()
    hits = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        proc = Path("/proc") / entry
        try:
            if (proc / "stat").read_bytes().split(b") ", 1)[1][:1] == b"Z":
                continue  # already exited; nothing is running
        except (OSError, IndexError):
            continue
        seen = False
        for name in ("cmdline", "environ"):
            with contextlib.suppress(OSError):
                seen = seen or mark in (proc / name).read_bytes()
        with contextlib.suppress(OSError):
            seen = seen or needle in os.readlink(proc / "cwd")
        if seen:
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                cmd = "?"
            hits.append(f"{entry}: {cmd[:200]}")
    return hits


@dataclass
class ClientRun:
    """What one session-wide run of the CLI targets left behind."""

    results: Path
    wall_s: dict[str, float] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    leftovers: list[str] = field(default_factory=list)
    sentinel_before: dict[str, tuple[int, int]] = field(default_factory=dict)
    sentinel_after: dict[str, tuple[int, int]] = field(default_factory=dict)
    real_home_before: dict[str, tuple[int, int]] = field(default_factory=dict)
    real_home_after: dict[str, tuple[int, int]] = field(default_factory=dict)

    def verdicts(self, target: str) -> list[dict[str, Any]]:
        """Every verdict.json of ``target`` from this run."""
        found = sorted(self.results.glob(f"{target}/*/*/*/verdict.json"))
        return [json.loads(p.read_text(encoding="utf-8")) for p in found]

    def cell(self, target: str, scenario: str, revision: str) -> Path:
        (version,) = [p.name for p in (self.results / target).iterdir() if p.is_dir()]
        return self.results / target / version / scenario / revision

    def verdict(self, target: str, scenario: str, revision: str) -> dict[str, Any]:
        path = self.cell(target, scenario, revision) / "verdict.json"
        value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return value


def target_entry(target_id: str) -> Target:
    """The shipped target entry with this id."""
    (entry,) = [t for t in load_targets() if t.id == target_id]
    return entry


def _real_home() -> Path:
    """The account's home from the password database, whatever ``HOME`` says."""
    return Path(pwd.getpwuid(os.getuid()).pw_dir)


def _real_home_state() -> dict[str, tuple[int, int]]:
    home = _real_home()
    state: dict[str, tuple[int, int]] = {}
    for rel in CLIENT_HOME_PATHS:
        state.update(snapshot(home / rel))
    return state


def _require_clients(tools: Path, scratch: Path, targets: list[str] | None = None) -> None:
    """Every CLI binary (of ``targets``, else all) is installed and starts; otherwise fail
    saying which and why."""
    for target in targets or list(CLI_BINS):
        relative = CLI_BINS[target]
        path, binary = tools / relative, Path(relative).name
        if not path.exists():
            if relative.startswith("node_modules/"):
                lock = "tools/package-lock.json"
            elif relative.startswith("npm/"):
                lock = f"tools/npm/{target}/package-lock.json"
            else:
                lock = f"tools/requirements/{target}.txt"
            pytest.fail(
                f"{target}: {path} is missing after `mcp-compare tools install`; "
                f"the package did not install (see {lock})"
            )
        home = scratch / f"version-{binary}"
        home.mkdir(exist_ok=True)
        # A target that pins its Node.js runs its `#!/usr/bin/env node` bin on it, as in a cell.
        node = Path(target_entry(target).node_binary(tools))
        search = os.environ.get("PATH", "/usr/bin:/bin")
        if node.is_absolute():
            search = f"{node.parent}{os.pathsep}{search}"
        env = {"PATH": search, "HOME": str(home)}
        try:
            done = subprocess.run(
                [str(path), "--version"],
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
                cwd=home,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            pytest.fail(f"{target}: `{binary} --version` could not run: {err}")
        if done.returncode != 0:
            pytest.fail(
                f"{target}: `{binary} --version` exited {done.returncode}: "
                f"{(done.stderr or done.stdout).strip()[-500:]}"
            )


@pytest.fixture(scope="session")
def cli_tools(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Path:
    """The project's tools folder with the pinned CLI clients installed (real npm, idempotent);
    the clients the session plays must be there and start."""
    try:
        from compare.install import install_tools

        install_tools()
    except CompareError as err:
        pytest.fail(f"the CLI clients could not be installed: {err}")
    tools = _paths.tools_dir()
    scratch = tmp_path_factory.mktemp("client-versions")
    _require_clients(tools, scratch, selected_targets(request.session))
    return tools


def selected_targets(session: pytest.Session) -> list[str]:
    """The CLI targets the session's selected tests name (``-k gptme`` plays gptme alone);
    every one when a selected test is about the whole run rather than one target."""
    named: set[str] = set()
    for item in session.items:
        if "client_run" not in getattr(item, "fixturenames", ()):
            continue
        params = getattr(getattr(item, "callspec", None), "params", {})
        if params.get("target") not in CLI_BINS:
            return list(CLI_BINS)
        named.add(params["target"])
    return [t for t in CLI_BINS if t in named] or list(CLI_BINS)


@pytest.fixture(scope="session")
def client_run(
    cli_tools: Path,
    pinned_spec: Path,
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Iterator[ClientRun]:
    """Run the smoke scenarios (``smoke_scenarios``) × every revision of each selected CLI
    target once, through the real CLI."""
    base = tmp_path_factory.mktemp("cli-run")
    results, scratch, sentinel = base / "results", base / "tmp", base / "sentinel-home"
    for folder in (results, scratch, sentinel / ".config", sentinel / ".cache"):
        folder.mkdir(parents=True)
    (sentinel / ".config" / "marker").write_text("the caller's home\n", encoding="utf-8")
    known = {t.id for t in load_targets()}
    missing = sorted(set(CLI_BINS) - known)
    if missing:
        pytest.fail(f"target files missing from compare/exchange/targets: {missing}")
    env = {
        **os.environ,
        "HOME": str(sentinel),
        "XDG_CONFIG_HOME": str(sentinel / ".config"),
        "XDG_DATA_HOME": str(sentinel / ".local" / "share"),
        "XDG_CACHE_HOME": str(sentinel / ".cache"),
        "XDG_STATE_HOME": str(sentinel / ".local" / "state"),
        "TMPDIR": str(scratch),
        "MCP_COMPARE_CACHE": str(pinned_spec),
        "MCP_COMPARE_RESULTS": str(results),
        "MCP_COMPARE_TOOLS": str(cli_tools),
    }
    run = ClientRun(results=results)
    run.sentinel_before = snapshot(sentinel)
    run.real_home_before = _real_home_state()
    cli = Path(sys.executable).parent / "mcp-compare"
    for target in selected_targets(request.session):
        every = [s for s in smoke_scenarios(target) if s not in ROOTS_SCENARIOS]
        selections = [
            [a for scenario in every for a in ("--scenario", scenario)]
            + [a for rev in smoke_revisions() for a in ("--revision", rev)],
            [a for scenario in ROOTS_SCENARIOS for a in ("--scenario", scenario)]
            + [a for rev in roots_revisions() for a in ("--revision", rev)],
        ]
        started = time.monotonic()
        parts = []
        for chosen in selections:
            argv = [str(cli), "run", "--target", target, "--jobs", "2", "--json", *chosen]
            try:
                done = subprocess.run(
                    argv,
                    capture_output=True,
                    text=True,
                    timeout=RUN_BOUND_S,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                pytest.fail(f"{target}: `mcp-compare run` did not end within {RUN_BOUND_S} s")
            if done.returncode != 0:
                pytest.fail(
                    f"{target}: `mcp-compare run` exited {done.returncode}:\n{done.stderr[-2000:]}"
                )
            parts.append(json.loads(done.stdout))
        run.wall_s[target] = round(time.monotonic() - started, 2)
        run.summaries[target] = {"parts": parts}
    time.sleep(0.5)  # a process the harness signalled last gets a moment to go
    run.leftovers = processes_mentioning(str(base))
    run.sentinel_after = snapshot(sentinel)
    run.real_home_after = _real_home_state()
    sys.stderr.write(f"\nCLI targets, wall time per target: {run.wall_s}\n")
    yield run
