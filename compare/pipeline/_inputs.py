"""What each stage's result depends on, and what it writes: the two halves of its stamp.

Every function here only hashes or stats files (no stage package is imported), so asking
all nine stages whether they may skip costs milliseconds. Inputs are deliberately generous:
a stage re-run for an input that did not matter costs seconds, a stage skipped for one that
did would publish a stale page.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from compare import _paths
from compare._stamp import Digest

#: The committed half of the site (``site/mkdocs.yml``, ``templates/``, ``assets/``), always
#: read from the checkout (``MCP_COMPARE_SITE`` moves only ``docs/`` and ``build/``).
SITE_SOURCE = _paths.PROJECT_ROOT / "site"
_PACKAGE = _paths.PROJECT_ROOT / "compare"
#: The code that builds the site from the pages (the pages are its real input): mkdocs for the
#: summary pages, the parts put back into them, the cell pages, the link check.
_BUILD_CODE = (
    "compare/site/_build.py",
    "compare/site/_evidence.py",
    "compare/site/_splice.py",
    "compare/site/_linkcheck.py",
)


@cache
def _versions(*names: str) -> str:
    found = []
    for name in names:
        try:
            found.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return "\n".join(found)


def _pins() -> Path:
    return _paths.schemas_dir() / "revisions.toml"


def _spec_cache() -> Path:
    return _paths.cache_dir() / "spec"


def _models() -> Path:
    return _paths.schemas_dir() / "models"


def _build(name: str) -> Path:
    return _paths.build_dir() / name


def _base(stage: str, *packages: str) -> Digest:
    return Digest(stage).settings().code(*packages).files("pins", [_pins()])


def pin_inputs() -> str:
    return _base("pin", "pin").hexdigest()


def pin_outputs() -> list[Path]:
    return [_spec_cache()]


def models_inputs() -> str:
    """The pinned schemas (by the pins' sha256 and the verified cache) and the generator."""
    digest = _base("models", "pin", "models").tree("spec", _spec_cache())
    return digest.text("generator", _versions("datamodel-code-generator", "pydantic")).hexdigest()


def models_outputs() -> list[Path]:
    return [_models()]


def diff_inputs() -> str:
    digest = _base("diff", "pin", "models", "diff").tree("spec", _spec_cache())
    return digest.tree("areas", _paths.areas_dir(), content=True).hexdigest()


def diff_outputs() -> list[Path]:
    return [_build("diff.json")]


def run_inputs(selection: tuple[str, ...] = ()) -> str:
    """Everything a cell's key is made of: targets, scenarios, host programs, peer, harness
    and judge (all of ``compare/exchange/``), the pins (spec commit) and the models; and
    which cells were chosen (``--target``/``--scenario``/``--revision`` arguments)."""
    digest = _base(
        "run", "pin", "models", "exchange", "play", "judge", "peer", "hosts", "install"
    ).tree("models", _models())
    return digest.text("selection", "\n".join(selection)).hexdigest()


def _citation_inputs(digest: Digest) -> Digest:
    """What ``build/citations.json`` rests on besides the code: the tools' lock files, the
    built hosts' stamps and which upstream clones exist (as ``compare.rows._citecheck``)."""
    tools = _paths.tools_dir()
    locks = [tools / "package-lock.json", *sorted(tools.glob("npm/*/package-lock.json"))]
    digest.files("lock", [*locks, *sorted((tools / "requirements").glob("*.txt"))])
    digest.files("host-stamp", sorted((tools / "hosts").glob("*/.mcp-compare-stamp")))
    clones = sorted(str(p) for p in (_paths.cache_dir() / "repos").glob("*/*"))
    return digest.text("clones", "\n".join(clones))


def _rows_like(stage: str) -> Digest:
    digest = _base(
        stage,
        "pin",
        "models",
        "diff",
        "exchange",
        "play",
        "judge",
        "peer",
        "hosts",
        "install",
        "cite",
        "rows",
    )
    digest.tree("areas", _paths.areas_dir(), content=True)
    digest.tree("spec", _spec_cache()).tree("models", _models())
    digest.files("diff", [_build("diff.json")])
    digest.tree("results", _paths.results_dir())
    return _citation_inputs(digest)


def rows_inputs() -> str:
    return _rows_like("rows").hexdigest()


def rows_outputs() -> list[Path]:
    return [_build("rows.json"), _build("citations.json")]


def cite_inputs() -> str:
    """The rows stage's inputs; ``build/citations.json`` itself is the output it checks (a
    changed record re-runs the check)."""
    return _rows_like("cite").hexdigest()


def cite_outputs() -> list[Path]:
    return [_build("citations.json")]


def _site_data(stage: str) -> Digest:
    """What ``render`` and ``export`` read: every earlier stage's outputs and the results."""
    digest = _rows_like(stage).code("site")
    return digest.files("build", [_build(n) for n in ("rows.json", "citations.json")])


def render_inputs() -> str:
    """The site data, the matrices the "what changed" page compares (export writes them after
    render, so a run that changed them renders once more on the next run), templates, assets."""
    digest = _site_data("render")
    digest.files("matrix", [_build("matrix.json"), _build("previous/matrix.json")])
    # The maintainers' pages list every package's exported names and publish every contract
    # schema, the top-level ones (compare/*.schema.json) included.
    digest.code(*_packages()).files("schemas", sorted(_PACKAGE.glob("*.schema.json")))
    digest.tree("templates", SITE_SOURCE / "templates", content=True)
    return digest.tree("assets", SITE_SOURCE / "assets", content=True).hexdigest()


def _packages() -> list[str]:
    """Every subpackage of ``compare/`` (found, so a moved or added one counts)."""
    return sorted(p.parent.name for p in _PACKAGE.glob("*/__init__.py"))


def render_outputs() -> list[Path]:
    return [_paths.site_dir() / "docs"]


def export_inputs() -> str:
    return _site_data("export").hexdigest()


def export_outputs() -> list[Path]:
    return [_build("matrix.json"), _build("previous/matrix.json")]


def site_inputs() -> str:
    """The pages (``site/docs/``: render rewrites only pages that changed), the committed
    configuration, templates and assets, mkdocs and its theme, and the build code."""
    code = [_paths.PROJECT_ROOT / name for name in _BUILD_CODE]
    digest = Digest("site").settings().files("code", code)
    digest.files("config", [SITE_SOURCE / "mkdocs.yml"])
    digest.tree("templates", SITE_SOURCE / "templates", content=True)
    digest.tree("assets", SITE_SOURCE / "assets", content=True)
    digest.tree("docs", _paths.site_dir() / "docs")
    return digest.text("mkdocs", _versions("mkdocs", "mkdocs-material")).hexdigest()


def site_outputs() -> list[Path]:
    return [_paths.site_dir() / "build"]
