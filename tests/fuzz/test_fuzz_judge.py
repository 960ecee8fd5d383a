"""The judge on random and mutated transcripts, for every scenario (client, server, proxy).

Seeds are real cells (``seeds/<scenario>/``: the transcript, the plan and the process facts
the harness recorded, copied from a results tree); hypothesis drops, duplicates, swaps and
rewrites their lines, or writes transcripts from nothing. Whatever the file holds, the judge
must return: every check graded with an outcome its scenario declares (or ``error`` with a
"not run, because …" reason that is not a crashed rule), a cell verdict from the documented
vocabulary, and a verdict that can be written as UTF-8 JSON.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions
from _strategies import (
    EXAMPLES,
    REACHED,
    any_text,
    deep,
    encode,
    hostile_text,
    json_values,
    raw_texts,
    wire_values,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from compare.exchange._scenarios import Scenario, common_checks, load_scenarios
from compare.judge._judge import judge_checks, overall
from compare.judge._uri import OUTCOMES as URI_OUTCOMES
from compare.judge._uri import judge_file_uri
from compare.judge._validate import NotJudged, validate_as, validate_line
from compare.judge._verdicts import VERDICTS
from compare.site._cells import Cell, initialize_sent
from compare.site._cells import read_transcript as site_transcript
from compare.site._escape import fence
from compare.site._render import _wire_line, pretty_json

SEEDS = Path(__file__).resolve().parent / "seeds"
NOTE_EVENTS = (
    "start",
    "step",
    "step-done",
    "done",
    "exit",
    "signal",
    "stdin-closed",
    "write-failed",
    "lines-not-stored",
    "probe-skipped",
    "fixture-before",
    "fixture-after",
    "server-started",
    "server-exit",
    "legs",
    "after-steps",
)


class Seed:
    """One real cell: what the harness recorded and judged (a plain class, so a failure
    report names the seed instead of printing its whole content)."""

    def __init__(
        self,
        scenario: Scenario,
        plan: dict[str, Any],
        process: dict[str, Any],
        records: list[dict[str, Any]],
    ) -> None:
        self.scenario, self.plan, self.process, self.records = scenario, plan, process, records

    def __repr__(self) -> str:
        return f"Seed({self.scenario.id})"


@pytest.fixture(scope="module")
def seeds(pinned_spec: Path) -> Iterator[list[Seed]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        by_id = {s.id: s for s in load_scenarios()}
        out = []
        for folder in sorted(p for p in SEEDS.iterdir() if p.is_dir()):
            cell = json.loads((folder / "cell.json").read_text(encoding="utf-8"))
            lines = (folder / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
            out.append(
                Seed(
                    by_id[folder.name],
                    json.loads((folder / "plan.json").read_text(encoding="utf-8")),
                    cell["process"],
                    [json.loads(line) for line in lines],
                )
            )
        yield out


@pytest.fixture(scope="module")
def cell() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="fuzz-judge-") as folder:
        yield Path(folder)


def test_every_scenario_has_a_seed(seeds: list[Seed], pinned_spec: Path) -> None:
    """A new scenario gets a real seed too (copy one of its cells into seeds/<id>/)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
        assert {s.scenario.id for s in seeds} == {s.id for s in load_scenarios()}
    assert {s.scenario.side for s in seeds} == {"client", "server", "proxy"}


def judge(seed: Seed, cell: Path, lines: list[bytes], process: Any) -> None:
    """Judge ``lines`` as the cell's transcript and assert the documented shape of the result."""
    (cell / "transcript.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    checks, facts = judge_checks(seed.scenario, cell, seed.plan, revisions(), process)
    verdict, reason = overall(checks, process or {})
    assert verdict in VERDICTS and isinstance(reason, str)
    declared = {c.id: c for c in [*seed.scenario.checks, *common_checks(seed.scenario.side)]}
    for check in checks:
        assert check["verdict"] in VERDICTS, check
        REACHED.add((seed.scenario.id, check["id"], check["outcome"] or check["verdict"]))
        if check["outcome"] is None:
            assert check["verdict"] == "error" and check["reason"].startswith("not run, because")
            assert "failed:" not in check["reason"], f"a rule crashed: {check['reason']}"
        else:
            assert check["outcome"] in declared[check["id"]].outcomes, check
    # What the harness then writes (verdict.json) must be writable.
    json.dumps([checks, facts, reason], ensure_ascii=False).encode("utf-8")
    # The site reads the same file for the cell page's wire log and the sent initialize.
    page = Cell("t/1/s/r", cell, "t", "1", "", seed.scenario.id, "r", verdict, reason, [], {})
    wire = site_transcript(page)
    fence([_wire_line(line) for line in wire.lines]).encode("utf-8")
    sent = initialize_sent(page)
    if sent is not None:
        fence(pretty_json(sent).splitlines(), "json").encode("utf-8")


def _record(draw: st.DrawFn, n: int) -> dict[str, Any]:
    direction = draw(st.sampled_from(["in", "out", "note", "in", "out"]))
    if direction == "note":
        note = draw(
            st.fixed_dictionaries(
                {"event": st.sampled_from(NOTE_EVENTS)},
                optional={
                    "index": st.one_of(st.integers(-1, 5), json_values),
                    "label": st.one_of(st.sampled_from(["roots", "initialized", "#1"]), any_text),
                    "step": st.one_of(
                        st.fixed_dictionaries({"request": st.just("roots/list")}), json_values
                    ),
                    "outcome": json_values,
                    "id": json_values,
                    "evidence": st.one_of(st.integers(0, 30), json_values),
                    "n": st.one_of(st.integers(0, 30), json_values),
                    "reason": json_values,
                    "count": json_values,
                },
            )
        )
        raw: Any = json.dumps(note)
    else:
        raw = draw(raw_texts)
    record: dict[str, Any] = {"n": n, "t": n / 100, "dir": direction, "raw": raw}
    if draw(st.booleans()):
        record["leg"] = draw(st.one_of(st.sampled_from(["host", "upstream"]), json_values))
        record["conn"] = draw(st.one_of(st.integers(0, 3), json_values))
    return record


def _line(draw: st.DrawFn, record: dict[str, Any]) -> bytes:
    return encode(json.dumps(record, ensure_ascii=draw(st.booleans())))


def _mutate(draw: st.DrawFn, records: list[dict[str, Any]]) -> list[bytes]:
    lines: list[Any] = [dict(r) for r in records]
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(
            st.sampled_from(
                ["drop", "dup", "swap", "raw", "edit", "poison", "field", "bytes", "insert"]
            )
        )
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            kind = "insert"
        sent = [j for j, x in enumerate(lines) if isinstance(x, dict) and x.get("dir") == "in"]
        if kind == "poison" and sent:  # what a client sent is what reaches the facts
            i = draw(st.sampled_from(sent))
        if kind == "drop":
            del lines[i]
        elif kind == "dup":
            lines.insert(draw(st.integers(0, len(lines))), lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "insert":
            lines.insert(i, _record(draw, draw(st.integers(0, 40))))
        elif kind == "bytes":
            lines[i] = draw(st.binary(max_size=40))
        elif isinstance(lines[i], dict):
            rec = dict(lines[i])
            if kind == "raw":
                rec["raw"] = draw(raw_texts)
            elif kind == "field":
                key = draw(st.sampled_from(["n", "t", "dir", "raw", "leg", "conn", "truncated"]))
                rec[key] = draw(st.one_of(extremes, json_values))
                if key == "parse_error" or draw(st.booleans()):
                    rec.pop(draw(st.sampled_from(["leg", "conn", "parse_error"])), None)
            elif kind == "poison":
                rec["raw"] = _poison(draw, rec.get("raw"))
            else:
                rec["raw"] = _edit_raw(draw, rec.get("raw"))
            lines[i] = rec
    return [line if isinstance(line, bytes) else _line(draw, line) for line in lines]


def _edit_raw(draw: st.DrawFn, raw: Any) -> Any:
    """Replace one value somewhere inside the line's JSON (or the whole line)."""
    try:
        value = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        # RecursionError: an earlier edit nested the line deeper than the JSON reader follows
        # at this stack depth (it passed alone, failed inside a longer session); the judge reads
        # such a line as unparseable, and so does this mutator.
        return draw(raw_texts)
    holder, key = None, None
    node = value
    for _ in range(draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            holder, key = node, draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            holder, key = node, draw(st.integers(0, len(node) - 1))
        else:
            break
        node = holder[key]
    if holder is None:
        return json.dumps(draw(wire_values))
    if isinstance(holder, dict) and draw(st.booleans()):
        del holder[key]
    else:
        holder[key] = draw(json_values)
    return _dumps_or(draw, value, raw)


def _poison(draw: st.DrawFn, raw: Any) -> Any:
    """Replace one string inside the line's JSON (a value or a key) with hostile text."""
    try:
        value = json.loads(raw)
    except (TypeError, ValueError, RecursionError):
        # RecursionError: an earlier "raw" edit in the same draw may have put a line nested
        # deeper than the JSON reader follows (deep(1500) and up); there is no string to poison.
        return raw
    spots: list[tuple[Any, Any, bool]] = []  # (container, key or index, is a key)
    # A stack, not recursion: a line the reader did take can still be hundreds of levels deep.
    stack = [value] if isinstance(value, dict | list) else []
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in list(items):
            if isinstance(node, dict):
                spots.append((node, key, True))
            if isinstance(child, str):
                spots.append((node, key, False))
            elif isinstance(child, dict | list):
                stack.append(child)
    if not spots:
        return raw
    holder, key, is_key = draw(st.sampled_from(spots))
    text = draw(hostile_text)
    if is_key:
        holder[text] = holder.pop(key)
    else:
        holder[key] = text
    return _dumps_or(draw, value, raw)


def _dumps_or(draw: st.DrawFn, value: Any, fallback: Any) -> Any:
    """``value`` as JSON text, or ``fallback`` when it is nested deeper than the writer follows
    at this stack depth (the reader took it with fewer frames above it)."""
    try:
        return json.dumps(value, ensure_ascii=draw(st.booleans()))
    except RecursionError:
        return fallback


#: Numbers at the edges of what JSON, Python ints and floats hold.
extremes = st.sampled_from(
    [10**400, -(10**400), 2**63, -1, 0, float("nan"), float("inf"), 1e308, True, None]
)

processes = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "ended_by": st.one_of(st.sampled_from(["self", "harness", "timeout"]), json_values),
            "exit_code": st.one_of(st.sampled_from([0, 1, None, -9]), json_values),
            "timeout_s": st.one_of(st.just(40.0), json_values),
            "sigkill": json_values,
            "leftover_killed": json_values,
            "setup_failed": json_values,
            "ends": st.sampled_from(["self", "harness"]),
        },
    ),
)


@settings(max_examples=900)
@given(data=st.data())
def test_judge_survives_mutated_real_transcripts(
    seeds: list[Seed], cell: Path, data: st.DataObject
) -> None:
    EXAMPLES["judge: mutated real transcripts"] += 1
    seed = data.draw(st.sampled_from(seeds), label="seed")
    lines = data.draw(st.composite(lambda draw: _mutate(draw, seed.records))(), label="lines")
    process = data.draw(st.one_of(st.just(seed.process), processes), label="process")
    judge(seed, cell, lines, process)


@settings(max_examples=250)
@given(data=st.data())
def test_judge_survives_random_transcripts(
    seeds: list[Seed], cell: Path, data: st.DataObject
) -> None:
    EXAMPLES["judge: random transcripts"] += 1
    seed = data.draw(st.sampled_from(seeds), label="seed")
    count = data.draw(st.integers(0, 12), label="count")
    lines = [
        data.draw(
            st.one_of(
                st.composite(lambda draw, n=n: _line(draw, _record(draw, n)))(),
                st.binary(max_size=30),
            )
        )
        for n in range(1, count + 1)
    ]
    judge(seed, cell, lines, data.draw(processes, label="process"))


#: The definitions the rules validate client values against (``validate_as`` calls).
DEFINITIONS = ("ListRootsResult",)
WORKSPACE = "/tmp/mcpc-x/web #staging é"
uri_parts = st.sampled_from(
    [
        *("file://", "file:///", "file://localhost/", "file:", "FILE://", "http://", "//", "/"),
        *("./", "tmp/mcpc-x/", "web", "%20", " ", "#", "%23", "staging", "é", "%C3%A9", "%c3%a9"),
        *("%", "%zz", "%E9", "?q=1", "\\", "..", "\x00", "\ud800", "%00", "%2F", "@", ":"),
    ]
)


@settings(max_examples=600)
@given(st.one_of(st.lists(uri_parts, max_size=10).map("".join), any_text))
def test_root_uri_judgement_names_a_known_outcome(uri: str) -> None:
    EXAMPLES["judge: root URIs"] += 1
    outcome, why = judge_file_uri(uri, WORKSPACE)
    assert outcome in URI_OUTCOMES and isinstance(why, str)


@settings(max_examples=400)
@given(raw_texts, st.sampled_from(revisions()))
def test_model_validation_of_any_line_reports_not_raises(raw: str, revision: str) -> None:
    # Rules validate what the client sent against the revision's generated models.
    EXAMPLES["judge: model validation of a line"] += 1
    try:
        ok, errors = validate_line(raw, revision)
    except NotJudged as err:  # the documented "not run, because …"
        assert str(err).startswith("not run, because")
        return
    assert isinstance(ok, bool) and all(isinstance(e, str) for e in errors)


@settings(max_examples=300)
@given(json_values, st.sampled_from(revisions()), st.sampled_from(DEFINITIONS))
def test_model_validation_of_any_value_reports_not_raises(
    value: Any, revision: str, definition: str
) -> None:
    EXAMPLES["judge: model validation of a value"] += 1
    try:
        ok, errors = validate_as(value, definition, revision)
    except NotJudged as err:
        assert str(err).startswith("not run, because")
        return
    assert isinstance(ok, bool) and all(isinstance(e, str) for e in errors)


@settings(max_examples=20)
@given(data=st.data(), depth=st.sampled_from([1500, 20_000]))
def test_the_mutators_take_a_line_deeper_than_the_reader_follows(
    data: st.DataObject, depth: int
) -> None:
    """CI found _poison raising on such a line (an earlier edit in the same draw had put it
    there); both mutators must hand back some line instead."""
    raw = deep(depth)
    assert _poison(data.draw, raw) == raw
    assert isinstance(_edit_raw(data.draw, raw), str)
