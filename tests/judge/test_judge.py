"""The judge on crafted transcripts: each outcome a rule can name, graded as the YAML says.

Transcripts are written by hand here (in the peer's format) so the judge is tested apart from
the peer and the clients; the models stage validates against the pinned schemas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _revisions import revisions

from compare.exchange._scenarios import Scenario, load_scenarios
from compare.judge._judge import judge_checks, overall

WS = "/tmp/mcpc-judge/web #staging é"
GOOD_URI = "file:///tmp/mcpc-judge/web%20%23staging%20%C3%A9"
KNOWN = revisions()


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


@pytest.fixture(scope="module")
def scenarios() -> dict[str, Scenario]:
    return {s.id: s for s in load_scenarios()}


class Tape:
    """Builds a transcript in the peer's format."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def add(self, direction: str, message: Any, raw: str | None = None) -> int:
        n = len(self.records) + 1
        text = raw if raw is not None else json.dumps(message, ensure_ascii=False)
        self.records.append({"n": n, "t": n / 1000, "dir": direction, "raw": text})
        return n

    def note(self, **fields: Any) -> int:
        return self.add("note", None, raw=json.dumps(fields))

    def handshake(self, caps: dict[str, Any], version: str = "2025-11-25") -> None:
        params = {
            "protocolVersion": version,
            "capabilities": caps,
            "clientInfo": {"name": "crafted", "version": "1"},
        }
        self.add("in", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        result = {
            "protocolVersion": version,
            "capabilities": {},
            "serverInfo": {"name": "p", "version": "0"},
        }
        self.add("out", {"jsonrpc": "2.0", "id": 0, "result": result})
        self.add("in", {"jsonrpc": "2.0", "method": "notifications/initialized"})

    def request(self, label: str, method: str, rid: int, reply: Any | None) -> None:
        self.note(event="step", index=rid, step={"request": method, "label": label})
        self.add("out", {"jsonrpc": "2.0", "id": rid, "method": method})
        evidence = None
        if reply is not None:
            evidence = self.add("in", {"jsonrpc": "2.0", "id": rid, **reply})
        outcome = "ok" if reply is not None else "timeout"
        self.note(
            event="step-done", index=rid, label=label, outcome=outcome, id=rid, evidence=evidence
        )

    def judge(
        self,
        tmp: Path,
        scenario: Scenario,
        revision: str = "2025-11-25",
        process: dict[str, Any] | None = None,
        **plan: Any,
    ) -> dict[str, Any]:
        """Judge the tape as the harness would; ``process`` is the client's process facts
        (by default it ended by itself, exit 0)."""
        (tmp / "transcript.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.records),
            encoding="utf-8",
        )
        full = {"revision": revision, "answer_revision": revision, "workspace": WS, **plan}
        facts_in = process or {"ended_by": "self", "exit_code": 0, "ends": "self"}
        checks, facts = judge_checks(scenario, tmp, full, KNOWN, facts_in)
        verdict, reason = overall(checks, facts_in)
        return {
            "checks": {c["id"]: c for c in checks},
            "facts": facts,
            "verdict": verdict,
            "reason": reason,
        }


def _roots_list(tmp: Path, scenario: Scenario, uri: str) -> dict[str, Any]:
    tape = Tape()
    tape.handshake({"roots": {"listChanged": True}})
    tape.request("roots", "roots/list", 1, {"result": {"roots": [{"uri": uri, "name": "web"}]}})
    return tape.judge(tmp, scenario)


@pytest.mark.parametrize(
    ("uri", "outcome", "grade"),
    [
        (GOOD_URI, "encoded", "pass"),
        ("file:///tmp/mcpc-judge/web%20#staging%20%C3%A9", "hash-unencoded", "fail"),
        ("file:///tmp/mcpc-judge/web %23staging %C3%A9", "space-unencoded", "fail"),
        ("file:///tmp/mcpc-judge/web%20%23staging%20é", "non-ascii-raw", "fail"),
        ("file://host/tmp/mcpc-judge/web%20%23staging%20%C3%A9", "host-authority", "informational"),
        (GOOD_URI + "?q=1", "query", "fail"),
    ],
)
def test_root_uri_encoding(
    tmp_path: Path, scenarios: dict[str, Scenario], uri: str, outcome: str, grade: str
) -> None:
    result = _roots_list(tmp_path, scenarios["roots-list"], uri)
    check = result["checks"]["root-uri-encoding"]
    assert (check["outcome"], check["verdict"]) == (outcome, grade)
    assert check["evidence"]  # points at the response line
    # an informational finding leaves the cell to its graded checks (here all pass)
    assert result["verdict"] == ("pass" if grade == "informational" else grade)


def test_all_good_roots_list_passes_with_refs(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    result = _roots_list(tmp_path, scenarios["roots-list"], GOOD_URI)
    assert result["verdict"] == "pass", result["reason"]
    refs = result["checks"]["root-uri-encoding"]["refs"]
    assert [r["cite"] for r in refs] == ["docs/specification/2025-11-25/client/roots.mdx:110-111"]
    assert result["facts"]["client_info"] == {"name": "crafted", "version": "1"}


def test_invalid_result_fails_model_validation(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({"roots": {}})
    tape.request("roots", "roots/list", 1, {"result": {"roots": [{"name": "no uri"}]}})
    result = tape.judge(tmp_path, scenarios["roots-list"])
    assert result["checks"]["result-valid"]["verdict"] == "fail"
    assert result["checks"]["workspace-root"]["outcome"] == "absent"


@pytest.mark.parametrize(
    ("reply", "outcome", "grade"),
    [
        ({"error": {"code": -32601, "message": "Method not found"}}, "method-not-found", "pass"),
        ({"error": {"code": -32600, "message": "Invalid"}}, "invalid-request", "non-strict"),
        ({"error": {"code": -32603, "message": "x"}}, "other-error", "non-strict"),
        ({"result": {"roots": []}}, "empty-list", "non-strict"),
        ({"result": {"roots": [{"uri": GOOD_URI}]}}, "roots-returned", "non-strict"),
        (None, "silence", "fail"),
    ],
)
def test_roots_undeclared(
    tmp_path: Path, scenarios: dict[str, Scenario], reply: Any, outcome: str, grade: str
) -> None:
    tape = Tape()
    tape.handshake({})
    tape.request("roots", "roots/list", 1, reply)
    check = tape.judge(tmp_path, scenarios["roots-undeclared"])["checks"]["answer"]
    assert (check["outcome"], check["verdict"]) == (outcome, grade)


def test_roots_undeclared_does_not_apply_to_a_declaring_client(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({"roots": {}})
    tape.request("roots", "roots/list", 1, {"result": {"roots": []}})
    result = tape.judge(tmp_path, scenarios["roots-undeclared"])
    assert result["checks"]["answer"]["verdict"] == "informational"


@pytest.mark.parametrize(("replies", "grade"), [(False, "pass"), (True, "fail")])
def test_unknown_notification(
    tmp_path: Path, scenarios: dict[str, Scenario], replies: bool, grade: str
) -> None:
    tape = Tape()
    tape.handshake({})
    tape.note(
        event="step",
        index=1,
        step={"notify": "notifications/mcp-compare/unknown-probe", "label": "probe"},
    )
    probe = tape.add("out", {"jsonrpc": "2.0", "method": "notifications/mcp-compare/unknown-probe"})
    tape.note(event="step-done", index=1, label="probe", outcome="ok", id=None, evidence=probe)
    if replies:
        tape.add("in", {"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "?"}})
    tape.request("ping", "ping", 1, {"result": {}})
    result = tape.judge(tmp_path, scenarios["unknown-notification"])
    assert result["checks"]["no-reply"]["verdict"] == grade
    assert result["checks"]["still-responsive"]["verdict"] == "pass"


def _mrtr_tape(state_back: str | None, same_id: bool = False) -> Tape:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "crafted", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
    }
    tape = Tape()
    call = {"name": "probe", "arguments": {}, "_meta": meta}
    tape.add("in", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    retry = {**call, "inputResponses": {"workspace-roots": {"roots": [{"uri": GOOD_URI}]}}}
    if state_back is not None:
        retry["requestState"] = state_back
    tape.add(
        "in", {"jsonrpc": "2.0", "id": 1 if same_id else 2, "method": "tools/call", "params": retry}
    )
    return tape


def test_mrtr_good_retry_passes(tmp_path: Path, scenarios: dict[str, Scenario]) -> None:
    plan = {
        "mrtr": {"key": "workspace-roots", "request_state": "st+/="},
        "answer_revision": "2025-11-25",
    }
    result = _mrtr_tape("st+/=").judge(tmp_path, scenarios["mrtr"], "2026-07-28", **plan)
    outcomes = {k: c["outcome"] for k, c in result["checks"].items()}
    assert outcomes["retried"] == "retried"
    assert outcomes["request-state"] == "exact"
    assert outcomes["new-id"] == "new"
    assert outcomes["retry-roots"] == "encoded"
    assert result["checks"]["retry-valid"]["verdict"] == "pass", result["checks"]["retry-valid"]
    assert result["verdict"] == "pass", result["reason"]


def test_mrtr_altered_state_and_reused_id_fail(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    plan = {"mrtr": {"key": "workspace-roots", "request_state": "st+/="}}
    result = _mrtr_tape("st /=", same_id=True).judge(
        tmp_path, scenarios["mrtr"], "2026-07-28", **plan
    )
    assert result["checks"]["request-state"]["outcome"] == "altered"
    assert result["checks"]["new-id"]["outcome"] == "reused"
    assert result["verdict"] == "fail"


def test_mrtr_is_informational_for_an_initialize_era_client(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    tape = Tape()
    tape.handshake({"roots": {}})
    tape.add("in", {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "probe"}})
    plan = {
        "mrtr": {"key": "workspace-roots", "request_state": "s"},
        "answer_revision": "2025-11-25",
    }
    result = tape.judge(tmp_path, scenarios["mrtr"], "2026-07-28", **plan)
    graded = {
        k: c["verdict"] for k, c in result["checks"].items() if not k.startswith(("wire", "client"))
    }
    assert set(graded.values()) == {"informational"}
    # Nothing the scenario grades happened: a clean wire alone must not make the cell a pass.
    assert result["verdict"] == "informational"
    assert result["reason"].startswith("speaks-modern: ")


def test_damaged_transcript_is_judged_not_raised(
    tmp_path: Path, scenarios: dict[str, Scenario]
) -> None:
    (tmp_path / "transcript.jsonl").write_bytes(
        b'{"n": 1, "t": 0, "dir": "in", "raw": "{}"}\n\x00garbage\n{"n":'
    )
    checks, facts = judge_checks(
        scenarios["handshake"], tmp_path, {"revision": "2025-11-25"}, KNOWN
    )
    assert facts["transcript_damage"]
    assert {c["id"]: c["outcome"] for c in checks}["initialize-valid"] == "absent"


def test_models_unavailable_is_an_error_check_not_a_pass(
    tmp_path: Path, scenarios: dict[str, Scenario], monkeypatch: pytest.MonkeyPatch
) -> None:
    import compare.models
    from compare._errors import CompareError

    def unfetched(*_args: object) -> None:
        raise CompareError("schema has not been fetched", "run mcp-compare pin verify")

    monkeypatch.setattr(compare.models, "validate_line", unfetched)
    tape = Tape()
    tape.handshake({"roots": {}})
    result = tape.judge(tmp_path, scenarios["handshake"])
    check = result["checks"]["initialize-valid"]
    assert check["verdict"] == "error"
    assert check["reason"].startswith("not run, because")
    assert result["verdict"] == "error"
