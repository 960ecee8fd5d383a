"""Where spec files come from: a git URL, a local git repository, or a plain folder.

A source only hands out bytes; it is never trusted. Whatever it returns is checked against
the sha256 in the pins file before anything is cached, so a plain folder, a stale clone and
the upstream repository are all held to the same standard.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from compare import _paths
from compare._errors import CompareError

if TYPE_CHECKING:
    import git

# GitPython is imported where a git repository is opened, not here: every stage reads pinned
# files through this package, and most never open a repository (a folder source, the cache).

#: The environment variable naming the spec source (overridden by ``--spec-source``).
SPEC_ENV = "MCP_COMPARE_SPEC"

#: The offline copy used when nothing is set and the upstream repository cannot be reached.
OFFLINE_FALLBACK = _paths.PROJECT_ROOT.parent / "shared" / "mcp-spec"

#: Seconds a clone or fetch may take before it is killed (there may be no network at all).
GIT_TIMEOUT_S = int(os.environ.get("MCP_COMPARE_GIT_TIMEOUT", "300"))

_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://|[\w.-]+@[\w.-]+:)")

HOW_TO_POINT = (
    "set MCP_COMPARE_SPEC (or pass --spec-source) to a git URL, a local clone of "
    "modelcontextprotocol/modelcontextprotocol, or a plain folder laid out like it "
    "(e.g. MCP_COMPARE_SPEC=../shared/mcp-spec)"
)

Announce = Callable[[str], None]


def _git_env() -> dict[str, str]:
    """Never let git wait for a password or a host-key prompt: fail fast instead."""
    return {
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "true",
        "SSH_ASKPASS": "true",
        "GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o ConnectTimeout=15",
        # give up on an HTTP transfer that stalls below 1 kB/s for 30 s
        "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
        "GIT_HTTP_LOW_SPEED_TIME": "30",
    }


def _first_line(err: Exception) -> str:
    text = str(getattr(err, "stderr", "") or err).strip()
    lines = [line.strip(" '") for line in text.splitlines() if line.strip(" '")]
    last = lines[-1] if lines else type(err).__name__
    return last.removeprefix("stderr:").strip(" '")


class Source:
    """Bytes of spec files at the pinned commit."""

    description: str

    def read(self, path: str) -> bytes | None:
        """The file's bytes, or ``None`` when the source has no such file."""
        raise NotImplementedError


@dataclass
class FolderSource(Source):
    """A plain folder laid out like the upstream repository (e.g. ``../shared/mcp-spec``)."""

    root: Path

    def __post_init__(self) -> None:
        self.description = f"folder {self.root}"

    def read(self, path: str) -> bytes | None:
        target = self.root / path
        try:
            return target.read_bytes() if target.is_file() else None
        except OSError as err:
            raise CompareError(f"cannot read {target}: {err}") from None

    def manifest_commit(self) -> str | None:
        """The commit an upstream export names on the first line of its ``MANIFEST.tsv``."""
        manifest = self.root / "MANIFEST.tsv"
        try:
            first = manifest.read_text(encoding="utf-8").splitlines()[0]
        except (OSError, UnicodeDecodeError, IndexError):
            return None
        found = re.search(r"\b[0-9a-f]{40}\b", first)
        return found.group(0) if found else None


@dataclass
class GitSource(Source):
    """Blobs read straight from a git repository at the pinned commit (no checkout)."""

    repo: git.Repo
    commit: str
    label: str

    def __post_init__(self) -> None:
        import git

        self.description = f"git {self.label} @ {self.commit[:12]}"
        try:
            self._tree = self.repo.commit(self.commit).tree
        except (ValueError, git.BadName, git.GitCommandError) as err:
            raise CompareError(
                f"commit {self.commit} is not in {self.label} ({_first_line(err)})",
                hint=f"fetch it into that repository, or {HOW_TO_POINT}",
            ) from None

    def read(self, path: str) -> bytes | None:
        import git

        try:
            blob = self._tree / path
        except KeyError:
            return None
        if blob.type != "blob":
            return None
        try:
            data: bytes = blob.data_stream.read()
        except (git.GitCommandError, ValueError, OSError) as err:
            raise CompareError(
                f"cannot read {path} from {self.description}: {_first_line(err)}",
                hint=HOW_TO_POINT,
            ) from None
        return data


def has_commit(repo: git.Repo, commit: str) -> bool:
    """Whether ``repo`` holds ``commit`` (without fetching)."""
    import git

    try:
        repo.commit(commit)
    except (ValueError, git.BadName, git.GitCommandError):
        return False
    return True


def _clone_name(url: str) -> str:
    stem = url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git") or "repo"
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", stem)
    return f"{stem}-{hashlib.sha256(url.encode()).hexdigest()[:10]}"


def clone_or_fetch(url: str, commit: str) -> git.Repo:
    """A bare clone of ``url`` in ``.cache/git/<name>`` that holds ``commit``.

    The first use clones into a temporary folder and renames it into place, so an
    interrupted clone never leaves a half repository behind; later uses fetch only when the
    commit is missing. Raises :class:`git.GitCommandError` when the URL cannot be reached.
    """
    import git

    root = _paths.cache_dir() / "git"
    target = root / _clone_name(url)
    env = _git_env()
    if target.exists():
        try:
            repo = git.Repo(target)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError):
            shutil.rmtree(target, ignore_errors=True)
        else:
            if not has_commit(repo, commit):
                repo.git.fetch(
                    "--quiet", "origin", "+refs/heads/*:refs/heads/*",
                    kill_after_timeout=GIT_TIMEOUT_S, env=env,
                )  # fmt: skip
                if not has_commit(repo, commit):
                    repo.git.fetch(
                        "--quiet", "origin", commit, kill_after_timeout=GIT_TIMEOUT_S, env=env
                    )
            return repo
    root.mkdir(parents=True, exist_ok=True)
    incoming = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=root))
    try:
        git.Git(str(root)).clone(
            "--bare", "--quiet", url, str(incoming), kill_after_timeout=GIT_TIMEOUT_S, env=env
        )
        repo = git.Repo(incoming)
        if not has_commit(repo, commit):
            repo.git.fetch("--quiet", "origin", commit, kill_after_timeout=GIT_TIMEOUT_S, env=env)
        repo.close()
        os.replace(incoming, target)
    finally:
        shutil.rmtree(incoming, ignore_errors=True)
    return git.Repo(target)


def _local(path: Path, commit: str) -> Source:
    import git

    if not path.exists():
        raise CompareError(f"spec source not found: {path}", hint=HOW_TO_POINT)
    if not path.is_dir():
        raise CompareError(f"spec source is not a folder: {path}", hint=HOW_TO_POINT)
    try:
        repo = git.Repo(path, search_parent_directories=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return FolderSource(path)
    return GitSource(repo, commit, str(path))


def resolve_source(spec: str | None, repository: str, commit: str, announce: Announce) -> Source:
    """The source to read from: ``spec`` (or ``$MCP_COMPARE_SPEC``), else upstream, else offline.

    Unset, the pinned upstream repository is tried; when it cannot be reached (no network,
    no such host) the offline copy ``../shared/mcp-spec`` is used and that is said on stderr.
    """
    import git

    chosen = spec or os.environ.get(SPEC_ENV) or None
    if chosen:
        if _URL.match(chosen) and not chosen.startswith("file://"):
            return _remote(chosen, commit)
        if chosen.startswith("file://"):
            local = Path(chosen.removeprefix("file://"))
            if local.is_dir() and not (local / ".git").exists() and not (local / "HEAD").exists():
                return FolderSource(local)
            return _remote(chosen, commit)
        return _local(Path(chosen).expanduser().resolve(), commit)
    try:
        return GitSource(clone_or_fetch(repository, commit), commit, repository)
    except (git.GitCommandError, OSError) as err:
        reason = _first_line(err)
    if (OFFLINE_FALLBACK / "MANIFEST.tsv").is_file() or OFFLINE_FALLBACK.is_dir():
        announce(
            f"upstream {repository} unreachable ({reason}); "
            f"using the offline copy {OFFLINE_FALLBACK}"
        )
        return FolderSource(OFFLINE_FALLBACK)
    raise CompareError(f"cannot reach the spec source {repository}: {reason}", hint=HOW_TO_POINT)


def _remote(url: str, commit: str) -> Source:
    import git

    try:
        return GitSource(clone_or_fetch(url, commit), commit, url)
    except (git.GitCommandError, OSError) as err:
        raise CompareError(
            f"cannot fetch commit {commit[:12]} from {url}: {_first_line(err)}",
            hint=HOW_TO_POINT,
        ) from None
