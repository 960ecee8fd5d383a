"""The C++ SDK column (issue 23): yurirocha15/mcp-cpp-sdk is on no registry these machines
reach, so it is a cited column like mcpx, its cells resting on quotes of its source read
through the search tool. These tests hold it to what the mcpx column is held to (declared
once, cited at full commits of its own repository) and to what its brief adds: the client's
behaviour cited at one commit, offline "not verified: source unavailable" and never verified,
and the rows its source does not decide left as "not known", never guessed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from compare._yaml import load_yaml
from compare.rows import area_files, compute, gather
from compare.rows._implementations import load_registry

REPO = "yurirocha15/mcp-cpp-sdk"
REF = re.compile(
    rf"^gh:{re.escape(REPO)}@(?P<commit>[0-9a-f]{{40}})/(?P<path>[^:]+):\d+(-\d+)? “.+”$"
)
#: The client rows whose state the cited source decides.
CITED_ROWS = {"ROOT-01", "ROOT-02", "ROOT-03", "ROOT-06", "ROOT-07", "ROOT-08"}


def _roots() -> dict[str, Any]:
    (path,) = [p for p in area_files() if p.name == "roots.yaml"]
    area = load_yaml(path)
    assert isinstance(area, dict)
    return area


def _cells() -> dict[str, dict[str, Any]]:
    return {
        row["id"]: row["status"]["cited"]["cpp-sdk"]
        for row in _roots()["rows"]
        if "cpp-sdk" in ((row.get("status") or {}).get("cited") or {})
    }


def _refs(cell: dict[str, Any]) -> list[str]:
    return [s if isinstance(s, str) else s["cite"] for s in cell["sources"]]


def test_the_cpp_sdk_is_one_cited_column_of_its_own_repository() -> None:
    registry = load_registry()
    entry = registry.by_id["cpp-sdk"]
    assert (entry.kind, entry.repository) == ("cited", REPO)
    assert "registry" in entry.why_not_run
    assert "cpp-sdk" in _roots()["implementations"]
    from compare.exchange._targets import load_targets

    assert "cpp-sdk" not in {t.id for t in load_targets()}  # cited only, never run


def test_its_client_rows_are_cited_and_its_client_at_one_commit() -> None:
    cells = _cells()
    assert set(cells) == CITED_ROWS
    client_commits: set[str] = set()
    for rid, cell in cells.items():
        gh = [r for r in _refs(cell) if r.startswith("gh:")]
        assert gh, rid
        for ref in gh:
            m = REF.match(ref)
            assert m, ref
            if m["path"].startswith("src/client/"):
                client_commits.add(m["commit"])
        # Each state rests on the client's own code, not on its documentation alone.
        assert any("/src/client/client.cpp:" in r for r in gh), rid
    assert len(client_commits) == 1, client_commits


def test_the_row_its_source_does_not_decide_says_so() -> None:
    cell = _cells()["ROOT-06"]
    assert cell["state"] == "unknown"
    assert "not known from source" in cell["note"].lower()
    # What its own documentation's example declares is quoted, not paraphrased.
    assert any("examples/features/roots.cpp" in r and "mcp://docs/" in r for r in _refs(cell))


def test_offline_its_cells_are_cited_unverified_and_rows_it_lacks_unknown(
    isolated: Path,
) -> None:
    from .test_real_area import _real_diff

    _real_diff()
    doc = compute(area_files(), gather(), isolated / "results")
    (roots,) = [a for a in doc["areas"] if a["area"] == "roots"]
    rows = {r["id"]: r for r in roots["rows"]}
    for rid in CITED_ROWS:
        column = rows[rid]["status"]["cpp-sdk"]
        assert column["state"] == "cited", rid
        assert column["cited_state"] == _cells()[rid]["state"], rid
        assert column["reason"].startswith("not run, because it is a C++20 library"), rid
        for source in column["sources"]:
            if source["ref"].startswith("gh:"):
                # No clone here: reported as unavailable, never counted as verified.
                assert source["status"] == "unavailable", source
                assert source["link"].startswith(f"https://github.com/{REPO}/blob/"), source
    server_row = rows["ROOT-09"]["status"]["cpp-sdk"]
    assert (server_row["state"], server_row["cited_state"]) == ("cited", "unknown")
    assert server_row["reason"].endswith("no citation for this row")
