"""Each citation status on a crafted source: an installed-package layout in a temp tools folder
(read by the real npm reader, version check included) and a real git repository for ``gh:``."""

from __future__ import annotations

import json
from pathlib import Path

import git
import pytest

from compare.cite import parse_citation, verify

DOC = """# Title

Servers **MUST** ask for `roots/list` first.
Some filler line.
A repeated phrase here.
Another filler line.
A repeated phrase here.
The moved sentence lives on line eight.
"""


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tools folder holding one installed npm package, ``fakepkg`` 1.0.0, with doc.md."""
    root = tmp_path / "tools"
    pkg = root / "node_modules" / "fakepkg"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"name": "fakepkg", "version": "1.0.0"}))
    (pkg / "doc.md").write_text(DOC)
    monkeypatch.setenv("MCP_COMPARE_TOOLS", str(root))
    return root


def check(ref: str) -> tuple[str, str, list[int]]:
    result = verify(parse_citation(ref))
    return result.status, result.message, result.found_at


def test_quote_on_the_cited_line_is_verified(tools: Path) -> None:
    status, _, found = check("npm:fakepkg@1.0.0/doc.md:3 “Servers **MUST** ask for”")
    assert (status, found) == ("verified", [3])


def test_emphasis_and_backticks_only_differ_is_verified_normalised(tools: Path) -> None:
    status, message, _ = check("npm:fakepkg@1.0.0/doc.md:3 “Servers MUST ask for roots/list”")
    assert status == "verified-normalised"
    assert "emphasis" in message or "backticks" in message


def test_whitespace_only_differs_is_verified_normalised_and_says_so(tools: Path) -> None:
    status, message, _ = check("npm:fakepkg@1.0.0/doc.md:4 “Some   filler line.”")
    assert status == "verified-normalised"
    assert "whitespace" in message


def test_quote_found_at_one_other_line_is_moved_with_the_new_line(tools: Path) -> None:
    status, message, found = check("npm:fakepkg@1.0.0/doc.md:2 “The moved sentence”")
    assert (status, found) == ("moved", [8])
    assert "line 8" in message


def test_quote_on_several_other_lines_is_ambiguous(tools: Path) -> None:
    status, message, found = check("npm:fakepkg@1.0.0/doc.md:4 “A repeated phrase”")
    assert (status, found) == ("ambiguous", [5, 7])
    assert "5, 7" in message


def test_quote_nowhere_is_a_mismatch(tools: Path) -> None:
    status, _, found = check("npm:fakepkg@1.0.0/doc.md:3 “Clients MUST NOT”")
    assert (status, found) == ("mismatch", [])


def test_line_past_the_end_is_a_mismatch_not_a_crash(tools: Path) -> None:
    status, message, _ = check("npm:fakepkg@1.0.0/doc.md:400-401")
    assert status == "mismatch"
    assert "past its end" in message


def test_bare_range_inside_the_file_is_verified_as_a_range(tools: Path) -> None:
    status, message, _ = check("npm:fakepkg@1.0.0/doc.md:3-4")
    assert status == "verified"
    assert "no quote" in message


def test_quote_spanning_a_cited_range_is_verified(tools: Path) -> None:
    status, _, _ = check("npm:fakepkg@1.0.0/doc.md:3-4 “first.\nSome filler”")
    assert status == "verified"


def test_other_installed_version_is_unavailable_and_fails_offline(tools: Path) -> None:
    result = verify(parse_citation("npm:fakepkg@2.0.0/doc.md:3 “Servers”"))
    assert result.status == "unavailable"
    assert "1.0.0" in result.message and "2.0.0" in result.message
    assert result.offline  # a package is verifiable offline: its absence must fail the check


def test_package_not_installed_is_unavailable_with_the_install_command(tools: Path) -> None:
    result = verify(parse_citation("pypi:nothere@1.0/x.py:1 “x”"))
    assert result.status == "unavailable"
    assert "tools install" in result.message


def test_crate_is_read_where_cargo_unpacked_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``crate:`` reads ``$CARGO_HOME/registry/src/<index>/<name>-<version>/``, no other."""
    home = tmp_path / "cargo"
    crate = home / "registry" / "src" / "index.crates.io-0123456789abcdef" / "fakecrate-1.2.3"
    (crate / "src").mkdir(parents=True)
    (crate / "src" / "doc.md").write_text(DOC)
    monkeypatch.setenv("CARGO_HOME", str(home))
    status, _msg, found = check("crate:fakecrate@1.2.3/src/doc.md:3 “Servers **MUST** ask for”")
    assert (status, found) == ("verified", [3])
    result = verify(parse_citation("crate:fakecrate@1.2.3/src/doc.md:3 “Servers **MUST** ask for”"))
    assert result.link and result.link.endswith("/fakecrate/1.2.3/source/src/doc.md#L3")
    status, msg, _found = check("crate:fakecrate@1.2.4/src/doc.md:3 “Servers **MUST** ask for”")
    assert status == "unavailable" and "tools install" in msg
    status, msg, _found = check("crate:fakecrate@1.2.3/../../x.md:1 “x”")
    assert status == "unavailable" and "leaves the package" in msg


def test_path_escaping_the_package_is_refused(tools: Path) -> None:
    result = verify(parse_citation("npm:fakepkg@1.0.0/../../../etc/passwd:1 “root”"))
    assert result.status == "unavailable"
    assert "leaves the package" in result.message


def test_unreachable_repository_is_unavailable_never_verified(isolated: Path) -> None:
    result = verify(parse_citation("gh:someone/absent@0123456789abcdef/a.go:1 “x”"))
    assert result.status == "unavailable"
    assert result.message.startswith("not verified: source unavailable")
    assert not result.offline


def test_repository_with_a_local_clone_is_read_at_the_cited_commit(isolated: Path) -> None:
    clone = isolated / "cache" / "repos" / "someone" / "tool"
    repo = git.Repo.init(clone)
    (clone / "main.go").write_text("package main\n// roots are ignored here\n")
    repo.index.add(["main.go"])
    first = repo.index.commit("first").hexsha
    (clone / "main.go").write_text("package main\n\n// roots are ignored here\n")
    repo.index.add(["main.go"])
    repo.index.commit("second")
    # The working tree has the line at 3; the cited commit has it at 2.
    ref = f"gh:someone/tool@{first}/main.go:2 “roots are ignored”"
    assert verify(parse_citation(ref)).status == "verified"


def test_spec_citation_goes_through_the_pin(isolated: Path) -> None:
    ref = "docs/specification/2025-11-25/client/roots.mdx:144 “`-32601` (Method not found)”"
    result = verify(parse_citation(ref))
    assert result.status == "verified"
    assert result.provenance.startswith("spec @ ")
    assert result.link and result.link.endswith("roots.mdx#L144")


def test_quote_from_an_sep_open_question_is_flagged(isolated: Path) -> None:
    ref = "seps/2575-stateless-mcp.md:760 “`roots`, `logLevel`”"
    assert verify(parse_citation(ref)).open_question
    normative = "seps/2575-stateless-mcp.md:319 “Roots are intentionally not included”"
    assert not verify(parse_citation(normative)).open_question


def test_sentence_wrapped_onto_the_next_line_is_normalised_and_names_the_range(
    tools: Path,
) -> None:
    status, message, found = check("npm:fakepkg@1.0.0/doc.md:5 “here. Another filler”")
    assert (status, found) == ("verified-normalised", [5])
    assert "cite 5-6" in message


def test_backticks_only_difference_is_named(tools: Path) -> None:
    _, message, _ = check("npm:fakepkg@1.0.0/doc.md:3 “ask for roots/list first”")
    assert "backticks" in message and "emphasis" not in message


def test_emphasis_only_difference_is_named(tools: Path) -> None:
    _, message, _ = check("npm:fakepkg@1.0.0/doc.md:3 “Servers MUST ask”")
    assert "emphasis" in message and "backticks" not in message


def test_quote_on_two_adjacent_lines_is_ambiguous_not_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "node_modules" / "adj"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"version": "1.0.0"}))
    (pkg / "f.txt").write_text("zero\nsame words\nsame words\nthree\n")
    monkeypatch.setenv("MCP_COMPARE_TOOLS", str(tmp_path))
    status, _, found = check("npm:adj@1.0.0/f.txt:1 “same words”")
    assert (status, found) == ("ambiguous", [2, 3])


def test_moved_range_is_found_once_at_its_new_start(tools: Path) -> None:
    status, _, found = check("npm:fakepkg@1.0.0/doc.md:1-2 “Another filler line.\nA repeated”")
    assert (status, found) == ("moved", [6])


def test_a_package_in_a_targets_own_tree_is_read_there(tools: Path) -> None:
    """``tools/npm/<id>/node_modules``: a target with ``package.tree: own`` (its version may
    differ from the shared tree's; the citation's version picks the tree)."""
    pkg = tools / "npm" / "demo" / "node_modules" / "fakepkg"
    pkg.mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"name": "fakepkg", "version": "3.0.0"}))
    (pkg / "doc.md").write_text("Only the own tree has this line.\n")
    status, _, found = check("npm:fakepkg@3.0.0/doc.md:1 “Only the own tree has this line.”")
    assert (status, found) == ("verified", [1])
    result = verify(parse_citation("npm:fakepkg@4.0.0/doc.md:1 “Only”"))
    assert result.status == "unavailable"
    assert "1.0.0" in result.message and "3.0.0" in result.message
