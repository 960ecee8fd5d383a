"""Issue 36: a pass is earned. A check graded pass must be able to fail, and a cell whose
scenario checks never got to what they grade reads ``not-exercised``, never pass.

Each case is crafted: checks as the judge writes them, or a scenario file the loader reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from compare._errors import CompareError
from compare.exchange._scenarios import load_scenario_file, load_scenarios
from compare.judge._grounds import unearned_passes
from compare.judge._judge import overall
from compare.judge._verdicts import SEVERITY, VERDICT_SYMBOLS, VERDICTS, worst


@pytest.fixture(autouse=True)
def _spec_cache(pinned_spec: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))


def _check(cid: str, verdict: str, reason: str = "why") -> dict[str, Any]:
    return {"id": cid, "verdict": verdict, "reason": reason, "outcome": "o"}


def test_not_exercised_is_a_word_with_a_symbol_and_a_rank() -> None:
    assert "not-exercised" in VERDICTS and "not-exercised" in VERDICT_SYMBOLS
    # never degrades a cell: it ranks just below pass, above informational
    assert SEVERITY.index("pass") < SEVERITY.index("not-exercised")
    assert SEVERITY.index("not-exercised") < SEVERITY.index("informational")


@pytest.mark.parametrize(
    ("verdicts", "expected"),
    [
        (["pass", "not-exercised"], "pass"),
        (["informational", "not-exercised"], "not-exercised"),
        (["informational"], "informational"),
        (["fail", "not-exercised"], "fail"),
    ],
)
def test_worst_ranks_not_exercised_below_every_graded_word(
    verdicts: list[str], expected: str
) -> None:
    assert worst(verdicts) == expected


def test_a_cell_whose_own_checks_were_never_exercised_is_not_a_pass() -> None:
    """A clean wire (wire-json: pass) does not make a pass of a scenario that graded nothing."""
    checks = [
        _check("asks-undeclared-must", "not-exercised", "the server lists no such tool"),
        _check("wire-json", "pass"),
    ]
    verdict, reason = overall(checks, {"ended_by": "self"})
    assert verdict == "not-exercised"
    assert reason == "asks-undeclared-must: the server lists no such tool"


def test_not_exercised_is_said_before_what_was_only_recorded() -> None:
    checks = [
        _check("baseline", "informational", "worked in the root"),
        _check("after-failure", "not-exercised", "the server did not ask again"),
        _check("wire-json", "pass"),
    ]
    assert overall(checks, {"ended_by": "self"}) == (
        "not-exercised",
        "after-failure: the server did not ask again",
    )


def test_one_earned_pass_makes_the_cell_pass() -> None:
    checks = [_check("a", "pass"), _check("b", "not-exercised"), _check("wire-json", "pass")]
    assert overall(checks, {"ended_by": "self"})[0] == "pass"


def test_every_shipped_pass_can_fail() -> None:
    """The loader refuses an unearned pass, so every shipped scenario has none."""
    for scenario in load_scenarios():
        for check in scenario.checks:
            assert unearned_passes(check) == [], (scenario.id, check.id)


_UNEARNED = """\
id: {sid}
title: A check that cannot fail
description: crafted for the earned-pass lint
side: client
revisions: {{from: "2024-11-05", until: null}}
steps:
  - {{request: roots/list, label: roots, timeout_s: 5}}
checks:
  - id: present
    title: The root is there
    rule: workspace-root
    expected: a root
    outcomes:
      present: {{verdict: pass, means: "listed"}}
      absent: {{verdict: informational, means: "not listed"}}
      no-result: {{verdict: informational, means: "no result"}}
      undeclared: {{verdict: informational, means: "no roots"}}
    refs: []
"""


def test_the_loader_refuses_a_pass_that_could_not_have_failed(tmp_path: Path) -> None:
    shipped = Path(load_scenarios()[0].path).parent
    for shared in shipped.glob("_*.yaml"):
        (tmp_path / shared.name).write_bytes(shared.read_bytes())
    path = tmp_path / "unearned-pass.yaml"
    path.write_text(_UNEARNED.format(sid="unearned-pass"), encoding="utf-8")
    with pytest.raises(CompareError) as err:
        load_scenario_file(path)
    assert "check present: outcome present is graded pass" in err.value.message
    assert "could not have failed" in err.value.message
    # graded informational, the same check loads
    path.write_text(
        _UNEARNED.format(sid="unearned-pass").replace("verdict: pass", "verdict: informational"),
        encoding="utf-8",
    )
    assert load_scenario_file(path).id == "unearned-pass"
