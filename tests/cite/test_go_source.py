"""``go:`` citations read the module folder a built host's ``build.json`` names, version checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare.cite import go_link, parse_citation, verify

MODULE = "github.com/example/mcp"


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tools folder whose one Go host was built with MODULE v1.2.0, and that module's folder."""
    folder = tmp_path / "modcache" / f"{MODULE}@v1.2.0"
    (folder / "client").mkdir(parents=True)
    (folder / "client" / "roots.go").write_text(
        "package client\n\n// RootsHandler answers roots/list for the application.\n"
    )
    record = {"target": "demo", "module": MODULE, "version": "v1.2.0", "dir": str(folder)}
    tools = tmp_path / "tools"
    (tools / "hosts" / "demo").mkdir(parents=True)
    (tools / "hosts" / "demo" / "build.json").write_text(json.dumps(record))
    monkeypatch.setenv("MCP_COMPARE_TOOLS", str(tools))
    return folder


def test_quote_in_the_built_modules_source_is_verified(module: Path) -> None:
    result = verify(parse_citation(f"go:{MODULE}@v1.2.0/client/roots.go:3 “answers roots/list”"))
    assert result.status == "verified", result.message
    assert result.offline
    assert "demo host" in (result.provenance or "")


def test_another_version_than_the_built_one_is_unavailable(module: Path) -> None:
    result = verify(parse_citation(f"go:{MODULE}@v1.3.0/client/roots.go:3 “answers”"))
    assert result.status == "unavailable"
    assert "v1.2.0" in result.message and "v1.3.0" in result.message


def test_a_module_no_host_was_built_with_says_to_install(module: Path) -> None:
    result = verify(parse_citation("go:example.com/other@v1.0.0/a.go:1 “x y z”"))
    assert result.status == "unavailable"
    assert "tools install" in result.message


def test_a_module_folder_gone_from_the_cache_is_unavailable(module: Path) -> None:
    (module / "client" / "roots.go").unlink()
    (module / "client").rmdir()
    module.rmdir()
    result = verify(parse_citation(f"go:{MODULE}@v1.2.0/client/roots.go:3 “answers”"))
    assert result.status == "unavailable" and "module cache" in result.message


def test_a_path_leaving_the_module_is_refused(module: Path) -> None:
    result = verify(parse_citation(f"go:{MODULE}@v1.2.0/../../x.go:1 “package”"))
    assert result.status == "unavailable" and "leaves the package" in result.message


def test_links_point_at_the_tag_on_github_or_at_the_package_page() -> None:
    assert go_link(MODULE, "v1.2.0", "a.go", 3, 5) == (
        "https://github.com/example/mcp/blob/v1.2.0/a.go#L3-L5"
    )
    assert go_link("golang.org/x/sync", "v0.20.0", "a.go", 3, 3) == (
        "https://pkg.go.dev/golang.org/x/sync@v0.20.0"
    )
