"""The composite action (``action.yml``) a user's CI job runs, and the README's job that uses
it: no input is spliced into a shell line (each reaches the script through the environment),
actionlint accepts the README's workflow, and the action's own check script, run by bash as
the runner would, checks a real server and writes the step summary and output."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from compare._paths import PROJECT_ROOT
from compare._yaml import parse_yaml

ACTION = PROJECT_ROOT / "action.yml"
README = PROJECT_ROOT / "README.md"
ACTIONLINT = PROJECT_ROOT / "tools" / "bin" / "actionlint"


def action() -> dict[str, object]:
    data = parse_yaml(ACTION.read_text(encoding="utf-8"), ACTION)
    assert isinstance(data, dict)
    return data


def check_step() -> dict[str, object]:
    runs = action()["runs"]
    assert isinstance(runs, dict) and runs["using"] == "composite"
    return next(s for s in runs["steps"] if s.get("id") == "check")


def test_no_input_is_spliced_into_a_shell_line() -> None:
    runs = action()["runs"]
    assert isinstance(runs, dict)
    for step in runs["steps"]:
        assert "${{" not in str(step.get("run", "")), step.get("name")
    env = check_step()["env"]
    assert isinstance(env, dict)
    inputs = action()["inputs"]
    assert isinstance(inputs, dict)
    used = {m for v in env.values() for m in re.findall(r"inputs\.([a-z-]+)", str(v))}
    assert used == set(inputs) - {"artifact"}  # every input but the artifact's name


def test_the_readme_job_passes_actionlint(tmp_path: Path) -> None:
    if not ACTIONLINT.exists():
        pytest.skip(f"not run, because actionlint is not built at {ACTIONLINT} (make actionlint)")
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(jobs:.*?)```", text, re.S)
    assert block, "the README shows no job using the action"
    flow = tmp_path / ".github" / "workflows" / "check.yml"
    flow.parent.mkdir(parents=True)
    flow.write_text("on: push\n" + block.group(1), encoding="utf-8")
    done = subprocess.run(
        [str(ACTIONLINT), "-no-color", str(flow)], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.clients
def test_the_action_script_checks_a_real_client_handed_a_url(isolated: Path) -> None:
    """The action's script as a job runs it, on a real client the project ships no column
    for (mcp-remote's own client, from npm), handed our server's URL: the client side of the
    script, and a client over Streamable HTTP, at once (test_check_real checks a server)."""
    out, summary, outputs = isolated / "out", isolated / "summary.md", isolated / "outputs"
    env = dict(os.environ)
    env.update(
        MCPC_SERVER="",
        MCPC_CLIENT="{node_bin:mcp-remote-client} {url}",
        MCPC_NAME="mcp-remote client",
        MCPC_AREAS="",
        MCPC_OPTIONS="--scenario handshake --revision 2025-06-18 --jobs 1",
        MCPC_FAIL_ON="fail",
        MCPC_OUT=str(out),
        MCPC_BIN=str(PROJECT_ROOT / ".venv" / "bin" / "mcp-compare"),
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_OUTPUT=str(outputs),
    )
    script = str(check_step()["run"])
    # as a composite step's bash runs it: bash --noprofile --norc -eo pipefail
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs.read_text(encoding="utf-8") == f"report={out}\n"
    shown = summary.read_text(encoding="utf-8")
    assert shown.startswith("```\ncheck: mcp-remote client (client), 1 cells")
    assert "result: PASS (--fail-on fail)" in shown
    assert {p.name for p in out.iterdir()} >= {"report.html", "report.json", "junit.xml"}
    # our server was reached at its URL: the client opened a session there and initialized
    (cell,) = (out / "results").glob("*/*/handshake/2025-06-18")
    assert json.loads((cell / "done.json").read_text(encoding="utf-8"))["sessions"] >= 1
    lines = (cell / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    got = [json.loads(json.loads(x)["raw"]) for x in lines if json.loads(x)["dir"] == "in"]
    assert any(m.get("method") == "initialize" for m in got)
