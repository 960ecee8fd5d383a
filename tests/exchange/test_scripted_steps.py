"""The loader's checks on the scripted client's steps of issue 40 (``_check_scripted_only``):
``wait``, ``cancel``, ``reason`` and ``omit_id`` belong to the scripted client's steps, a
request is left open only by a request or tool_call step, and a cancel names an earlier such
step by its label, so a typo is refused when the file loads instead of played as a cancel of
nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.exchange._scenarios import load_scenario_file

SERVER = """\
id: demo
title: Demo
description: A server scenario for the loader tests.
side: server
revisions: {from: "2024-11-05", until: "2025-11-25"}
steps:
  - {request: tools/list, label: list-tools, timeout_s: 5}
  - {tool_call: [{name: slow, arguments: {}}], only_listed: true, wait: false, label: long-call}
  - {cancel: long-call, reason: "no longer needed", label: cancel}
  - {request: ping, label: still-there, timeout_s: 5}
checks:
  - id: answered
    title: answered
    rule: server-answered
    with: {step: still-there}
    expected: a result
    outcomes:
      result: {verdict: informational, means: ok}
      error: {verdict: informational, means: error}
      silence: {verdict: informational, means: silence}
      closed: {verdict: informational, means: closed}
    refs: []
"""

CLIENT = """\
id: demo
title: Demo
description: A client scenario for the loader tests.
revisions: {from: "2024-11-05", until: "2025-11-25"}
steps:
  - {await: notifications/initialized, label: initialized, timeout_s: 5}
  - {request: roots/list, label: roots, timeout_s: 5}
checks:
  - id: answered
    title: answered
    rule: request-answered
    with: {method: roots/list, step: roots, capability: roots}
    expected: a result
    outcomes:
      result: {verdict: informational, means: ok}
      error: {verdict: informational, means: error}
      silence: {verdict: informational, means: silence}
      closed: {verdict: informational, means: closed}
      not-asked: {verdict: informational, means: not asked}
      undeclared: {verdict: informational, means: undeclared}
      no-initialize: {verdict: error, means: "not run, because no initialize"}
      exited-before-initialize: {verdict: informational, means: exited}
      version-refused: {verdict: informational, means: refused}
    refs: []
"""


def _load(tmp_path: Path, text: str) -> object:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario_file(path)


def test_a_request_left_open_and_its_cancel_load(tmp_path: Path) -> None:
    scenario = _load(tmp_path, SERVER)
    steps = scenario.steps  # type: ignore[attr-defined]
    assert steps[1]["wait"] is False and steps[2]["cancel"] == "long-call"
    bare = SERVER.replace('reason: "no longer needed"', "omit_id: true")
    assert _load(tmp_path, bare)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # a cancel names an earlier request or tool_call step
        ("{cancel: long-call,", "{cancel: long-cal,", "steps.2.cancel: no earlier request or"
         " tool_call step is labelled 'long-cal'"),
        ("{cancel: long-call,", "{cancel: still-there,", "steps.2.cancel: no earlier request or"
         " tool_call step is labelled 'still-there'"),
        # a label that is no request's (a cancel step's own) cannot be cancelled
        ("{request: ping, label: still-there, timeout_s: 5}",
         "{cancel: cancel, label: again}", "steps.3.cancel: no earlier request or tool_call"),
        # reason and omit_id go with a cancel only
        ("{request: ping, label: still-there,", "{request: ping, reason: why, label: still-there,",
         "steps.3.reason: only a cancel step takes reason"),
        ("{request: ping, label: still-there,",
         "{request: ping, omit_id: true, label: still-there,",
         "steps.3.omit_id: only a cancel step takes omit_id"),
        # only a request or a tool_call is left open
        ('{cancel: long-call, reason: "no longer needed", label: cancel}',
         "{observe_s: 1, why: a window the test never plays, wait: false, label: cancel}",
         "steps.2.wait: only a request or tool_call step can be left open"),
    ],
)  # fmt: skip
def test_a_misused_scripted_step_is_refused(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in SERVER
    with pytest.raises(CompareError, match=re.escape(message)):
        _load(tmp_path, SERVER.replace(old, new, 1))


@pytest.mark.parametrize(
    ("step", "key"),
    [
        ("{request: roots/list, wait: false, label: roots, timeout_s: 5}", "wait"),
        ("{request: roots/list, label: roots, timeout_s: 5}\n  - {cancel: roots, label: c}",
         "cancel"),
    ],
)  # fmt: skip
def test_the_peers_steps_take_no_wait_or_cancel(tmp_path: Path, step: str, key: str) -> None:
    """A client scenario's steps are the peer's: it answers, and leaves no request of its own
    open to cancel."""
    text = CLIENT.replace("{request: roots/list, label: roots, timeout_s: 5}", step, 1)
    with pytest.raises(CompareError, match=rf"steps\.\d\.{key}: only the scripted client's"):
        _load(tmp_path, text)
