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
from compare.site import _evidence, _linkcheck
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


def _summary_docs(docs: Path) -> Path:
    """A folder of every page but the cell pages, plus the evidence shell: what mkdocs
    builds. Files are hard links into ``docs/`` (nothing is copied)."""
    folder = work_dir() / "summary"
    shutil.rmtree(folder, ignore_errors=True)
    for path in sorted(docs.rglob("*")):
        rel = path.relative_to(docs)
        if not path.is_file() or rel.parts[0] == "cells":
            continue
        _evidence.link_out(path, folder / rel)
    _atomic.write_text(folder / _evidence.SHELL_MD, _evidence.SHELL_SOURCE)
    return folder


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
    """Build the site: the summary pages with ``mkdocs build --strict`` (any warning fails the
    build) when they changed, then every cell page as HTML in the same look, converting only
    those whose Markdown changed (``compare.site._evidence``); the links of every page are
    checked. A failed build keeps the last one."""
    docs = docs_dir()
    if not (docs / "index.md").is_file():
        raise CompareError(f"no rendered pages in {docs}", "run `mcp-compare render` first")
    out = build_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    summary = _summary_docs(docs)
    key = _summary_key(summary)
    record = work_dir() / "summary.json"
    config = SITE_SOURCE / "mkdocs.yml"
    try:
        last = json.loads(record.read_text(encoding="utf-8")).get("key")
    except (OSError, ValueError, AttributeError):
        last = None
    shell_path = work_dir() / "shell.html"
    rebuilt = last != key or not (out / "index.html").is_file() or not shell_path.is_file()
    if not rebuilt:  # the summary pages stand: only cell pages are written, in place
        made = _evidence.make_evidence(docs, out, _evidence.Shell.read(shell_path), config)
        _check(out, made)
    else:
        made = _build_summary(summary, out, shell_path, docs, config)
        _atomic.write_json(record, {"key": key})
    pages = sum(1 for _ in out.rglob("*.html"))
    return Built(out, time.monotonic() - started, pages, made.converted, made.kept, rebuilt)


def _check(folder: Path, made: _evidence.Made) -> None:
    """The links of every summary page (they point into the cell pages, which may have gone)
    and of the cell pages written now (a kept one was checked when it was written)."""
    summary = [p for p in folder.rglob("*.html") if p.relative_to(folder).parts[0] != "cells"]
    _linkcheck.check_links(folder, [*summary, *(folder / "cells" / n for n in made.written)])


def _build_summary(
    summary: Path, out: Path, shell_path: Path, docs: Path, config: Path
) -> _evidence.Made:
    """mkdocs on the summary pages into a new folder beside ``out``; the cell pages of the
    last build are moved into it and brought up to date, its links are checked, then it takes
    ``out``'s place. On any failure the last build stays as it was."""
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a site is meant to be read
    moved = False
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
        if (out / "cells").is_dir():
            (out / "cells").rename(staging / "cells")
            moved = True
        made = _evidence.make_evidence(docs, staging, _evidence.Shell.read(shell_path), config)
        _check(staging, made)
        old = out.with_name(f".{out.name}-old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            out.rename(old)
        staging.rename(out)
        moved = False
        shutil.rmtree(old, ignore_errors=True)
        return made
    finally:
        if moved and out.is_dir() and (staging / "cells").is_dir():
            (staging / "cells").rename(out / "cells")  # the last build keeps its cell pages
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
