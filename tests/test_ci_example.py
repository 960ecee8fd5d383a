"""The example CI workflow a maintainer copies (issue 11) parses, and its shard matrix and its
``--shard I/N`` lines agree: shards 1 … N, each run line with the same N, and a merge job
that merges every shard's artifact before building the site."""

from __future__ import annotations

import re
from typing import Any

from compare._paths import PROJECT_ROOT
from compare._yaml import parse_yaml

EXAMPLE = PROJECT_ROOT / "ci" / "compare-shards.example.yml"


def _runs(job: dict[str, Any]) -> list[str]:
    return [str(step["run"]) for step in job["steps"] if "run" in step]


def test_the_example_workflow_covers_every_shard_once_and_merges_them() -> None:
    flow = parse_yaml(EXAMPLE.read_text(encoding="utf-8"), EXAMPLE)
    assert "on" in flow and set(flow["jobs"]) == {"shard", "merge"}
    shard, merge = flow["jobs"]["shard"], flow["jobs"]["merge"]
    shards = list(shard["strategy"]["matrix"]["shard"])
    count = len(shards)
    assert count >= 2 and shards == list(range(1, count + 1))
    lines = [line for run in _runs(shard) for line in run.splitlines() if "--shard" in line]
    assert lines, "no run line with --shard"
    for line in lines:
        found = re.search(r"--shard \$\{\{ matrix\.shard \}\}/(\d+)\b", line)
        assert found and int(found.group(1)) == count, line
    assert merge["needs"] == "shard"
    merged = "\n".join(_runs(merge))
    expected = re.search(r'"\$found" -ne (\d+)', merged)
    assert expected and int(expected.group(1)) == count  # every shard's results, or no merge
    assert re.search(r"mcp-compare merge shards/results-shard-\* --into results", merged)
    order = ["merge", "rows", "cite --check", "render", "export", "site"]
    places = [merged.index(f"mcp-compare {name}") for name in order]
    assert places == sorted(places), merged
    uploads = [s for s in merge["steps"] if str(s.get("uses", "")).startswith("actions/upload")]
    assert any(u["with"]["path"].rstrip("/") == "site/build" for u in uploads)
    upload = next(s for s in shard["steps"] if str(s.get("uses", "")).startswith("actions/up"))
    assert upload["with"]["name"] == "results-shard-${{ matrix.shard }}"
