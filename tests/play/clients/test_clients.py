"""The CLI clients people run — Claude Code and opencode (each in its health check and with
a model), Gemini CLI (health check and prompt mode), Codex, gptme, Qwen Code and Apify's mcpc —
played through the harness at the versions the target files pin, in their smoke scenarios
(``smoke_scenarios``): the handshake and the version window (left out for a CLI's model mode)
at the first and the last revision of the handshake era and every revision after it (not
played, each cell saying why), and the roots pair at the first revision of the era.

Two kinds of test live here. Invariants hold whatever a client does: every planned cell has a
verdict and its files, not-run cells say why, the judged outcomes agree with the raw lines, a
revision the client refuses is never a failure, nothing outlives the run. What each client was
measured to do (its clientInfo, the version it asks for, its roots capability, the revisions
it refuses, its answers, every cell's verdict) is data in ``tests/golden/cli_clients.json`` and
``tests/golden/cli_verdicts.json``: a new client version that behaves differently fails with
a diff, and ``make golden`` rewrites the data for a reviewer to read, not the test code.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from _golden import GoldenFile
from _revisions import initialize_era

from compare.play._run import select

from .conftest import (
    CLI_BINS,
    ROOTS_SCENARIOS,
    ClientRun,
    roots_revisions,
    smoke_revisions,
    smoke_scenarios,
    target_entry,
)

pytestmark = pytest.mark.clients

TARGETS = list(CLI_BINS)
#: The encoded last path segment of the harness's workspace folder ``web #staging é``.
ENCODED_FOLDER = "web%20%23staging%20%C3%A9"
#: Roots checks of roots-list whose outcomes are kept as measurements.
ROOTS_LIST_CHECKS = ("answered", "workspace-root", "root-uri-encoding", "root-name")
#: Targets whose connection can end before their answer to roots/list goes out. Gemini's
#: health check closes (and stops the server) as soon as its own ping is answered; the peer
#: asks for roots just before answering that ping, so the -32601 sometimes gets out first and
#: sometimes not (seen both ways on this machine). Such a cell records "silence", so its
#: verdict is left out of the golden table and "silence" out of the answers kept. The same
#: holds for elicitation/create, which the peer sends at the same moment (its -32601 went
#: out 2 ms after the ping's answer in the run the golden table was written from).
RACES_THE_CLOSE = {"gemini-cli-health": {"roots-undeclared", "elicitation-undeclared"}}
VERDICTS = {"pass", "non-strict", "fail", "informational", "not-exercised", "not-run"}


def outcomes(verdict: dict[str, Any]) -> dict[str, Any]:
    return {c["id"]: c.get("outcome") for c in verdict["checks"]}


def incoming(run: ClientRun, target: str, scenario: str, revision: str) -> list[dict[str, Any]]:
    """The raw lines the client sent in one cell, each parsed (the raw text kept beside)."""
    lines = []
    path = run.cell(target, scenario, revision) / "transcript.jsonl"
    for text in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        if record["dir"] == "in" and "raw" in record:
            lines.append({"raw": record["raw"], "msg": json.loads(record["raw"])})
    return lines


def planned(target: str) -> dict[tuple[str, str], str | None]:
    """Every cell the harness plans for ``target``: (scenario, revision) → its not-run reason."""
    cells, _commit, _known = select(targets=[target], scenarios=list(smoke_scenarios(target)))
    roots, smoke = roots_revisions(), smoke_revisions()
    return {
        (c.scenario.id, c.revision): c.not_run_reason()
        for c in cells
        if c.revision in (roots if c.scenario.id in ROOTS_SCENARIOS else smoke)
    }


def era_played() -> list[str]:
    """The revisions of the handshake era the handshake was played at."""
    return [r for r in initialize_era() if r in smoke_revisions()]


def refused(run: ClientRun, target: str) -> list[str]:
    """Revisions whose handshake shows the client letting the peer's version go."""
    return [
        r
        for r in era_played()
        if outcomes(run.verdict(target, "handshake", r)).get("initialized-sent")
        == "version-refused"
    ]


def accepted(run: ClientRun, target: str) -> list[str]:
    gone = refused(run, target)
    return [r for r in era_played() if r not in gone]


def roots_played(run: ClientRun, target: str) -> list[str]:
    """The accepted revisions the roots pair was played at."""
    return [r for r in accepted(run, target) if r in roots_revisions()]


def peer_end(verdict: dict[str, Any]) -> str:
    """Why the peer of a played cell stopped (a signal's name when one ended it)."""
    return str((verdict.get("peer_done") or {}).get("reason", ""))


def measured(run: ClientRun, target: str) -> dict[str, Any]:
    """What ``target`` did on the wire, as kept in ``tests/golden/cli_clients.json``."""
    first = run.verdict(target, "handshake", initialize_era()[0])
    roots = first["client_capabilities"].get("roots")
    facts: dict[str, Any] = {
        "cells": len(run.verdicts(target)),
        "client_info": {k: first["client_info"].get(k) for k in ("name", "version")},
        "asks_for": first["client_protocol_version"],
        "roots_capability": roots,
        "refuses": refused(run, target),
    }
    if roots is None:
        answers = {
            outcomes(run.verdict(target, "roots-undeclared", r))["answer"]
            for r in roots_played(run, target)
        }
        if "roots-undeclared" in RACES_THE_CLOSE.get(target, set()):
            answers.discard("silence")
        facts["undeclared_answers"] = answers
    else:
        facts["roots_list"] = {
            r: {
                k: v
                for k, v in outcomes(run.verdict(target, "roots-list", r)).items()
                if k in ROOTS_LIST_CHECKS
            }
            for r in roots_played(run, target)
        }
    # Read from the handshake cells only: since the peer closes as soon as a cell's outcome is
    # decided (issue 11), a stop the client sends after its own work reaches a peer that is
    # still there only by a race in the cells that ask it something (gemini's health check
    # stops its server right after its ping), while a stop during the handshake (refusing the
    # revision) always does. The windows the peer used to sit out made the race look settled.
    facts["server_stopped_at"] = sorted(
        {
            v["revision"]
            for v in run.verdicts(target)
            if v["verdict"] != "not-run"
            and v["scenario"] == "handshake"
            and "SIGTERM" in (v.get("peer_done") or {}).get("reason", "")
        }
    )
    return facts


@pytest.mark.parametrize("target", TARGETS)
def test_measured_behaviour_matches_golden(
    client_run: ClientRun, target: str, golden: Callable[[str], GoldenFile]
) -> None:
    """clientInfo, asked version, roots capability, refused revisions, answers: as recorded."""
    golden("cli_clients").expect(target, measured(client_run, target))


@pytest.mark.parametrize("target", TARGETS)
def test_verdicts_match_golden(
    client_run: ClientRun, target: str, golden: Callable[[str], GoldenFile]
) -> None:
    """Every cell's verdict, as recorded (the racing cells of RACES_THE_CLOSE left out)."""
    racy = RACES_THE_CLOSE.get(target, set())
    table = {
        f"{v['scenario']}/{v['revision']}": v["verdict"]
        for v in client_run.verdicts(target)
        if not (v["scenario"] in racy and v["verdict"] != "not-run")
    }
    golden("cli_verdicts").expect(target, table)


@pytest.mark.parametrize("target", TARGETS)
def test_every_cell_has_a_verdict_and_its_files(client_run: ClientRun, target: str) -> None:
    """Every planned cell has a verdict; each played one has its transcript and output."""
    verdicts = client_run.verdicts(target)
    plan = planned(target)
    assert sorted((v["scenario"], v["revision"]) for v in verdicts) == sorted(plan)
    for v in verdicts:
        where = f"{v['scenario']}/{v['revision']}: {v['verdict']}: {v['reason']}"
        assert v["verdict"] in VERDICTS, where
        assert v["reason"], where
        if v["verdict"] == "not-run":
            assert v["reason"].startswith("not run, because "), where
            continue
        folder = client_run.cell(target, v["scenario"], v["revision"])
        for name in ("plan.json", "transcript.jsonl", "client.stdout", "client.stderr"):
            assert (folder / name).is_file(), f"{where}: no {name}"


@pytest.mark.parametrize("target", TARGETS)
def test_unplayable_cells_say_why(client_run: ClientRun, target: str) -> None:
    """A cell the plan cannot play is not-run with the plan's reason; the others were played."""
    for (scenario, revision), reason in planned(target).items():
        verdict = client_run.verdict(target, scenario, revision)
        if reason is None:
            assert verdict["verdict"] != "not-run", f"{scenario}/{revision}: {verdict['reason']}"
        else:
            assert verdict["verdict"] == "not-run", f"{scenario}/{revision}"
            assert verdict["reason"] == reason


@pytest.mark.parametrize("target", TARGETS)
def test_transcript_keeps_the_exact_client_info(client_run: ClientRun, target: str) -> None:
    """The cell names the client that produced it, as its raw initialize line does."""
    pinned = target_entry(target).version
    seen = set()
    for revision in era_played():
        verdict = client_run.verdict(target, "handshake", revision)
        assert verdict["target_version"] == pinned
        info = verdict["client_info"]
        assert isinstance(info.get("name"), str) and info["name"].strip(), info
        (init,) = [
            x
            for x in incoming(client_run, target, "handshake", revision)
            if x["msg"].get("method") == "initialize"
        ]
        params = init["msg"]["params"]
        assert params["clientInfo"]["name"] == info["name"]
        assert params["clientInfo"].get("version") == info.get("version")
        assert params["protocolVersion"] == verdict["client_protocol_version"]
        seen.add((info["name"], info.get("version"), params["protocolVersion"]))
    assert len(seen) == 1, f"one client, one clientInfo and one asked version: {seen}"


@pytest.mark.parametrize("target", TARGETS)
def test_handshake_outcomes_agree_with_the_wire(client_run: ClientRun, target: str) -> None:
    """The roots-capability outcome is what was declared; a refusal is initialize alone."""
    gone = refused(client_run, target)
    for revision in era_played():
        verdict = client_run.verdict(target, "handshake", revision)
        found = outcomes(verdict)
        assert found["initialize-valid"] == "valid", verdict["reason"]
        if revision in gone:
            methods = [
                x["msg"].get("method") for x in incoming(client_run, target, "handshake", revision)
            ]
            assert methods == ["initialize"], methods
            continue
        roots = verdict["client_capabilities"].get("roots")
        expected = "absent" if roots is None else "declared"
        if roots and roots.get("listChanged"):
            expected = "member-declared"
        assert found["roots-capability"] == expected


@pytest.mark.parametrize("target", TARGETS)
def test_roots_list_outcomes_agree_with_the_raw_answer(client_run: ClientRun, target: str) -> None:
    """Where roots are declared, the judged encoding and name match the raw bytes of the answer."""
    for revision in roots_played(client_run, target):
        verdict = client_run.verdict(target, "roots-list", revision)
        if verdict["client_capabilities"].get("roots") is None:
            continue
        found = outcomes(verdict)
        answers = [
            x
            for x in incoming(client_run, target, "roots-list", revision)
            if isinstance(x["msg"].get("result"), dict) and "roots" in x["msg"]["result"]
        ]
        if found["answered"] != "result":
            assert answers == [], answers
            continue
        assert len(answers) == 1, answers
        workspace = [
            r for r in answers[0]["msg"]["result"]["roots"] if ENCODED_FOLDER in r.get("uri", "")
        ]
        if found["root-uri-encoding"] == "encoded":
            assert f'/{ENCODED_FOLDER}"' in answers[0]["raw"], answers[0]["raw"]
            (root,) = workspace
            assert root["uri"].startswith("file:///") and root["uri"].endswith(ENCODED_FOLDER)
            assert ("name" in root) == (found["root-name"] == "named")


@pytest.mark.parametrize("target", TARGETS)
def test_undeclared_roots_outcomes_agree_with_the_raw_answers(
    client_run: ClientRun, target: str
) -> None:
    """Without the roots capability roots-list is informational, and the answers are uniform."""
    first = client_run.verdict(target, "handshake", initialize_era()[0])
    if first["client_capabilities"].get("roots") is not None:
        pytest.skip(f"{target} declares roots")
    answers: list[dict[str, Any]] = []
    kinds = set()
    for revision in roots_played(client_run, target):
        found = outcomes(client_run.verdict(target, "roots-undeclared", revision))["answer"]
        if found != "silence":
            kinds.add(found)
        listed = client_run.verdict(target, "roots-list", revision)
        assert listed["verdict"] == "informational", listed["reason"]
        for check in ("answered", "result-valid", "workspace-root", "root-uri-encoding"):
            assert outcomes(listed)[check] == "undeclared", listed["reason"]
        for scenario in ("roots-undeclared", "roots-list", "version-window"):
            if scenario not in smoke_scenarios(target):
                continue
            sent = incoming(client_run, target, scenario, revision)
            answers += [x["msg"] for x in sent if "result" in x["msg"] or "error" in x["msg"]]
    assert len(kinds) == 1, f"one kind of answer at every revision: {kinds}"
    (kind,) = kinds
    if kind == "empty-list":
        assert answers and all(a.get("result") == {"roots": []} for a in answers), answers
    elif kind == "method-not-found":
        assert answers and all(a.get("error", {}).get("code") == -32601 for a in answers), answers


@pytest.mark.parametrize("target", TARGETS)
def test_a_refused_revision_is_never_a_failure(client_run: ClientRun, target: str) -> None:
    """Where the client drops the server's version, every played cell says so, none fails."""
    for revision in refused(client_run, target):
        for v in client_run.verdicts(target):
            if v["revision"] != revision or v["verdict"] == "not-run":
                continue
            where = f"{v['scenario']}/{revision}: {v['verdict']}: {v['reason']}"
            assert v["verdict"] in ("pass", "informational"), where
            assert all(c["verdict"] not in ("fail", "error") for c in v["checks"]), where
            outcomes_seen = {c["outcome"] for c in v["checks"]}
            assert outcomes_seen & {"version-refused", "disconnected"}, where


@pytest.mark.parametrize("target", TARGETS)
def test_a_client_that_stops_its_server_is_ended_at_once(
    client_run: ClientRun, target: str
) -> None:
    """Gemini's prompt mode SIGTERMs the server it refuses and keeps running: the peer notes the
    signal, so the harness ends the client at once instead of at the time bound. (A client
    that SIGTERMs its server and then exits by itself, like the Gemini health check, simply
    ends; either way no such cell runs to its bound.)"""
    for v in client_run.verdicts(target):
        if v["verdict"] == "not-run":
            continue
        if "SIGTERM" in peer_end(v):
            where = f"{v['scenario']}/{v['revision']}"
            assert v["process"]["ended_by"] in ("harness", "self"), where
            assert v["verdict"] != "error", where


@pytest.mark.parametrize("target", [t for t in TARGETS if "version-window" in smoke_scenarios(t)])
def test_version_window_agrees_with_the_handshake(client_run: ClientRun, target: str) -> None:
    """version-window: the client goes on exactly where its handshake did not refuse."""
    gone = refused(client_run, target)
    for revision in era_played():
        found = outcomes(client_run.verdict(target, "version-window", revision))
        want = "disconnected" if revision in gone else "accepted"
        assert found["accepted"] == want, revision


@pytest.mark.parametrize("target", TARGETS)
def test_clients_end_as_their_entry_says(client_run: ClientRun, target: str) -> None:
    """Health checks exit by themselves; prompt-mode clients are ended once the scenario is done."""
    entry = target_entry(target)
    gone = refused(client_run, target)
    for v in client_run.verdicts(target):
        if v["verdict"] == "not-run" or v["revision"] in gone:
            continue
        process = v["process"]
        assert process["ended_by"] == entry.ends, f"{v['scenario']}/{v['revision']}: {process}"
        assert process["leftover_killed"] == 0, f"{v['scenario']}/{v['revision']}: {process}"


@pytest.mark.parametrize("target", TARGETS)
def test_client_output_is_recorded_with_the_transcript(client_run: ClientRun, target: str) -> None:
    """Each played roots-list cell keeps what the client wrote to its own output: both files
    are there, and a client that ends by itself has written something to one of them. A
    client the harness ends mid-turn may not have written yet (`claude -p` prints its answer
    only once its model is done), so its files may be empty."""
    ends_by_itself = target_entry(target).ends == "self"
    for revision in roots_played(client_run, target):
        folder = client_run.cell(target, "roots-list", revision)
        sizes = {n: (folder / n).stat().st_size for n in ("client.stdout", "client.stderr")}
        if ends_by_itself:
            assert any(sizes.values()), f"{folder}: the client's output was not recorded: {sizes}"


def test_the_callers_home_is_never_touched(client_run: ClientRun) -> None:
    """Neither the caller's HOME/XDG folders nor the account's real client state change."""
    assert client_run.sentinel_after == client_run.sentinel_before
    changed = {
        path
        for path in client_run.real_home_before.keys() | client_run.real_home_after.keys()
        if client_run.real_home_before.get(path) != client_run.real_home_after.get(path)
    }
    assert not changed, sorted(changed)[:20]


def test_no_process_outlives_the_run(client_run: ClientRun) -> None:
    assert client_run.leftovers == []
