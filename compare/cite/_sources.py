"""Where the text of a cited file comes from, per source kind, and whether it is reachable.

Spec files come only through ``compare.pin`` (the verified copy at the pinned commit).
Packages are read from the project's own installs in the tools folder, and only when the
installed version is the cited one — a citation into another version proves nothing. A Go
module is read from the module cache folder that a built host's ``build.json`` names.
installed version is the cited one — a citation into another version proves nothing. A
crate is read where cargo unpacked it while building a host program
(``$CARGO_HOME/registry/src/<index>/<name>-<version>/``, ``CARGO_HOME`` defaulting to
``~/.cargo``): that folder name carries the exact version, and cargo checked the download
against the lock's checksum before unpacking it.
Upstream repositories are read from a local clone under ``<cache>/repos/<owner>/<repo>`` at
the cited commit; without one (there is no network here) the source is unavailable, which is
reported as such and never counted as verified.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from compare._errors import CompareError
from compare._paths import cache_dir, tools_dir
from compare.cite._parse import Citation


@dataclass(frozen=True)
class Source:
    """The cited file's lines, or why they could not be read.

    ``offline`` says whether this kind is meant to be verifiable on this machine (spec and
    installed packages): for those, being unavailable is a failure to fix, not a fact to show.
    """

    lines: list[str] | None
    provenance: str
    link: str | None
    reason: str | None
    offline: bool


def split_lines(text: str) -> list[str]:
    """Lines as an editor and GitHub number them (only ``\\n`` ends a line)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _anchor(start: int | None, end: int | None) -> str:
    if start is None:
        return ""
    return f"#L{start}" if end is None or end == start else f"#L{start}-L{end}"


def _inside(root: Path, relative: str) -> Path | None:
    candidate = (root / relative).resolve()
    try:
        candidate.relative_to(root.resolve())
    except ValueError:
        return None
    return candidate


def _read(path: Path) -> list[str]:
    return split_lines(path.read_bytes().decode("utf-8", errors="replace"))


def _spec(cit: Citation, start: int | None, end: int | None) -> Source:
    try:
        from compare.pin import load_pins, pinned_text, upstream_link
    except ImportError as err:  # the pin stage is not built: say so, never pretend
        return Source(None, "spec", None, f"compare.pin is not available ({err})", True)
    try:
        commit = load_pins().commit
        text = pinned_text(cit.path)
        link: str | None = upstream_link(cit.path, start, end)
    except CompareError as err:
        return Source(None, "spec", None, str(err), True)
    return Source(split_lines(text), f"spec @ {commit}", link, None, True)


def _npm(cit: Citation, start: int | None, end: int | None) -> Source:
    assert cit.package and cit.version
    provenance = f"npm {cit.package}@{cit.version}"
    link = f"https://unpkg.com/{cit.package}@{cit.version}/{cit.path}{_anchor(start, end)}"
    # The shared tree first, then the targets' own trees (``tools/npm/<id>/``): the first
    # that holds the cited version is read.
    tools = tools_dir()
    roots = [tools / "node_modules" / cit.package]
    roots += sorted(tools.glob(f"npm/*/node_modules/{cit.package}"))
    found: list[str] = []
    for root in roots:
        try:
            installed = json.loads((root / "package.json").read_text("utf-8")).get("version")
        except (OSError, ValueError, AttributeError):
            continue
        if installed == cit.version:
            return _file(root, cit, provenance, link)
        found.append(str(installed))
    if not found:
        reason = f"{cit.package} is not installed under {roots[0].parent} or a target's own tree"
        return Source(None, provenance, link, f"{reason}; run `mcp-compare tools install`", True)
    reason = f"installed {cit.package} is {', '.join(found)}, the citation is for {cit.version}"
    return Source(None, provenance, link, reason, True)


_DIST = re.compile(r"^(?P<name>.+)-(?P<ver>[^-]+)\.dist-info$")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pypi(cit: Citation, start: int | None, end: int | None) -> Source:
    assert cit.package and cit.version
    provenance = f"pypi {cit.package}=={cit.version}"
    link = f"https://pypi.org/project/{cit.package}/{cit.version}/"
    seen: list[str] = []
    for site in sorted((tools_dir() / "venvs").glob("*/lib/python*/site-packages")):
        for dist in site.glob("*.dist-info"):
            m = _DIST.match(dist.name)
            if not m or _normal(m["name"]) != _normal(cit.package):
                continue
            if m["ver"] == cit.version:
                return _file(site, cit, f"{provenance} ({site.parents[2].name} venv)", link)
            seen.append(m["ver"])
    if seen:
        reason = f"installed {cit.package} is {', '.join(seen)}, the citation is for {cit.version}"
    else:
        reason = f"{cit.package} is not installed in any venv under {tools_dir() / 'venvs'}"
        reason += "; run `mcp-compare tools install`"
    return Source(None, provenance, link, reason, True)


def go_link(module: str, version: str, path: str, start: int | None, end: int | None) -> str:
    """GitHub's view of a module file at its tag (line anchors work there), else pkg.go.dev."""
    parts = module.split("/")
    if len(parts) == 3 and parts[0] == "github.com":
        return f"https://{module}/blob/{version}/{path}{_anchor(start, end)}"
    return f"https://pkg.go.dev/{module}@{version}"


def _go_builds() -> list[dict[str, object]]:
    """Every built Go host's record (``tools/hosts/<target>/build.json``), readable ones only."""
    records: list[dict[str, object]] = []
    for path in sorted((tools_dir() / "hosts").glob("*/build.json")):
        try:
            value = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


def _go(cit: Citation, start: int | None, end: int | None) -> Source:
    assert cit.package and cit.version
    provenance = f"go {cit.package}@{cit.version}"
    link = go_link(cit.package, cit.version, cit.path, start, end)
    seen: list[str] = []
    for record in _go_builds():
        if record.get("module") != cit.package:
            continue
        if record.get("version") == cit.version and isinstance(record.get("dir"), str):
            root = Path(str(record["dir"]))
            if not root.is_dir():
                reason = f"{root} is gone from the Go module cache; run `mcp-compare tools install`"
                return Source(None, provenance, link, reason, True)
            return _file(root, cit, f"{provenance} ({record.get('target')} host)", link)
        seen.append(str(record.get("version")))
    if seen:
        reason = f"the hosts were built with {cit.package} {', '.join(seen)}, "
        reason += f"the citation is for {cit.version}"
    else:
        reason = f"no host under {tools_dir() / 'hosts'} was built with {cit.package}"
        reason += "; run `mcp-compare tools install`"
    return Source(None, provenance, link, reason, True)


def cargo_home() -> Path:
    """Cargo's home, as cargo itself finds it."""
    return Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")


def _crate(cit: Citation, start: int | None, end: int | None) -> Source:
    assert cit.package and cit.version
    provenance = f"crate {cit.package}@{cit.version}"
    link = f"https://docs.rs/crate/{cit.package}/{cit.version}/source/{cit.path}"
    link += _anchor(start, end)
    registry = cargo_home() / "registry" / "src"
    found = sorted(registry.glob(f"*/{cit.package}-{cit.version}"))
    if not found:
        reason = f"{cit.package} {cit.version} is not unpacked under {registry}"
        return Source(None, provenance, link, f"{reason}; run `mcp-compare tools install`", True)
    return _file(found[0], cit, provenance, link)


def _file(root: Path, cit: Citation, provenance: str, link: str | None) -> Source:
    path = _inside(root, cit.path)
    if path is None:
        return Source(None, provenance, link, f"{cit.path!r} leaves the package folder", True)
    if not path.is_file():
        return Source(None, provenance, link, f"{cit.path} is not in the installed package", True)
    return Source(_read(path), provenance, link, None, True)


def clone_dir(repository: str) -> Path:
    """Where a local clone of ``owner/repo`` is looked for (documented in the CLI help)."""
    return cache_dir() / "repos" / repository


def _gh(cit: Citation, start: int | None, end: int | None) -> Source:
    assert cit.package and cit.version
    provenance = f"github {cit.package} @ {cit.version}"
    link = f"https://github.com/{cit.package}/blob/{cit.version}/{cit.path}{_anchor(start, end)}"
    where = clone_dir(cit.package)
    if not where.exists():
        reason = f"source unavailable: no clone of {cit.package} at {where} (and no network)"
        return Source(None, provenance, link, reason, False)
    import git  # GitPython: reads the blob at the cited commit, whatever is checked out

    try:
        repo = git.Repo(where)
        blob = repo.commit(cit.version).tree / cit.path
        data: bytes = blob.data_stream.read()
    except (git.exc.GitError, ValueError, KeyError) as err:
        reason = f"source unavailable: {cit.path} at {cit.version} not readable in {where} ({err})"
        return Source(None, provenance, link, reason, False)
    text = data.decode("utf-8", errors="replace")
    return Source(split_lines(text), provenance, link, None, False)


def open_source(cit: Citation, start: int | None = None, end: int | None = None) -> Source:
    """Read the cited file; ``start``/``end`` only shape the link."""
    from compare.cite._maven import maven_source

    readers = {
        "spec": _spec, "npm": _npm, "pypi": _pypi, "crate": _crate, "gh": _gh, "go": _go,
        "maven": maven_source,
    }  # fmt: skip
    return readers[cit.kind](cit, start, end)
