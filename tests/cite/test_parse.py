"""The two citation forms, each source kind, and clear errors for everything else."""

from __future__ import annotations

import pytest

from compare._errors import CompareError
from compare.cite import parse_citation


def test_spec_line_with_curly_quote() -> None:
    c = parse_citation("schema/2025-06-18/schema.json:12 “roots/list”")
    assert (c.kind, c.path, c.start, c.end, c.quote) == (
        "spec",
        "schema/2025-06-18/schema.json",
        12,
        12,
        "roots/list",
    )


def test_straight_quotes_are_accepted() -> None:
    assert parse_citation('docs/a.mdx:3 "a quote"').quote == "a quote"


def test_range_without_quote() -> None:
    c = parse_citation("docs/a.mdx:3-9")
    assert (c.start, c.end, c.quote, c.location) == (3, 9, None, "docs/a.mdx:3-9")


def test_scoped_npm_package_with_version() -> None:
    c = parse_citation("npm:@modelcontextprotocol/sdk@1.32.2/dist/esm/client/index.js:415 “x”")
    assert (c.kind, c.package, c.version, c.path) == (
        "npm",
        "@modelcontextprotocol/sdk",
        "1.32.2",
        "dist/esm/client/index.js",
    )


def test_pypi_and_github_sources() -> None:
    p = parse_citation("pypi:mcp@2.3.0/mcp/client/session.py:273 “x”")
    assert (p.kind, p.package, p.version) == ("pypi", "mcp", "2.3.0")
    g = parse_citation("gh:lydakis/mcpx@8feaf280791afe6c396b186e044dc450f01dc949/a/b.go:16 “x”")
    assert (g.kind, g.package, g.version, g.path) == (
        "gh",
        "lydakis/mcpx",
        "8feaf280791afe6c396b186e044dc450f01dc949",
        "a/b.go",
    )


def test_colon_digits_inside_the_quote_do_not_confuse_the_line() -> None:
    c = parse_citation("docs/a.mdx:7 “see docs/b.mdx:12 for more”")
    assert (c.path, c.start) == ("docs/a.mdx", 7)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "docs/a.mdx",
        "docs/a.mdx:7",  # one line and no quote: nothing to verify
        "docs/a.mdx:9-3",
        "docs/a.mdx:0 “x”",
        "docs/a.mdx:3 “”",
        "elsewhere/a.mdx:3 “x”",
        "npm:nover/a.js:3 “x”",
        "docs/../../etc/passwd:1 “x”",
        "docs/a.mdx:3 x”",
        "npm:..@1/package.json:1 “x”",
        "npm:@scope/..@1/a.js:1 “x”",
        "pypi:..@1/a.py:1 “x”",
    ],
)
def test_malformed_citations_raise_compare_error_with_the_forms(bad: str) -> None:
    with pytest.raises(CompareError) as err:
        parse_citation(bad)
    assert err.value.hint
