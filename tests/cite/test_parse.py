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


def test_crate_source() -> None:
    c = parse_citation("crate:rmcp@3.11.0/src/handler/client.rs:107-111")
    assert (c.kind, c.package, c.version, c.path) == (
        "crate",
        "rmcp",
        "3.11.0",
        "src/handler/client.rs",
    )
    assert (c.source, c.start, c.end) == ("crate:rmcp@3.11.0/src/handler/client.rs", 107, 111)


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
        "crate:rmcp/src/lib.rs:1 “x”",  # no version
        "crate:rmcp@x1/src/lib.rs:1 “x”",  # a version starts with a digit
        "crate:../x@1.0.0/src/lib.rs:1 “x”",
    ],
)
def test_malformed_citations_raise_compare_error_with_the_forms(bad: str) -> None:
    with pytest.raises(CompareError) as err:
        parse_citation(bad)
    assert err.value.hint


def test_a_bare_line_is_a_place_to_show_not_a_claim() -> None:
    with pytest.raises(CompareError, match="quotes nothing"):
        parse_citation("docs/specification/2025-11-25/client/roots.mdx:78")
    cit = parse_citation("docs/specification/2025-11-25/client/roots.mdx:78", bare_line=True)
    assert (cit.start, cit.end, cit.quote) == (78, 78, None)


def test_the_site_splits_a_citation_with_the_verifiers_grammar() -> None:
    # The site used to re-parse with a regex of its own: a malformed package source or an
    # unknown path was linked as if it were a spec file the verifier would have checked.
    from compare.site._matrix import cite_target

    commit = "b0f60ba5409db7a6582440a7b473cc0398890f15"
    repo = "https://github.com/modelcontextprotocol/modelcontextprotocol"
    spec = cite_target("schema/2025-11-25/schema.json:10-12 “roots”", repo, commit)
    assert (spec.file, spec.lines, spec.quote) == (
        "schema/2025-11-25/schema.json",
        "10-12",
        "roots",
    )
    assert spec.link and spec.link.endswith(f"{commit}/schema/2025-11-25/schema.json#L10-L12")
    gh = cite_target(f"gh:dezren39/nix@{commit}/pkgs/mcpx/a.go:5 “x y z”", repo, commit)
    assert gh.file == "pkgs/mcpx/a.go" and gh.source == f"dezren39/nix @ {commit[:12]}"
    crate = cite_target("crate:rmcp@3.11.0/src/model.rs:176 “pub const LATEST”", repo, commit)
    assert (crate.source, crate.file, crate.lines) == ("crate rmcp@3.11.0", "src/model.rs", "176")
    assert crate.link == "https://docs.rs/crate/rmcp/3.11.0/source/src/model.rs#L176"
    for bad in ("notes/todo.md:3 “anything”", "npm:@scope@1.0/x.js:1 “q”", "nowhere"):
        with pytest.raises(CompareError):
            parse_citation(bad)
        assert cite_target(bad, repo, commit).source == "unparsed"


def test_go_module_sources_keep_the_module_path_whole() -> None:
    c = parse_citation("go:github.com/mark3labs/mcp-go@v1.2.1/client/roots.go:9-17")
    assert (c.kind, c.package, c.version, c.path) == (
        "go",
        "github.com/mark3labs/mcp-go",
        "v1.2.1",
        "client/roots.go",
    )


@pytest.mark.parametrize(
    "bad",
    [
        "go:github.com/x/y@1.2.1/a.go:1 “x”",  # a module version starts with v
        "go:github.com/x/y/a.go:1 “x”",  # no version
        "go:github.com/../y@v1.0.0/a.go:1 “x”",
    ],
)
def test_malformed_go_sources_raise_compare_error(bad: str) -> None:
    with pytest.raises(CompareError, match="go:MODULE@VERSION"):
        parse_citation(bad)


@pytest.mark.parametrize(
    ("ref", "says"),
    [
        ("docs/a.mdx:١٢ “x”", "no :LINE"),  # other scripts' digits, which int() reads as 12
        ("docs/a.mdx:07 “x”", "leading zero"),
        ("docs/a.mdx:7-07", "leading zero"),
    ],
)
def test_line_numbers_are_plain_ascii_numbers(ref: str, says: str) -> None:
    # Found by tests/fuzz/test_fuzz_cite.py: the location must be spelled in the text as
    # written, or `cite --fix` cannot find it.
    with pytest.raises(CompareError, match=says):
        parse_citation(ref)


def test_a_one_line_range_keeps_its_form() -> None:
    assert parse_citation("docs/a.mdx:5-5").location == "docs/a.mdx:5-5"
