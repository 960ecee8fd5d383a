"""The two pages at the top of the repository: README.md stays a short introduction, and
CONTRACTS.md links every contract's schema; both link only files that exist."""

from __future__ import annotations

import re

from compare._contracts import CONTRACTS
from compare._paths import PROJECT_ROOT


def test_contracts_md_links_every_schema_and_only_files_that_exist() -> None:
    """CONTRACTS.md is the short page that links the schemas: none may be missing from it, and
    a link to a schema that moved or went away fails here rather than in a reader's browser."""
    text = (PROJECT_ROOT / "CONTRACTS.md").read_text("utf-8")
    links = re.findall(r"\]\(([^)#]+)\)", text)
    assert {c.schema for c in CONTRACTS} <= set(links)
    assert [link for link in links if not (PROJECT_ROOT / link).exists()] == []


def test_readme_stays_short_and_links_only_files_that_exist() -> None:
    text = (PROJECT_ROOT / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= 200
    local = [link for link in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in link]
    assert local and [link for link in local if not (PROJECT_ROOT / link).exists()] == []
