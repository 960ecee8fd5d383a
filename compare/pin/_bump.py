"""``pin bump``: move the pins to a newer upstream commit in one step.

``pin add`` reads at the pinned commit, so without this the commit never moves. A bump reads
every pinned file at the new commit, hashes it, and only when every file was read (or the
user chose to drop the ones that are gone) fills the cache for the new commit and rewrites
``revisions.toml``, in that order and atomically: a failure anywhere leaves the pins and the
old commit's cache exactly as they were. Dated revision folders the new commit adds are
reported with the ``pin add`` command that pins them; the bump never pins them itself,
because which revisions are compared is a maintainer's decision.

Only a git source can be bumped: a plain folder (such as ``../shared/mcp-spec``) is one
snapshot with no history, so there is no newer commit to move to.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import git

from compare._errors import CompareError
from compare.pin._fetch import fetch_files, sha256_bytes, spec_cache
from compare.pin._pins import PinnedFile, Pins, dump_pins, parse_pins, release_order, write_pins
from compare.pin._source import (
    _URL,
    GIT_TIMEOUT_S,
    HOW_TO_POINT,
    SPEC_ENV,
    Announce,
    GitSource,
    _first_line,
    _git_env,
    clone_or_fetch,
    has_commit,
)

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_REVISION = re.compile(r"^(\d{4}-\d{2}-\d{2}|draft)$")

NO_HISTORY_HINT = (
    "point --spec-source / MCP_COMPARE_SPEC at a git repository holding the new commit "
    "(a local clone, or a git URL); a plain folder is read only at the pinned commit"
)


@dataclass
class BumpReport:
    """What ``pin bump`` did: the commit move, re-hashed files, and what to pin next."""

    source: str
    old_commit: str
    new_commit: str
    chosen_by: str  # "HEAD (refs/heads/main)", or the COMMIT argument as given
    changed: list[tuple[str, str, str]] = field(default_factory=list)  # path, before, after
    unchanged: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    new_revisions: list[str] = field(default_factory=list)
    add_commands: list[str] = field(default_factory=list)
    cache: Path | None = None
    pins: Path | None = None

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON document (``pin bump --json``)."""
        return {
            "source": self.source,
            "from": self.old_commit,
            "to": self.new_commit,
            "chosen_by": self.chosen_by,
            "changed": [{"path": p, "before": b, "after": a} for p, b, a in self.changed],
            "unchanged": self.unchanged,
            "dropped": self.dropped,
            "new_revisions": [
                {"revision": r, "command": c}
                for r, c in zip(self.new_revisions, self.add_commands, strict=True)
            ],
            "pins": str(self.pins) if self.pins else None,
            "cache": str(self.cache) if self.cache else None,
        }


def _no_history(what: str) -> CompareError:
    return CompareError(
        f"cannot bump from {what}: it is a plain folder with no commits, so there is no "
        "newer commit to move to",
        hint=NO_HISTORY_HINT,
    )


def _ls_remote(url: str, name: str) -> str:
    """The commit ``name`` (HEAD, a branch or a tag) names at ``url``, asked without cloning."""
    try:
        out = str(git.Git().ls_remote(url, name, kill_after_timeout=GIT_TIMEOUT_S, env=_git_env()))
    except (git.GitCommandError, OSError) as err:
        raise CompareError(
            f"cannot ask {url} for {name}: {_first_line(err)}", hint=HOW_TO_POINT
        ) from None
    refs: dict[str, str] = {}
    for line in out.splitlines():
        sha, _, ref = line.partition("\t")
        refs.setdefault(ref.strip(), sha.strip())
    for ref in (f"refs/tags/{name}^{{}}", f"refs/heads/{name}", f"refs/tags/{name}", name):
        if ref in refs:
            return refs[ref]
    raise CompareError(
        f"{url} has no branch or tag named {name!r}",
        hint="give a branch, a tag, or the full 40-hex commit",
    )


def _remote(url: str, wanted: str | None) -> tuple[git.Repo, str, str]:
    commit = wanted if wanted and _HEX40.match(wanted) else _ls_remote(url, wanted or "HEAD")
    try:
        repo = clone_or_fetch(url, commit)
    except (git.GitCommandError, OSError) as err:
        raise CompareError(
            f"cannot fetch commit {commit[:12]} from {url}: {_first_line(err)}", hint=HOW_TO_POINT
        ) from None
    chosen = "HEAD of the default branch" if wanted is None else wanted
    return repo, commit, chosen


def _local(path: Path, wanted: str | None) -> tuple[git.Repo, str, str]:
    if not path.is_dir():
        raise CompareError(f"spec source not found or not a folder: {path}", hint=HOW_TO_POINT)
    try:
        repo = git.Repo(path, search_parent_directories=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise _no_history(f"folder {path}") from None
    try:
        commit = repo.commit(wanted or "HEAD").hexsha
    except (ValueError, git.BadName, git.GitCommandError) as err:
        raise CompareError(
            f"{wanted or 'HEAD'} is not a commit in {path} ({_first_line(err)})",
            hint="give a commit, branch or tag the repository holds (fetch it first)",
        ) from None
    if wanted is not None:
        return repo, commit, wanted
    branch = "detached" if repo.head.is_detached else repo.head.reference.path
    return repo, commit, f"HEAD ({branch})"


def open_repository(
    spec: str | None, repository: str, wanted: str | None
) -> tuple[git.Repo, str, str, str]:
    """The git repository to bump from, the full commit, how it was chosen, and its label.

    The source is chosen as everywhere else (``--spec-source``, ``$MCP_COMPARE_SPEC``, else
    the pinned repository), but with no offline fallback: a bump from a snapshot is refused.
    """
    chosen = spec or os.environ.get(SPEC_ENV) or None
    if chosen is None:
        return (*_remote(repository, wanted), repository)
    if chosen.startswith("file://"):
        local = Path(chosen.removeprefix("file://"))
        if local.is_dir() and not (local / ".git").exists() and not (local / "HEAD").exists():
            raise _no_history(f"folder {local}")
        return (*_remote(chosen, wanted), chosen)
    if _URL.match(chosen):
        return (*_remote(chosen, wanted), chosen)
    path = Path(chosen).expanduser().resolve()
    return (*_local(path, wanted), str(path))


def revision_folders(repo: git.Repo, commit: str) -> list[str]:
    """Revision names with a ``schema/<name>/schema.json`` at ``commit``, sorted."""
    try:
        schema = repo.commit(commit).tree / "schema"
    except KeyError:
        return []
    names = []
    for sub in schema.trees:
        if _REVISION.match(sub.name) and any(b.name == "schema.json" for b in sub.blobs):
            names.append(sub.name)
    return sorted(names, key=release_order)


def _add_command(name: str, spec: str | None) -> str:
    words = ["mcp-compare", "pin", "add", name]
    if spec:
        words += ["--spec-source", spec]
    return shlex.join(words)


def _rehash(pins: Pins, source: GitSource, drop_missing: bool, report: BumpReport) -> Pins:
    files: list[PinnedFile] = []
    gone: list[str] = []
    for pinned in pins.files:
        data = source.read(pinned.path)
        if data is None:
            gone.append(pinned.path)
            continue
        digest = sha256_bytes(data)
        if digest != pinned.sha256:
            report.changed.append((pinned.path, pinned.sha256, digest))
        else:
            report.unchanged.append(pinned.path)
        files.append(PinnedFile(pinned.path, digest))
    defining = [p for p in gone if any(p == rev.schema for rev in pins.revisions)]
    if gone and (defining or not drop_missing):
        listing = "\n  ".join(gone)
        if defining:
            raise CompareError(
                f"{len(gone)} pinned file(s) are gone at {report.new_commit[:12]}, among them "
                f"the schema of a pinned revision (nothing was changed):\n  {listing}",
                hint="a revision cannot lose its schema: remove that revision from "
                "schemas/revisions.toml first if upstream really deleted it, or bump to "
                "another commit",
            )
        raise CompareError(
            f"{len(gone)} pinned file(s) are gone at {report.new_commit[:12]} "
            f"(nothing was changed):\n  {listing}",
            hint="pass --drop-missing to unpin them (then fix whatever cites them), or bump "
            "to another commit",
        )
    report.dropped = gone
    new = replace(pins, commit=report.new_commit, files=tuple(files))
    try:
        parse_pins(dump_pins(new), pins.origin)
    except CompareError as err:
        raise CompareError(
            f"the pins would be invalid after dropping {', '.join(gone)} "
            f"(nothing was changed): {err.message}",
            hint="keep the file pinned by bumping to another commit, or edit the revision "
            "that needs it first",
        ) from None
    return new


def bump(
    pins: Pins,
    commit: str | None,
    spec: str | None,
    announce: Announce,
    drop_missing: bool = False,
    spec_for_commands: str | None = None,
) -> BumpReport:
    """Re-pin every pinned file at ``commit`` (default: the source's newest commit).

    Nothing is written until every file was read and hashed; then the new commit's cache is
    filled (all-or-nothing) and the pins file rewritten atomically, last.
    """
    repo, new_commit, chosen_by, label = open_repository(spec, pins.repository, commit)
    source = GitSource(repo, new_commit, label)
    report = BumpReport(source.description, pins.commit, new_commit, chosen_by)
    if has_commit(repo, pins.commit) and not repo.is_ancestor(
        repo.commit(pins.commit), repo.commit(new_commit)
    ):
        announce(
            f"{new_commit[:12]} does not descend from the pinned commit {pins.commit[:12]} "
            "(moving back or sideways); bumping anyway"
        )
    new_pins = _rehash(pins, source, drop_missing, report)
    pinned = set(pins.revision_names)
    report.new_revisions = [n for n in revision_folders(repo, new_commit) if n not in pinned]
    report.add_commands = [_add_command(n, spec_for_commands) for n in report.new_revisions]
    fetch_files(new_pins, new_pins.files, source)
    report.cache = spec_cache(new_commit)
    if new_pins != pins:
        write_pins(new_pins)
    report.pins = pins.origin
    return report
