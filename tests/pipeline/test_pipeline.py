"""``mcp-compare compare``: every stage skips on a second run with unchanged inputs, and runs
again when one of its inputs changed or one of its outputs was deleted or edited.

One real pipeline in a temporary folder (spec cache, schemas, the roots area, results, build
and site all moved there through the ``MCP_COMPARE_*`` variables), with the run narrowed to one real
ts-sdk cell so it stays quick; the site is built by the real ``mkdocs build --strict``. No
time is asserted: speed is measured by ``bench/warm.py``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compare import _stamp
from compare._paths import PROJECT_ROOT
from compare.pipeline import STAGES, Outcome, Selection, _stages, run_pipeline

pytestmark = pytest.mark.clients

CHANGED = "outputs changed since they were written"
CHOSEN = Selection(targets=("ts-sdk",), scenarios=("handshake",), revisions=("2025-11-25",))


class Env:
    """The temporary checkout-like folder and the lines each pipeline run printed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lines: list[str] = []
        self.first: dict[str, Outcome] = {}

    def run(self, *, force: bool = False) -> dict[str, Outcome]:
        self.lines = []
        outcomes, code = run_pipeline(jobs=1, force=force, chosen=CHOSEN, say=self.lines.append)
        assert code == 0, "\n".join(self.lines)
        return {o.stage: o for o in outcomes}

    def settle(self) -> dict[str, Outcome]:
        """Run until a run skips every stage (render reads the matrix export writes after
        it, so a run that changed the matrix renders once more on the next)."""
        for _ in range(3):
            done = self.run()
            if all(o.status == "skipped" for o in done.values()):
                return done
        raise AssertionError(f"the pipeline never settled: {self.lines}")

    @property
    def build(self) -> Path:
        return self.root / "build"


def _cell_file(env: Env, name: str) -> Path:
    """A file of the first ts-sdk handshake cell (one per variant)."""
    return sorted(env.root.glob(f"results/ts-sdk/*/handshake/2025-11-25*/{name}"))[0]


def _ran(done: dict[str, Outcome]) -> set[str]:
    return {name for name, o in done.items() if o.status == "ran"}


@pytest.fixture(scope="module")
def env(
    pinned_spec: Path, shared_spec: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Env]:
    root = tmp_path_factory.mktemp("pipeline")
    shutil.copytree(pinned_spec, root / "cache")
    shutil.copytree(PROJECT_ROOT / "schemas", root / "schemas")
    # One area: what the stamps do does not depend on how many areas there are, and with
    # every area the module's time grew with each one added.
    (root / "areas").mkdir()
    shutil.copy2(PROJECT_ROOT / "compare" / "rows" / "areas" / "roots.yaml", root / "areas")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("cache", "schemas", "areas", "results", "build", "site"):
            patch.setenv(f"MCP_COMPARE_{name.upper()}", str(root / name))
        patch.setenv("MCP_COMPARE_SPEC", str(shared_spec))
        state = Env(root)
        state.first = state.run()
        state.settle()
        yield state


def test_first_run_runs_every_stage_and_the_next_skips_them_all(env: Env) -> None:
    assert _ran(env.first) == set(STAGES)
    assert (env.root / "site" / "build" / "index.html").is_file()
    verdict = env.root / "results/ts-sdk"
    assert list(verdict.glob("*/handshake/2025-11-25*/verdict.json"))
    done = env.run()
    assert {o.status for o in done.values()} == {"skipped"}
    assert "site unchanged, not rebuilt (unchanged inputs)" in env.lines
    assert "models: skipped (unchanged inputs)" in env.lines
    assert "cite --check: skipped (unchanged inputs)" in env.lines
    for stage in STAGES:
        stamp = json.loads((env.build / "stamps" / f"{stage}.json").read_text("utf-8"))
        assert stamp["stage"] == stage and len(stamp["inputs"]) == 64


def test_an_edited_area_file_reruns_the_stages_that_read_it(env: Env) -> None:
    area = env.root / "areas" / "roots.yaml"
    original = area.read_bytes()
    area.write_bytes(original + b"\n# an edit the stamps must notice\n")
    try:
        done = env.run()
        assert {"diff", "rows", "cite", "render", "export"} <= _ran(done)
        assert done["pin"].status == done["models"].status == done["run"].status == "skipped"
        assert "diff: running (inputs changed)" in env.lines
    finally:
        area.write_bytes(original)
    env.settle()


def test_a_changed_results_file_plays_its_cell_again_and_rebuilds_the_site(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    transcript = _cell_file(env, "transcript.jsonl")
    lines = transcript.read_text("utf-8").splitlines()
    note = {"n": len(lines) + 1, "t": 9.5, "dir": "note", "raw": '{"event": "pipeline-test"}'}
    transcript.write_text("\n".join([*lines, json.dumps(note)]) + "\n", "utf-8")
    capsys.readouterr()
    done = env.run()
    # never trusted: the run stage sees its cell folder changed, the harness names the file
    assert done["run"].status == "ran" and done["run"].why.startswith(CHANGED)
    said = capsys.readouterr().err
    assert f"{transcript} was changed after it was written" in said
    assert "; playing the cell again" in said
    assert {"rows", "render", "site"} <= _ran(done)
    assert not any("site unchanged" in line for line in env.lines)
    assert "pipeline-test" not in transcript.read_text("utf-8")
    env.settle()


def test_a_deleted_or_edited_output_reruns_its_stage(env: Env) -> None:
    diff = env.build / "diff.json"
    before = diff.read_bytes()
    diff.unlink()
    done = env.run()
    assert done["diff"].status == "ran" and diff.read_bytes() == before
    assert f"diff: running ({CHANGED}: {diff})" in env.lines
    assert done["rows"].status == "skipped"  # same diff.json again: nothing downstream moved

    rows = env.build / "rows.json"
    before = rows.read_bytes()
    rows.write_bytes(before.replace(b'"format": 1', b'"format": 1, "edited": true', 1))
    assert rows.read_bytes() != before
    done = env.run()
    assert done["rows"].status == "ran" and rows.read_bytes() == before

    model = env.root / "schemas" / "models" / "rev_draft.py"
    before = model.read_bytes()
    model.write_bytes(before + b"# edited by hand\n")
    done = env.run()
    assert done["models"].status == "ran" and model.read_bytes() == before

    verdict = _cell_file(env, "verdict.json")
    verdict.unlink()
    done = env.run()
    assert done["run"].status == "ran" and verdict.is_file()
    env.settle()


def _spec_file(env: Env) -> Path:
    """A pinned schema in the verified spec cache."""
    return sorted(env.root.glob("cache/spec/*/schema/2025-06-18/schema.json"))[0]


def _flip_in_a_string(path: Path) -> None:
    """A hand-edit that keeps the JSON valid: only a hash can tell."""
    data = path.read_bytes()
    at = data.index(b'": "') + 4
    path.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :])


DAMAGED_OUTPUTS: dict[str, tuple[Callable[[Env], Path], Callable[[Path], None], str, str]] = {
    # name: (the file, the damage, the stage that must rebuild it, what it must say)
    "rows.json truncated": (
        lambda e: e.build / "rows.json",
        lambda p: p.write_bytes(p.read_bytes()[:100]),
        "rows",
        CHANGED,
    ),
    "diff.json hand-edited": (lambda e: e.build / "diff.json", _flip_in_a_string, "diff", CHANGED),
    "citations.json wrong shape": (
        lambda e: e.build / "citations.json",
        lambda p: p.write_text('{"format": 1, "citations": 3}', "utf-8"),
        "rows",
        CHANGED,
    ),
    "matrix.json deleted": (lambda e: e.build / "matrix.json", Path.unlink, "export", CHANGED),
    "rows stamp truncated": (
        lambda e: e.build / "stamps" / "rows.json",
        lambda p: p.write_bytes(p.read_bytes()[:40]),
        "rows",
        "stamp",
    ),
    "spec cache entry byte-flipped": (_spec_file, _flip_in_a_string, "pin", CHANGED),
}


@pytest.mark.parametrize("case", sorted(DAMAGED_OUTPUTS))
def test_a_damaged_output_is_named_and_rebuilt_byte_for_byte(
    env: Env, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    locate, damage, stage, says = DAMAGED_OUTPUTS[case]
    path = locate(env)
    original = path.read_bytes()
    damage(path)
    capsys.readouterr()
    done = env.run()
    assert done[stage].status == "ran", env.lines
    why = done[stage].why
    if says == "stamp":
        assert why.startswith(f"stamp {path} is damaged: "), why
    else:
        named = path if stage != "pin" else path.parents[len(path.relative_to(env.root).parts) - 3]
        assert why == f"{says}: {named}", why
    if stage == "pin":  # the pin stage says which cached file it replaced, and why
        said = "".join(capsys.readouterr())
        assert f"cached {path.relative_to(path.parents[2]).as_posix()} was altered" in said
    assert path.read_bytes() == original  # a stamp too: same inputs, same output bytes
    env.settle()


def test_site_is_not_rebuilt_when_render_changes_no_page(env: Env) -> None:
    _stamp.clear("render")
    done = env.run()
    assert done["render"].status == "ran" and done["render"].why == "no stamp"
    assert done["site"].status == "skipped"
    assert "site unchanged, not rebuilt (unchanged inputs)" in env.lines


def test_force_runs_every_stage(env: Env) -> None:
    done = env.run(force=True)
    assert _ran(done) == set(STAGES)
    assert all(o.why == "--force" for o in done.values())
    env.settle()


def test_replay_plays_every_selected_cell_again(env: Env) -> None:
    """``compare --replay`` runs the run stage with ``--force``: the cell's verdict is written
    by a new play (its start time moves on), not taken from the cache."""
    env.settle()
    verdict = _cell_file(env, "verdict.json")
    before = json.loads(verdict.read_text("utf-8"))["started_at"]
    replayed = Selection(CHOSEN.targets, CHOSEN.scenarios, CHOSEN.revisions, replay=True)
    lines: list[str] = []
    outcomes, code = run_pipeline(jobs=1, chosen=replayed, say=lines.append)
    assert code == 0, "\n".join(lines)
    done = {o.stage: o for o in outcomes}
    assert done["run"].status == "ran" and done["run"].why == "--replay"
    assert done["pin"].status == "skipped"
    assert json.loads(verdict.read_text("utf-8"))["started_at"] != before


def test_a_failing_stage_stops_the_pipeline_with_its_exit_code(
    env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cite --check`` on an area file with a misquoted citation exits 1; the stages after
    it do not run and its stamp is not written (the next run checks again)."""
    area = (env.root / "areas" / "roots.yaml").read_text("utf-8")
    start = area.index("docs/specification/")
    open_quote = area.index("“", start)
    close_quote = area.index("”", open_quote)
    bad = env.root / "bad-area.yaml"
    bad.write_text(
        area[: open_quote + 1] + "words that the cited line never says at all" + area[close_quote:],
        "utf-8",
    )
    real = _stages.stages(1, CHOSEN)
    cite = next(s for s in real if s.name == "cite")
    from compare.cite.cli import cite as cite_stage

    failing = _stages.Stage(
        "cite",
        "cite --check",
        lambda: cite_stage(check=True, area=[bad]),
        cite.inputs,
        cite.outputs,
    )
    after = next(s for s in real if s.name == "export")
    monkeypatch.setattr(_stages, "stages", lambda jobs, chosen=None: [failing, after])
    lines: list[str] = []
    outcomes, code = run_pipeline(jobs=1, force=True, chosen=CHOSEN, say=lines.append)
    assert code == 1
    assert [(o.stage, o.status, o.exit_code) for o in outcomes] == [("cite", "failed", 1)]
    assert not _stamp.stamp_file("cite").exists()
    monkeypatch.undo()
    env.settle()


def test_a_run_that_began_with_every_cell_current_keeps_the_run_stage_skippable(
    env: Env,
) -> None:
    """``mcp-compare run`` of a few cells after a whole-matrix check: every cell is still
    current afterwards, so the next compare publishes without checking them all again; a run
    that began without that check leaves nothing recorded."""
    from compare import _paths
    from compare.exchange import cli
    from compare.pipeline import _inputs

    whole = _inputs.run_inputs(())
    try:
        _stamp.record("run", whole, [_paths.results_dir()])  # as a whole-matrix run leaves it
        before = _cell_file(env, "verdict.json").read_bytes()
        assert cli.run(["ts-sdk"], ["handshake"], ["2025-11-25"], force=True) == 0
        assert _cell_file(env, "verdict.json").read_bytes() != before  # played again
        _stamp.forget()
        assert _stamp.why_stale("run", whole) is None
        _stamp.clear("run")
        assert cli.run(["ts-sdk"], ["handshake"], ["2025-11-25"], force=True) == 0
        _stamp.forget()
        assert _stamp.why_stale("run", whole) == "no stamp"
    finally:
        _stamp.clear("run")
        env.settle()
