"""``maven:G:A@VER/path`` citations: parsed, and read from a sources jar in the local repository."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.cite import parse_citation, verify

REF = "maven:org.example.sdk:sdk-core@1.2.3/org/example/Versions.java"


@pytest.fixture
def m2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local repository holding org.example.sdk:sdk-core:1.2.3's sources jar."""
    repo = tmp_path / "m2"
    folder = repo / "org" / "example" / "sdk" / "sdk-core" / "1.2.3"
    folder.mkdir(parents=True)
    with zipfile.ZipFile(folder / "sdk-core-1.2.3-sources.jar", "w") as jar:
        text = 'package org.example;\n\ninterface Versions {\n\tString LATEST = "2025-11-25";\n}\n'
        jar.writestr("org/example/Versions.java", text)
    monkeypatch.setenv("MCP_COMPARE_M2_REPO", str(repo))
    return repo


def test_parse_names_group_artifact_version_and_path() -> None:
    cit = parse_citation(f'{REF}:4 “String LATEST = "2025-11-25";”')
    assert (cit.kind, cit.package, cit.version) == ("maven", "org.example.sdk:sdk-core", "1.2.3")
    assert cit.path == "org/example/Versions.java"
    assert cit.location == f"{REF}:4"


@pytest.mark.parametrize(
    "source",
    ["maven:sdk-core@1.2.3/x/Y.java", "maven:a:b:c@1/x/Y.java", "maven:a:b@1/../Y.java"],
)
def test_malformed_maven_sources_are_refused(source: str) -> None:
    with pytest.raises(CompareError):
        parse_citation(f"{source}:1 “some words here”")


def test_a_quote_in_the_sources_jar_verifies(m2: Path) -> None:
    result = verify(parse_citation(f'{REF}:4 “String LATEST = "2025-11-25";”'))
    assert result.status == "verified", result.message
    assert "sources jar" in (result.provenance or "")


def test_a_wrong_quote_is_a_mismatch(m2: Path) -> None:
    result = verify(parse_citation(f'{REF}:4 “String LATEST = "2026-07-28";”'))
    assert result.status == "mismatch"


def test_a_file_missing_from_the_jar_is_unavailable_and_offline(m2: Path) -> None:
    result = verify(parse_citation(f"{REF.replace('Versions', 'Other')}:1 “some words here”"))
    assert result.status == "unavailable" and result.offline
    assert "not in sdk-core-1.2.3-sources.jar" in result.message


def test_a_version_without_a_sources_jar_is_unavailable_not_offline(m2: Path) -> None:
    result = verify(parse_citation(f"{REF.replace('1.2.3', '1.2.4')}:4 “some words here”"))
    assert result.status == "unavailable" and not result.offline
    assert "sdk-core-1.2.4-sources.jar" in result.message
