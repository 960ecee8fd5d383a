"""Where each stage keeps its data, in one place so stages agree without importing each other.

Every location can be moved with an environment variable, which tests use to work in a
temporary folder without touching the checkout's own outputs.
"""

from __future__ import annotations

import os
from pathlib import Path

#: The checkout: the folder holding ``pyproject.toml`` above this package.
PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _env_path(name: str, default: Path) -> Path:
    value = os.environ.get(name)
    return Path(value).resolve() if value else default


def schemas_dir() -> Path:
    """Pins (``revisions.toml``) and the generated per-revision models."""
    return _env_path("MCP_COMPARE_SCHEMAS", PROJECT_ROOT / "schemas")


def cache_dir() -> Path:
    """Fetched spec sources and clones; safe to delete, never committed."""
    return _env_path("MCP_COMPARE_CACHE", PROJECT_ROOT / ".cache")


def yaml_cache_dir() -> Path:
    """Parsed data files, kept by the sha256 of their text (``compare._yaml_cache``); safe to
    delete. Beside the spec cache unless moved (the tests share one for their session)."""
    return _env_path("MCP_COMPARE_YAML_CACHE", cache_dir() / "yaml")


def results_dir() -> Path:
    """Exchange results: one folder per target, version, scenario and revision."""
    return _env_path("MCP_COMPARE_RESULTS", PROJECT_ROOT / "results")


def checks_dir() -> Path:
    """Where ``mcp-compare check`` keeps each checked program's cells and reports: apart from
    the published results, so a check never reaches the matrix."""
    return _env_path("MCP_COMPARE_CHECKS", PROJECT_ROOT / "checks")


def tools_dir() -> Path:
    """Project-local installs of the real clients (npm packages, per-client venvs)."""
    return _env_path("MCP_COMPARE_TOOLS", PROJECT_ROOT / "tools")


#: Packages or targets an install leaves out, separated by spaces (``make test`` sets it).
TOOLS_EXCEPT = "MCP_COMPARE_TOOLS_EXCEPT"


def tools_left_out() -> frozenset[str]:
    """What installs leave out here: the tests leave out a program only its golden cells
    keep, so every install a test asks for (and the stamp) leaves it out the same way."""
    return frozenset(os.environ.get(TOOLS_EXCEPT, "").split())


def m2_repository() -> Path:
    """The local Maven repository (where Maven hosts' jars and sources jars are kept)."""
    return _env_path("MCP_COMPARE_M2_REPO", Path.home() / ".m2" / "repository")


def build_dir() -> Path:
    """Derived data of later stages (diff.json, rows.json, citations.json, matrix.json)."""
    return _env_path("MCP_COMPARE_BUILD", PROJECT_ROOT / "build")


def site_dir() -> Path:
    """The mkdocs project: ``mkdocs.yml``, ``templates/``, generated ``docs/``, built ``build/``."""
    return _env_path("MCP_COMPARE_SITE", PROJECT_ROOT / "site")


def areas_dir() -> Path:
    """The area files (``<area>.yaml``): what each area is called, its pages and schema items.

    Read by pin (which pages to pin), diff (which items to select), rows and site, so a test can
    point the whole pipeline at a folder of its own areas.
    """
    return _env_path("MCP_COMPARE_AREAS", PROJECT_ROOT / "compare" / "rows" / "areas")


def implementations_file() -> Path:
    """The implementations registry: every cited (not run) column, declared once for all areas.

    Beside the areas rather than in their folder (it is not an area); a test moves it with
    ``MCP_COMPARE_IMPLEMENTATIONS``.
    """
    return _env_path(
        "MCP_COMPARE_IMPLEMENTATIONS", PROJECT_ROOT / "compare" / "rows" / "implementations.yaml"
    )


def relative_posix(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a POSIX path; ``ValueError`` when it is not under it.
    Cut by the strings when it lies under ``root``, as every scanned cell does: pathlib's
    ``relative_to`` over thousands of cells was a tenth of a warm ``rows``."""
    text, base = str(path), str(root)
    if text.startswith(base + "/"):
        return text[len(base) + 1 :]
    return path.relative_to(root).as_posix()
