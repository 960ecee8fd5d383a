"""Building the static site with the real ``mkdocs build --strict``, and serving it.

The committed ``site/mkdocs.yml`` is the base; a small generated config inherits it and only
moves ``docs_dir`` / ``site_dir`` to where ``compare._paths.site_dir()`` points, so tests can
build into a temporary folder with the very same configuration.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from compare import _atomic, _paths
from compare._errors import CompareError
from compare.site import _evidence, _linkcheck, _splice
from compare.site._render import SITE_SOURCE, docs_dir

BUILD_TIMEOUT_S = 300


def build_dir() -> Path:
    return _paths.site_dir() / "build"


@dataclass(frozen=True)
class Built:
    """Where the site was built, how long it took, how many HTML pages it has, and how many
    evidence pages this build wrote and kept."""

    folder: Path
    seconds: float
    pages: int
    converted: int = 0
    kept: int = 0
    summary_rebuilt: bool = True


def work_dir() -> Path:
    """The site's own working files (records of what was built), beside ``docs/``."""
    return _paths.site_dir() / ".work"


def _summary_docs(docs: Path) -> tuple[Path, dict[str, _splice.Page], dict[str, Path]]:
    """A folder of every page but the cell pages, plus the evidence shell: what mkdocs
    builds. A page's parts that change with the results are cut out (``_splice``) and
    returned by page. Files mkdocs would only copy (``matrix.json``, the badges, the
    published schemas) are left out of its build and returned to be put in the site as they
    are: the matrix changes with every result. Our assets stay (the theme links them)."""
    folder = work_dir() / "summary"
    shutil.rmtree(folder, ignore_errors=True)
    pages: dict[str, _splice.Page] = {}
    statics: dict[str, Path] = {}
    for rel in _files_outside_cells(docs):
        path = docs / rel
        if path.suffix == ".md":
            page = _splice.cut(path.read_text(encoding="utf-8"), f"site/docs/{rel.as_posix()}")
            _atomic.write_text(folder / rel, page.skeleton)
            if page.parts:
                pages[rel.with_suffix(".html").as_posix()] = page
        elif rel.parts[0] == "assets":
            _evidence.link_out(path, folder / rel)
        else:
            statics[rel.as_posix()] = path
    _atomic.write_text(folder / _evidence.SHELL_MD, _evidence.SHELL_SOURCE)
    return folder, pages, statics


def _files_outside_cells(root: Path) -> list[Path]:
    """Every file under ``root`` but those in its ``cells/`` folder, relative and sorted: the
    summary side of the site, walked without listing the thousands of cell files."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        here = Path(folder).relative_to(root)
        if here == Path("."):
            dirs[:] = [d for d in dirs if d != "cells"]
        found += [here / name for name in files]
    return sorted(found)


def _summary_key(folder: Path) -> str:
    """What the summary build depends on: its pages' bytes, the configuration, the site URL,
    mkdocs and its theme."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update((SITE_SOURCE / "mkdocs.yml").read_bytes())
    digest.update(str(site_url()).encode())
    digest.update(Path(__file__).read_bytes())
    digest.update(f"{_version('mkdocs')} {_version('mkdocs-material')}".encode())
    return digest.hexdigest()


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "-"


def build_site() -> Built:
    """Build the site: the summary pages' skeleton with ``mkdocs build --strict`` (any
    warning fails the build) when it changed, their parts that change with the results
    converted and put in (``_splice``), and every cell page as HTML in the same look, only
    those whose Markdown changed (``_evidence``). The new site is assembled beside the last
    one (hard links to what did not change), its links are checked, and only then does it
    take the last one's place: a failed build keeps the last site."""
    docs = docs_dir()
    if not (docs / "index.md").is_file():
        raise CompareError(f"no rendered pages in {docs}", "run `mcp-compare render` first")
    out = build_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    summary, pages, statics = _summary_docs(docs)
    key = _summary_key(summary)
    record = work_dir() / "summary.json"
    skeleton = work_dir() / "skeleton"
    shell_path = work_dir() / "shell.html"
    try:
        last = json.loads(record.read_text(encoding="utf-8")).get("key")
    except (OSError, ValueError, AttributeError):
        last = None
    rebuilt = last != key or not (skeleton / "index.html").is_file() or not shell_path.is_file()
    if rebuilt:
        record.unlink(missing_ok=True)
        _build_skeleton(summary, skeleton, shell_path)
        _atomic.write_json(record, {"key": key})
    _sweep_abandoned(out.parent)
    staging = Path(tempfile.mkdtemp(prefix=f".build-{os.getpid()}-", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a site is meant to be read
    try:
        if out.is_dir():
            _linked_copy(out, staging)
        written, removed = _assemble(skeleton, staging, pages, statics)
        config = SITE_SOURCE / "mkdocs.yml"
        made = _evidence.make_evidence(docs, staging, _evidence.Shell.read(shell_path), config)
        check = (
            [p for p in staging.rglob("*.html") if p.relative_to(staging).parts[0] != "cells"]
            if rebuilt or removed or made.removed or not out.is_dir()
            else [staging / rel for rel in written if rel.endswith(".html")]
        )
        _linkcheck.check_links(staging, [*check, *(staging / "cells" / n for n in made.written)])
        _swap(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    count = sum(1 for _ in out.rglob("*.html"))
    return Built(out, time.monotonic() - started, count, made.converted, made.kept, rebuilt)


def _sweep_abandoned(parent: Path) -> None:
    """Remove staging folders of builds whose process is gone (killed before its own
    clean-up could run): each names its process, so a build running beside this one keeps
    its folder."""
    for folder in parent.glob(".build-*"):
        pid = folder.name.split("-")[1] if folder.name.count("-") >= 2 else ""
        if pid.isdigit() and _alive(int(pid)):
            continue
        shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


def _swap(new: Path, target: Path) -> None:
    """``new`` takes ``target``'s place (two renames; the old folder is removed after)."""
    old = target.with_name(f".{target.name}-old")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    new.rename(target)
    shutil.rmtree(old, ignore_errors=True)


def _linked_copy(source: Path, target: Path) -> None:
    """``target`` as a tree of hard links to ``source``'s files: every later write replaces a
    file through a rename, so the last site is never touched while the new one is made."""
    base, cut = str(source), len(str(source))
    for folder, _dirs, files in os.walk(base):
        there = str(target) + folder[cut:]
        os.makedirs(there, exist_ok=True)
        for name in files:
            here, copy = os.path.join(folder, name), os.path.join(there, name)
            try:
                os.link(here, copy)
            except OSError:
                _evidence.link_out(Path(here), Path(copy))  # a copy where links are refused


def _assemble(
    skeleton: Path, out: Path, pages: dict[str, _splice.Page], statics: dict[str, Path]
) -> tuple[list[str], int]:
    """The built skeleton into ``out``, each page's parts put in, and the files mkdocs would
    only have copied; a file that is already the same is left alone. Returns the files
    written and how many stale ones were removed."""
    cache = _splice.cache_dir(work_dir())
    cache.mkdir(parents=True, exist_ok=True)
    config = SITE_SOURCE / "mkdocs.yml"
    written: list[str] = []
    wanted: set[str] = set()
    built = {p.relative_to(skeleton).as_posix(): p for p in skeleton.rglob("*") if p.is_file()}
    for rel, path in sorted({**built, **statics}.items()):
        wanted.add(rel)
        dst = out / rel
        page = pages.get(rel)
        if page is None:
            if dst.is_file() and os.path.samefile(path, dst):
                continue
            if dst.exists() or dst.is_symlink():
                dst.unlink()
            _evidence.link_out(path, dst)
            written.append(rel)
            continue
        hashes = page.hashes(rel)
        parts = [
            _part_html(cache, k, p, page, config, rel)
            for k, p in zip(hashes, page.parts, strict=True)
        ]
        body = _splice.fill(path.read_text(encoding="utf-8"), parts, rel).encode("utf-8")
        if dst.is_file() and dst.read_bytes() == body:
            continue
        _atomic.write_bytes(dst, body)
        written.append(rel)
    removed = 0
    for stale in _files_outside_cells(out):
        if stale.as_posix() not in wanted:
            (out / stale).unlink()
            removed += 1
    _prune(cache, {k for rel, page in pages.items() for k in page.hashes(rel)})
    return written, removed


def _part_html(cache: Path, key: str, part: str, page: _splice.Page, config: Path, rel: str) -> str:
    """One part's HTML, from the cache or converted now (and cached)."""
    path = cache / f"{key}.html"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        pass
    source = part + ("\n\n" + page.abbreviations if page.abbreviations else "") + "\n"
    _title, body, _toc = _evidence.convert(source, config, rel)
    _atomic.write_text(path, body)
    return str(body)


def _prune(cache: Path, keep: set[str]) -> None:
    """Converted parts no page holds any more."""
    for path in cache.glob("*.html"):
        if path.stem not in keep:
            path.unlink(missing_ok=True)


def _build_skeleton(summary: Path, skeleton: Path, shell_path: Path) -> None:
    """mkdocs on the summary pages' skeleton into a new folder that then replaces
    ``skeleton``; the evidence shell is kept apart, out of the sitemap, and the search index
    is trimmed. On failure the last skeleton stays."""
    skeleton.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".skeleton-", dir=skeleton.parent))
    staging.chmod(0o755)
    try:
        _, proc = _mkdocs(summary, staging)
        if proc.returncode != 0:
            log = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-25:])
            raise CompareError(
                f"mkdocs build --strict failed (exit {proc.returncode}):\n{log}",
                "a warning is an error in strict mode: fix the template or data it names; "
                "the previous build was kept",
            )
        _atomic.write_bytes(shell_path, (staging / _evidence.SHELL_HTML).read_bytes())
        shutil.rmtree(staging / "cells", ignore_errors=True)
        _drop_shell_from_sitemap(staging)
        _trim_search_index(staging)
        _swap(staging, skeleton)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


#: The search index keeps each section's title and this many characters of its text: a
#: reader searches for an implementation, a row or a term and lands on its section; the
#: whole text of every table made the index megabytes that each reader's browser loads.
SEARCH_TEXT_CHARS = 400


def _trim_search_index(folder: Path) -> None:
    """Cut every section's text in the search index to its first ``SEARCH_TEXT_CHARS``."""
    path = folder / "search" / "search_index.json"
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    for doc in index.get("docs") or []:
        text = str(doc.get("text") or "")
        if len(text) > SEARCH_TEXT_CHARS:
            cut = text[:SEARCH_TEXT_CHARS]
            # never end inside a tag or an entity the result snippet would show raw
            cut = re.sub(r"<[^>]*$|&[#\w]*$", "", cut)
            doc["text"] = cut.rstrip() + " …"
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), "utf-8")


def _drop_shell_from_sitemap(folder: Path) -> None:
    """The shell is no page of the site: out of the sitemap (and its gzip copy)."""
    import gzip

    path = folder / "sitemap.xml"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    kept = re.sub(r"\s*<url>\s*<loc>[^<]*/cells/_shell\.html</loc>.*?</url>", "", text, flags=re.S)
    path.write_text(kept, encoding="utf-8")
    if (folder / "sitemap.xml.gz").is_file():
        (folder / "sitemap.xml.gz").write_bytes(gzip.compress(kept.encode(), mtime=0))


def _mkdocs(docs: Path, out: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    """One real ``mkdocs build --strict`` of ``docs`` into ``out`` with the committed config.
    Links into the cell pages are not mkdocs' to check (they are not its pages): a missing
    target is only noted by it, and ``compare.site._links.check_links`` checks every link of
    the finished site instead."""
    with tempfile.TemporaryDirectory(prefix="mcp-compare-mkdocs-") as tmp:
        config = Path(tmp) / "mkdocs.yml"
        config.write_text(
            f"INHERIT: {json.dumps(str(SITE_SOURCE / 'mkdocs.yml'))}\n"
            f"docs_dir: {json.dumps(str(docs))}\nsite_dir: {json.dumps(str(out))}\n"
            + (f"site_url: {json.dumps(url)}\n" if (url := site_url()) else "")
            + "validation:\n  links:\n    not_found: info\n",
            encoding="utf-8",
        )
        started = time.monotonic()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-f", str(config)],
                capture_output=True,
                text=True,
                timeout=BUILD_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as err:
            raise CompareError(
                f"mkdocs build did not finish in {BUILD_TIMEOUT_S} s", "look for a huge page"
            ) from err
        return time.monotonic() - started, proc


def site_url() -> str | None:
    """Where the site is published (``MCP_COMPARE_SITE_URL``), or None for the default of
    ``site/mkdocs.yml``. The sitemap's addresses and the 404 page's links are made from it."""
    url = os.environ.get("MCP_COMPARE_SITE_URL", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise CompareError(
            f"MCP_COMPARE_SITE_URL is not an http(s) address: {url!r}",
            "set it to where the site is published, e.g. https://example.org/mcp-compare/",
        )
    return url if url.endswith("/") else url + "/"


def serve_site(host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve the built folder until interrupted (what ``make serve`` runs)."""
    folder = build_dir()
    if not (folder / "index.html").is_file():
        raise CompareError(f"no built site in {folder}", "run `mcp-compare site` first")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    try:
        server = http.server.ThreadingHTTPServer((host, port), handler)
    except OSError as err:
        raise CompareError(
            f"cannot listen on {host}:{port}: {err}", "is it already served?"
        ) from err
    with server:
        print(f"serving {folder} on http://{host}:{port}/ (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
