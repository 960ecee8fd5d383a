"""Evidence pages (one per cell) written as HTML directly, in the look of the built site.

mkdocs builds the summary pages; building thousands of cell pages through it took minutes and
grew with every area. So mkdocs builds one more page, a *shell*: a cell-depth page whose
title, table of contents and body are marker words. Each cell's Markdown (rendered by
``mcp-compare render`` like any page) is converted here with the Markdown extensions and
settings ``site/mkdocs.yml`` names, and poured into the shell: same header, navigation,
styles, scripts and footer as every page, with the cell's own title, headings and body.

A cell page is converted again only when its Markdown or the shell changed (the record in
``site/.work/evidence.json``), so a run in which ten cells changed writes ten pages.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import multiprocessing
import os
import posixpath
import re
import shutil
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from compare import _atomic, _paths
from compare._cores import usable_cores
from compare._errors import CompareError
from compare._yaml import parse_yaml, read_text

#: The shell's marker words: mkdocs builds a page titled and filled with them.
TITLE = "MCPCOMPARESHELLTITLE"
TOC = "MCPCOMPARESHELLTOC"
BODY = "MCPCOMPARESHELLBODY"
#: Where the shell page sits: beside the cell pages, so every relative address in it is the
#: same for them.
SHELL_MD = "cells/_shell.md"
SHELL_HTML = "cells/_shell.html"
SHELL_SOURCE = (
    f'---\ntitle: "{TITLE}"\nsearch:\n  exclude: true\n---\n# {TITLE}\n\n## {TOC}\n\n{BODY}\n'
)
#: Bump when pages made by an older version of this module must be made again.
FORMAT = 2
#: Below this many pages to convert, one process does it (starting workers costs more).
POOL_FROM = 40


def record_path() -> Path:
    return _paths.site_dir() / ".work" / "evidence.json"


class _MdLinks(Treeprocessor):
    """``page.md`` links become ``page.html`` written the shortest way from the page, as
    mkdocs writes them (no directory URLs): ``../implementations/x.md`` seen from
    ``implementations/index.html`` is ``x.html``."""

    def run(self, root: Element) -> None:
        here = posixpath.dirname(str(getattr(self.md, "mc_page", "")))
        for el in root.iter():
            for attr in ("href", "src"):
                value = el.get(attr)
                if value and "://" not in value and not value.startswith(("#", "/", "mailto:")):
                    path, sep, anchor = value.partition("#")
                    if path.endswith(".md"):
                        target = posixpath.normpath(posixpath.join(here, path[:-3] + ".html"))
                        short = posixpath.relpath(target, here or ".")
                        el.set(attr, short + sep + anchor)


class _MdLinksExtension(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.treeprocessors.register(_MdLinks(md), "mc_md_links", 1)


def _extensions(config: Path) -> tuple[list[Any], dict[str, dict[str, Any]]]:
    """The ``markdown_extensions`` of ``mkdocs.yml`` with mkdocs' own built-ins first."""
    raw = _yaml_load(config)
    names: list[Any] = ["toc", "tables", "fenced_code"]
    settings: dict[str, dict[str, Any]] = {}
    for item in raw.get("markdown_extensions") or []:
        conf: dict[str, Any]
        if isinstance(item, str):
            name, conf = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            name, given = next(iter(item.items()))
            conf = dict(given or {})
        else:
            raise CompareError(f"{config}: unreadable markdown_extensions entry {item!r}", "fix it")
        if name not in names:
            names.append(name)
        settings[name] = dict(conf)
    if "pymdownx.superfences" in names:
        names.remove("fenced_code")  # mkdocs drops it too when superfences is there
    return [*names, _MdLinksExtension()], settings


def _yaml_load(path: Path) -> dict[str, Any]:
    value = parse_yaml(read_text(path), path)
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Shell:
    """The built shell page cut at its marker words."""

    text: str
    digest: str

    @classmethod
    def read(cls, path: Path) -> Shell:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise CompareError(
                f"mkdocs did not build the evidence shell {path}: {err}", ""
            ) from err
        for word in (TITLE, TOC, BODY):
            if word not in text:
                raise CompareError(
                    f"the evidence shell {path} lacks its marker {word}",
                    "the theme changed how it prints a page; see compare/site/_evidence.py",
                )
        return cls(text, hashlib.sha256(text.encode()).hexdigest())

    def page(self, slug: str, title: str, body: str, toc: list[dict[str, Any]]) -> str:
        """The shell with this page's title, table of contents and body."""
        text = self.text
        start = text.find(f'<h1 id="{TITLE.lower()}"')
        end = text.find(f"<p>{BODY}</p>")
        if start < 0 or end < 0:
            raise CompareError("the evidence shell's body markers are not where expected", "")
        text = text[:start] + "\x00BODY\x00" + text[end + len(f"<p>{BODY}</p>") :]
        text = _replace_toc(text, toc)
        # The theme's "skip to content" link points at the shell's heading: the page's own.
        heading = re.search(r'<h1 id="([^"]+)"', body)
        text = text.replace(f'href="#{TITLE.lower()}"', f'href="#{heading[1] if heading else ""}"')
        text = text.replace("_shell.html", f"{slug}.html")
        text = text.replace(TITLE, html.escape(title, quote=False))
        return text.replace("\x00BODY\x00", body)


def _replace_toc(text: str, toc: list[dict[str, Any]]) -> str:
    """The shell's one table-of-contents entry replaced by the page's own headings."""
    anchor = f'href="#{TOC.lower()}"'
    at = text.find(anchor)
    if at < 0:
        raise CompareError("the evidence shell has no table-of-contents entry", "")
    start = text.rfind('<li class="md-nav__item">', 0, at)
    end = text.find("</li>", at)
    if start < 0 or end < 0:
        raise CompareError("the evidence shell's table of contents is not where expected", "")
    return text[:start] + _toc_items(toc) + text[end + len("</li>") :]


def _toc_items(tokens: Iterable[dict[str, Any]]) -> str:
    """Material's table-of-contents markup for headings below the title."""
    out = []
    for token in tokens:
        name = token.get("name", "")
        item = (
            f'<li class="md-nav__item">\n  <a href="#{html.escape(token["id"])}" '
            f'class="md-nav__link">\n    <span class="md-ellipsis">\n      {name}\n'
            "    </span>\n  </a>\n"
        )
        children = token.get("children") or []
        if children:
            item += (
                f'  <nav class="md-nav" aria-label="{html.escape(_plain(name))}">\n'
                f'    <ul class="md-nav__list">\n{_toc_items(children)}    </ul>\n  </nav>\n'
            )
        out.append(item + "</li>\n")
    return "".join(out)


def _plain(name: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", name))


_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def convert(source: str, config: Path, page: str) -> tuple[str, str, list[dict[str, Any]]]:
    """A page's Markdown as (title, body HTML, headings below the title); ``page`` is where
    its HTML goes, relative to the site (its links are written from there)."""
    title = ""
    match = _FRONT.match(source)
    if match:
        for line in match.group(1).splitlines():
            if line.startswith("title:"):
                try:
                    title = str(json.loads(line[len("title:") :].strip()))
                except ValueError:
                    title = line[len("title:") :].strip()
        source = source[match.end() :]
    md = _converter(str(config))
    md.reset()
    md.mc_page = page
    body = md.convert(source)
    tokens: list[dict[str, Any]] = list(getattr(md, "toc_tokens", []))
    if len(tokens) == 1 and tokens[0].get("level") == 1:  # the page's own title
        tokens = list(tokens[0].get("children") or [])
    return title, body, tokens


@functools.cache
def _converter(config: str) -> markdown.Markdown:
    """One Markdown converter per process, set up as mkdocs sets up its own."""
    names, settings = _extensions(Path(config))
    return markdown.Markdown(extensions=names, extension_configs=settings)


def _one(args: tuple[str, str, str, str]) -> tuple[str, str | None]:
    """Convert one cell page and write it (in a worker); (slug, error or None)."""
    source_path, out_path, shell_text, config = args
    slug = Path(source_path).stem
    try:
        source = Path(source_path).read_text(encoding="utf-8")
        title, body, toc = convert(source, Path(config), f"cells/{slug}.html")
        page = Shell(shell_text, "").page(slug, title or slug, body, toc)
        _atomic.write_text(Path(out_path), page)
    except (OSError, CompareError, ValueError) as err:
        return slug, str(err)
    return slug, None


@dataclass
class Made:
    """What one evidence pass did."""

    converted: int = 0
    kept: int = 0
    #: The pages written by this pass (file names under ``cells/``).
    written: list[str] = field(default_factory=list)
    copied: int = 0
    removed: int = 0


def _stat(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def make_evidence(docs: Path, out: Path, shell: Shell, config: Path) -> Made:
    """Every cell page of ``docs/cells`` into ``out/cells`` as HTML, and the files beside them
    (transcripts) copied; a page whose Markdown and shell are as last time is kept."""
    made = Made()
    src_dir, dst_dir = docs / "cells", out / "cells"
    dst_dir.mkdir(parents=True, exist_ok=True)
    record = _read_record(record_path())
    made_by = _made_by(shell, config)
    if record.get("shell") != made_by or record.get("format") != FORMAT:
        record = {"pages": {}, "files": {}}
    pages_before: dict[str, Any] = record.get("pages") or {}
    files_before: dict[str, Any] = record.get("files") or {}
    pages: dict[str, Any] = {}
    files: dict[str, Any] = {}
    todo: list[tuple[str, str, str, str]] = []
    wanted: set[str] = set()
    sources = sorted(src_dir.iterdir()) if src_dir.is_dir() else []
    for src in sources:
        if not src.is_file() or src.name.startswith("."):
            continue
        stat = _stat(src)
        if src.suffix == ".md":
            name = src.stem + ".html"
            wanted.add(name)
            pages[src.name] = stat
            if pages_before.get(src.name) == stat and (dst_dir / name).is_file():
                made.kept += 1
                continue
            todo.append((str(src), str(dst_dir / name), shell.text, str(config)))
        else:
            wanted.add(src.name)
            files[src.name] = stat
            dst = dst_dir / src.name
            if files_before.get(src.name) == stat and dst.is_file():
                continue
            _atomic.write_bytes(dst, src.read_bytes())
            made.copied += 1
    failed = _convert_all(todo)
    for slug, _ in failed:
        pages.pop(f"{slug}.md", None)
    made.converted = len(todo) - len(failed)
    bad = {f"{slug}.html" for slug, _ in failed}
    made.written = [Path(t[1]).name for t in todo if Path(t[1]).name not in bad]
    for stale in dst_dir.iterdir():
        if stale.name not in wanted:
            if stale.is_dir():
                shutil.rmtree(stale, ignore_errors=True)
            else:
                stale.unlink(missing_ok=True)
            made.removed += 1
    _atomic.write_json(
        record_path(),
        {"format": FORMAT, "shell": made_by, "pages": pages, "files": files},
    )
    if failed:
        shown = "\n".join(f"  {slug}: {why}" for slug, why in failed[:10])
        raise CompareError(
            f"{len(failed)} cell page(s) could not be written:\n{shown}",
            "the other pages were written; fix what is named and run `mcp-compare site` again",
        )
    return made


def _made_by(shell: Shell, config: Path) -> str:
    """What every cell page is made with besides its Markdown: the shell, this converter, the
    Markdown settings and the Markdown packages' versions (a change converts every page)."""
    from importlib.metadata import PackageNotFoundError, version

    digest = hashlib.sha256(shell.digest.encode())
    digest.update(Path(__file__).read_bytes() + config.read_bytes())
    for name in ("markdown", "pymdown-extensions", "pygments"):
        try:
            digest.update(f"{name} {version(name)}".encode())
        except PackageNotFoundError:
            digest.update(f"{name} -".encode())
    return digest.hexdigest()


def _convert_all(todo: list[tuple[str, str, str, str]]) -> list[tuple[str, str]]:
    if not todo:
        return []
    workers = min(usable_cores(), max(1, len(todo) // POOL_FROM))
    if workers <= 1:
        results = [_one(args) for args in todo]
    else:
        spawn = multiprocessing.get_context("spawn")  # no fork of a process with threads
        with ProcessPoolExecutor(max_workers=workers, mp_context=spawn) as pool:
            results = list(pool.map(_one, todo, chunksize=32))
    return [(slug, why) for slug, why in results if why is not None]


def _read_record(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def link_out(path: Path, target: Path) -> None:
    """Hard-link ``path`` to ``target`` (a copy where links are not possible)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(path, target)
    except OSError:
        shutil.copy2(path, target)
