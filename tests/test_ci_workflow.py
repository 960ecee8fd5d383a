"""The repository's GitHub Actions workflow (issue 37) parses, actionlint accepts it, and its
shard matrix and its ``--shard I/N`` lines agree: shards 1 … N, each run line with the same
N, a merge job that merges every shard's artifact before building the site, and a publish
job that deploys what the merge job built."""

from __future__ import annotations

import re
from typing import Any

from compare._paths import PROJECT_ROOT
from compare._yaml import parse_yaml

WORKFLOW = PROJECT_ROOT / ".github" / "workflows" / "compare.yml"
#: Installed by the project (``make actionlint``, part of ``make test``'s preparation).
ACTIONLINT = PROJECT_ROOT / "tools" / "bin" / "actionlint"


def _runs(job: dict[str, Any]) -> list[str]:
    return [str(step["run"]) for step in job["steps"] if "run" in step]


def test_the_workflow_covers_every_shard_once_merges_them_and_publishes() -> None:
    flow = parse_yaml(WORKFLOW.read_text(encoding="utf-8"), WORKFLOW)
    assert "on" in flow and set(flow["jobs"]) == {"shard", "merge", "publish"}
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
    pages = [s for s in merge["steps"] if str(s.get("uses", "")).startswith("actions/upload-pages")]
    assert [p["with"]["path"].rstrip("/") for p in pages] == ["site/build"]
    publish = flow["jobs"]["publish"]
    assert publish["needs"] == "merge"
    assert publish["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"].split("@")[0] for s in publish["steps"]] == ["actions/deploy-pages"]
    order = ["merge", "rows", "cite --check", "render", "export", "site"]
    places = [merged.index(f"mcp-compare {name}") for name in order]
    assert places == sorted(places), merged
    uploads = [s for s in merge["steps"] if str(s.get("uses", "")).startswith("actions/upload")]
    assert any(u["with"]["path"].rstrip("/") == "site/build" for u in uploads)
    upload = next(s for s in shard["steps"] if str(s.get("uses", "")).startswith("actions/up"))
    assert upload["with"]["name"] == "results-shard-${{ matrix.shard }}"


def test_actionlint_accepts_the_workflow() -> None:
    """actionlint (installed by the project, never by hand) finds nothing in the workflow:
    its expressions, job graph, action inputs and shell lines."""
    import subprocess

    if not ACTIONLINT.exists():
        import pytest

        pytest.fail(f"{ACTIONLINT} is missing: run `make actionlint` (make test does)")
    done = subprocess.run(
        [str(ACTIONLINT), "-no-color", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
