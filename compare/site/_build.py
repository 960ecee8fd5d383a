"""Building the static site with the real ``mkdocs build --strict``, and serving it.

The committed ``site/mkdocs.yml`` is the base; a small generated config inherits it and only
moves ``docs_dir`` / ``site_dir`` to where ``compare._paths.site_dir()`` points, so tests can
build into a temporary folder with the very same configuration.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from compare import _paths
from compare._errors import CompareError
from compare.site._render import SITE_SOURCE, docs_dir

BUILD_TIMEOUT_S = 300


def build_dir() -> Path:
    return _paths.site_dir() / "build"


@dataclass(frozen=True)
class Built:
    """Where the site was built, how long it took, and how many HTML pages it has."""

    folder: Path
    seconds: float
    pages: int


def build_site() -> Built:
    """Run ``mkdocs build --strict`` on the rendered pages; any warning fails the build."""
    docs = docs_dir()
    if not (docs / "index.md").is_file():
        raise CompareError(f"no rendered pages in {docs}", "run `mcp-compare render` first")
    out = build_dir()
    out.parent.mkdir(parents=True, exist_ok=True)
    # Build beside the old site and swap only on success: a failed build keeps the last one.
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=out.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; a site is meant to be read
    try:
        seconds, proc = _mkdocs(docs, staging)
        if proc.returncode != 0:
            log = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-25:])
            raise CompareError(
                f"mkdocs build --strict failed (exit {proc.returncode}):\n{log}",
                "a warning is an error in strict mode: fix the template or data it names; "
                "the previous build was kept",
            )
        old = out.with_name(f".{out.name}-old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            out.rename(old)
        staging.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    pages = sum(1 for _ in out.rglob("*.html"))
    return Built(out, seconds, pages)


def _mkdocs(docs: Path, out: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    """One real ``mkdocs build --strict`` of ``docs`` into ``out`` with the committed config."""
    with tempfile.TemporaryDirectory(prefix="mcp-compare-mkdocs-") as tmp:
        config = Path(tmp) / "mkdocs.yml"
        config.write_text(
            f"INHERIT: {json.dumps(str(SITE_SOURCE / 'mkdocs.yml'))}\n"
            f"docs_dir: {json.dumps(str(docs))}\nsite_dir: {json.dumps(str(out))}\n"
            + (f"site_url: {json.dumps(url)}\n" if (url := site_url()) else ""),
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
