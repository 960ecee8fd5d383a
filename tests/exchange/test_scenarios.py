"""Scenario files: the shipped ones load and cite real lines; malformed ones fail clearly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.cite import parse_citation, verify
from compare.cite._sources import Source
from compare.exchange._scenarios import common_checks, load_scenario_file, load_scenarios
from compare.judge.rules import RULES

SCENARIOS = Path(__file__).resolve().parents[2] / "compare/exchange/scenarios"

ISSUE_SCENARIOS = {
    "handshake",
    "roots-list",
    "roots-undeclared",
    "unknown-notification",
    "list-changed",
    "version-window",
    "mrtr",
    # issue 10: played by the scripted client against server targets
    "server-asks",
    "server-asks-undeclared",
    "server-notification-reply",
    "server-enforcement",
    "server-stale",
    "server-bad-roots",
    "server-mrtr",
    # issue 10: played by both scripted ends around proxy targets
    "relay-roots",
    "relay-roots-undeclared",
    "relay-elicitation",
    "relay-log-messages",
    # issue 21: a request of the upstream while no stream toward the host is open
    "relay-no-stream",
    # issue 23: odd roots and a symlink swapped between check and use
    "server-odd-roots",
    "server-symlink-swap",
    # issue 23: a failed roots refresh, two roots in different places, moves across them
    "server-refresh-error",
    "server-refresh-malformed",
    "server-refresh-no-uri",
    "server-refresh-silent",
    "server-several-roots",
    # issue 24: the elicitation area, played by the clients
    "elicitation-ask",
    "elicitation-form-enum",
    "elicitation-url-undeclared",
    "elicitation-undeclared",
    "elicitation-complete-unknown",
    "elicitation-decline",
    "elicitation-cancel",
    "elicitation-retry",
    "elicitation-rounds",
    # issue 24: the logging area, a client and a server side
    "logging-messages",
    "server-log-level",
    # issue 24: the lifecycle area's server side (ping, version negotiation, serverInfo)
    "server-ping",
    "server-version",
    # issue 24: does a server elicit only from a client that declared elicitation
    "server-elicits",
    "server-elicits-undeclared",
    # issue 24: does a server send only messages at or above the level asked for
    "server-log-threshold",
    # issue 24: the per-request _meta a 2026-07-28 server must refuse
    "server-modern-meta",
    # issue 24: the URL-required error a server answers a call with
    "server-url-required",
    # issue 24: requests before the session is ready, from either side
    "initialize-held",
    "server-before-initialized",
    # issue 24: the sampling area, client, server and proxy sides
    "sampling-ask",
    "sampling-undeclared",
    "sampling-tools-undeclared",
    "sampling-retry",
    "server-samples",
    "server-samples-undeclared",
    "relay-sampling",
    # issue 38: the server side of tools, resources, prompts, completion and pagination
    "server-features",
    "server-lists",
    "server-tool-unknown",
    "server-tool-bad-arguments",
    "server-resource-missing",
    "server-prompt-unknown",
    "server-completion-errors",
    "server-cursor-invalid",
    # issue 38: the server's own answers read back (pages, a listed prompt, a typed tool)
    "server-pages",
    "server-prompt-arguments",
    "server-tool-structured",
    "server-tools-twice",
    # issue 38: the client side, against what the peer serves from scenario data
    "client-pages",
    "client-tools-changed",
    "client-empty-cursor",
    "server-completion-values",
    "server-list-members",
    "server-tool-content",
    "server-resource-subscribe",
    # issue 38: the 2026-07-28 caching hints on a server's cacheable answers
    "server-cache-hints",
    # issue 38: the members 2025-06-18 added to a completion request
    "server-completion-context",
    # issue 38: update notifications for a subscribed resource
    "server-resource-updated",
    # issue 38: what an agent CLI hands its model after a tool call the model asked for
    "client-tool-result",
    "client-tool-error",
    "client-tool-link",
    "client-structured-schema",
    "client-tool-answers",
    "client-session-reads",
    "client-completion",
    "client-template-pages",
    # issue 38: a subscription through an SDK, and the update its handler is handed
    "client-resource-subscribe",
    # issue 39: how a client ends the stdio server it started
    "client-shutdown",
    # issue 39: a server over Streamable HTTP, at the HTTP level
    "server-http-session",
    # issue 39: a client handed our server's URL, at the HTTP level
    "client-http-session",
    "client-http-expired",
    "client-http-json",
    "client-http-legacy",
    "client-http-call-stream",
    # issue 39: a client's string ids, its server's stderr and stray lines over stdio
    "client-stdio-lines",
    # issue 38: a host's requests through a proxy, against what the server sent
    "relay-prompt-get",
    "relay-resource-read",
    "relay-tool-result",
    "relay-completion",
    # issue 40: the protocol's utilities on a server (progress, cancellation, faulty lines,
    # list changes, _meta keys, annotated content, subscriptions/listen), and whether a
    # client asks for progress
    "server-progress",
    "server-cancel",
    "server-bad-messages",
    "server-list-changed",
    "server-meta-keys",
    "server-content-annotations",
    "server-listen",
    "client-progress",
    # issue 40: the protocol's utilities through a proxy (progress, cancellation, _meta, an
    # upstream's error)
    "relay-progress",
    "relay-cancel",
    "relay-meta",
    "relay-errors",
}


def test_the_issue_scenarios_ship() -> None:
    assert {s.id for s in load_scenarios()} == ISSUE_SCENARIOS


def test_every_ref_points_at_a_line_holding_its_quote(shared_spec: Path) -> None:
    checks = [c for s in load_scenarios() for c in s.checks]
    checks += common_checks() + common_checks("server") + common_checks("proxy")
    refs = [r for c in checks for r in c.refs]
    assert len(refs) > 20
    for ref in refs:
        path, line = ref["cite"].rsplit(":", 1)
        lines = (shared_spec / path).read_text(encoding="utf-8").splitlines()
        first, _, end = line.partition("-")
        last = int(end or first)
        assert 1 <= int(first) <= last <= len(lines), ref
        if "quote" in ref:  # a range quotes its lines as one text (the verifier's rule)
            cit = parse_citation(f"{ref['cite']} “{ref['quote']}”")
            result = verify(cit, Source(lines, "spec", None, None, True))
            # a draft page links the draft's schema where the dated page links its own: the
            # same words, found once link targets are set aside
            assert result.status in ("verified", "verified-normalised"), (ref, result.message)


def test_check_ids_are_unique_per_scenario() -> None:
    for scenario in load_scenarios():
        ids = [c.id for c in scenario.checks] + [c.id for c in common_checks()]
        assert len(ids) == len(set(ids)), scenario.id


def test_every_rule_is_used() -> None:
    common = common_checks() + common_checks("server") + common_checks("proxy")
    used = {c.rule for s in load_scenarios() for c in s.checks} | {c.rule for c in common}
    assert used == set(RULES)


BASE = """\
id: demo
title: Demo
description: A scenario for the loader tests.
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
      result: {verdict: pass, means: ok}
      error: {verdict: informational, means: error}
      silence: {verdict: fail, means: silence}
      closed: {verdict: informational, means: closed}
      not-asked: {verdict: informational, means: not asked}
      undeclared: {verdict: informational, means: undeclared}
      no-initialize: {verdict: error, means: "not run, because no initialize"}
      exited-before-initialize: {verdict: informational, means: exited}
      version-refused: {verdict: informational, means: refused}
    refs:
      - cite: "docs/specification/2024-11-05/basic/index.mdx:5-6"
        quote: "All messages between MCP clients and servers **MUST** follow the
          JSON-RPC 2.0 specification."
        from: "2024-11-05"
        until: "2025-11-25"
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "demo.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_base_scenario_loads(tmp_path: Path) -> None:
    assert load_scenario_file(_write(tmp_path, BASE)).checks[0].id == "answered"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("rule: request-answered", "rule: no-such-rule", "unknown rule"),
        (
            "      undeclared: {verdict: informational, means: undeclared}\n",
            "",
            "ungraded: undeclared;",
        ),
        ("verdict: pass", "verdict: great", "checks.0.outcomes.result.verdict"),
        ("label: roots", "label: other", "checks.0.with.step: no step is labelled 'roots'"),
        ('until: "2025-11-25"', 'until: "2024-01-01"', "is before"),
        ("{await: notifications/initialized,", "{wait: notifications/initialized,", "steps.0"),
        ("id: answered", "id: wire-json", "used twice"),
        ("{request: roots/list,", '{request: "",', "the step names no method"),
        ("steps:", "model: {call: {tool: x}}\nsteps:", "beside requires: [model]"),
    ],
)
def test_malformed_scenario(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in BASE
    path = _write(tmp_path, BASE.replace(old, new))
    with pytest.raises(CompareError) as err:
        load_scenario_file(path)
    assert str(path) in err.value.message
    assert message in err.value.message


SCRIPT = "host_session:\n  - {list: tools}\n  - {call: probe, arguments: {a: 1}}\nsteps:"


@pytest.mark.parametrize(
    ("script", "message"),
    [
        ("  - {list: tools, read: x://y}\n", "list and read: a request makes exactly one of"),
        ("  - {arguments: {}}\n", "no kind: a request makes exactly one of"),
        ("  - {read: x://y, arguments: {a: b}}\n", "arguments: only beside call or get_prompt"),
        ("  - {get_prompt: p, arguments: {n: 1}}\n", "a prompt's arguments are strings"),
        ("  - {list: everything}\n", "host_session.2"),
        ("  - {lst: tools}\n", "host_session.2"),
        ("  - {close: true}\n  - {list: tools}\n", "close ends the session, so it is the"),
        ("  - {close: false}\n", "host_session.2"),
    ],
)
def test_a_session_script_makes_one_known_request_an_item(
    tmp_path: Path, script: str, message: str
) -> None:
    """A scenario's host_session is checked against the host plan's request schema when it
    loads, with what that schema cannot say (one kind an item, arguments where they apply,
    close only last)."""
    good = BASE.replace("steps:", SCRIPT, 1)
    load_scenario_file(_write(tmp_path, good))
    with pytest.raises(CompareError, match=re.escape(message)):
        load_scenario_file(_write(tmp_path, good.replace("steps:", script + "steps:", 1)))


def test_a_session_script_belongs_to_a_client_scenario_and_its_checks_name_its_requests(
    tmp_path: Path,
) -> None:
    with pytest.raises(CompareError, match="requires: session without a host_session"):
        load_scenario_file(_write(tmp_path, BASE.replace("steps:", "requires: [session]\nsteps:")))
    server = BASE.replace("steps:", "side: server\n" + SCRIPT, 1)
    with pytest.raises(CompareError, match="host_session: only a client scenario's"):
        load_scenario_file(_write(tmp_path, server))
    check = """  - id: second
    title: second
    rule: host-step
    with: {request: "REQ"}
    expected: recorded
    outcomes:
      returned: {verdict: informational, means: returned}
      raised: {verdict: informational, means: raised}
      not-reached: {verdict: informational, means: not reached}
      no-record: {verdict: informational, means: no record}
    refs: []
"""
    good = BASE.replace("steps:", SCRIPT, 1) + check
    load_scenario_file(_write(tmp_path, good.replace("REQ", "1")))
    with pytest.raises(CompareError, match="host_session has 2 request"):
        load_scenario_file(_write(tmp_path, good.replace("REQ", "2")))
    with pytest.raises(CompareError, match="is not an index"):
        load_scenario_file(_write(tmp_path, good.replace("REQ", "-1")))


def test_proxy_scenario_has_upstream_steps_with_their_own_labels(tmp_path: Path) -> None:
    """A proxy scenario names the host's steps and the upstream's; the labels share one space
    (the rules find each step by label) and no other side may carry upstream steps."""
    up = "upstream_steps:\n  - {request: roots/list, label: ask, timeout_s: 5}\nchecks:"
    proxy = BASE.replace("steps:", "side: proxy\nsteps:", 1).replace("checks:", up, 1)
    with pytest.raises(CompareError, match="required for side: proxy"):
        load_scenario_file(_write(tmp_path, BASE.replace("steps:", "side: proxy\nsteps:", 1)))
    with pytest.raises(CompareError, match="only for side: proxy"):
        load_scenario_file(_write(tmp_path, BASE.replace("checks:", up, 1)))
    with pytest.raises(CompareError, match=r"upstream_steps\.0\.label: 'roots' used twice"):
        load_scenario_file(_write(tmp_path, proxy.replace("label: ask", "label: roots")))


def test_only_a_server_scenario_proposes_a_version_of_its_own(tmp_path: Path) -> None:
    """propose_version changes what the scripted client (a server cell's) puts in initialize;
    the peer of a client cell proposes nothing, so a client scenario may not carry it."""
    with pytest.raises(CompareError, match="propose_version: only for side: server"):
        load_scenario_file(
            _write(tmp_path, BASE.replace("steps:", 'propose_version: "2099-01-01"\nsteps:', 1))
        )


def test_only_the_scripted_clients_requests_carry_a_meta_of_ours(tmp_path: Path) -> None:
    """A step's meta rewrites the per-request _meta the scripted client sends; the peer of a
    client scenario sends requests of its own, where the key would mean nothing."""
    with pytest.raises(CompareError, match=r"steps\.\d+\.meta: only the scripted client's"):
        load_scenario_file(
            _write(tmp_path, BASE.replace("label: roots,", "label: roots, meta: {x: null},", 1))
        )


def test_a_release_step_needs_a_held_method_and_the_peer(tmp_path: Path) -> None:
    """hold_replies/release is the peer's: a release names a held method, and only the steps
    the peer plays carry one (a proxy scenario's upstream_steps, not the host's steps)."""
    held = BASE.replace("steps:", "hold_replies: [tools/call]\nsteps:", 1)
    release = "  - {release: tools/call, label: answer}\nchecks:"
    assert load_scenario_file(_write(tmp_path, held.replace("checks:", release, 1)))
    with pytest.raises(CompareError, match=r"steps\.2\.release: 'tools/call' is not in hold_"):
        load_scenario_file(_write(tmp_path, BASE.replace("checks:", release, 1)))
    up = "upstream_steps:\n  - {request: roots/list, label: ask, timeout_s: 5}\n" + release
    # the host's steps are the scripted client's: it sends client requests, not roots/list
    held = held.replace("{request: roots/list, label: roots", "{request: tools/list, label: roots")
    proxy = held.replace("steps:", "side: proxy\nsteps:", 1).replace("checks:", up, 1)
    assert load_scenario_file(_write(tmp_path, proxy))
    ask = "upstream_steps:\n  - {request: roots/list, label: ask, timeout_s: 5}\nchecks:"
    on_host = "  - {release: tools/call, label: answer}\n" + ask  # in the host's steps
    host_side = held.replace("steps:", "side: proxy\nsteps:", 1).replace("checks:", on_host, 1)
    with pytest.raises(CompareError, match=r"steps\.2\.release: only the peer plays"):
        load_scenario_file(_write(tmp_path, host_side))


def test_fs_and_race_steps_belong_to_server_scenarios_with_a_fixture(tmp_path: Path) -> None:
    """fs and race steps change the cell's fixture: a client scenario (or a server one without
    a fixture) is refused, and a race must name the scenario's own operation and places."""
    mkdir = "  - {fs: {mkdir: later}, label: make}\nchecks:"
    with pytest.raises(CompareError, match=r"steps\.2\.fs: only a server scenario"):
        load_scenario_file(_write(tmp_path, BASE.replace("checks:", mkdir, 1)))
    swap = (
        Path(__file__).resolve().parents[2] / "compare/exchange/scenarios/server-symlink-swap.yaml"
    )
    text = swap.read_text(encoding="utf-8")
    assert load_scenario_file(_write(tmp_path, text.replace("id: server-symlink-swap", "id: demo")))
    bad = text.replace("id: server-symlink-swap", "id: demo").replace(
        "place: link,", "place: nowhere,"
    )
    with pytest.raises(CompareError, match=r"race\.place: 'nowhere' is not one of probe\.places"):
        load_scenario_file(_write(tmp_path, bad))


def test_a_server_scenario_names_its_operations_and_loads_them_whole(tmp_path: Path) -> None:
    """probe.operations names entries of _operations.yaml: loading puts each definition in
    place, in the scenario's order, and plants the files its tools need in every folder."""
    from compare.exchange._operations import load_operations

    known = load_operations()
    stale = load_scenario_file(SCENARIOS / "server-stale.yaml")
    ops = stale.raw["probe"]["operations"]
    assert list(ops)[:3] == ["read", "info", "list"]
    assert ops["upload"] == known["upload"]
    assert "files" not in ops["best-practices"]
    planted = stale.raw["fixture"]["folder_files"]
    assert set(planted) == set(known["best-practices"]["files"]) | set(known["modernize"]["files"])
    text = (SCENARIOS / "server-stale.yaml").read_text(encoding="utf-8")
    demo = text.replace("id: server-stale", "id: demo")

    def listing(names: str) -> str:
        return re.sub(r"operations: \[[^\]]*\]", f"operations: [{names}]", demo, count=1)

    with pytest.raises(CompareError, match=r"probe\.operations\.1: 'nowhere' is not a probe"):
        load_scenario_file(_write(tmp_path, listing("read, nowhere")))
    # a folder of scenarios may bring its own operations file; a clash of planted files fails
    (tmp_path / "_operations.yaml").write_text(
        "operations:\n"
        "  read: {match: read, arguments: {path: '{file}'}, files: {a.txt: one}}\n"
        "  info: {match: stat, arguments: {path: '{file}'}, files: {a.txt: two}}\n",
        encoding="utf-8",
    )
    loaded = load_scenario_file(_write(tmp_path, listing("read")))
    assert loaded.raw["fixture"]["folder_files"] == {"a.txt": "one"}
    with pytest.raises(CompareError, match=r"'info' needs a\.txt with other text"):
        load_scenario_file(_write(tmp_path, listing("read, info")))


def _second(follow: str) -> str:
    """BASE's check again, as a second check ``again`` that follows the first."""
    check = "  - id: answered" + BASE.split("  - id: answered", 1)[1]
    check = check.replace("id: answered", "id: again").replace("title: answered", "title: again")
    check = check.replace("    outcomes:\n", f"    follows: [{follow}]\n    outcomes:\n", 1)
    extra = '      follows: {verdict: informational, means: "graded once, at check answered"}\n'
    return check.replace("    refs:\n", extra + "    refs:\n", 1)


_GOOD = '{check: answered, when: [silence], own: [silence], reads: follows, why: "one silence"}'


@pytest.mark.parametrize(
    ("follow", "message"),
    [
        (_GOOD, None),
        (_GOOD.replace("check: answered", "check: again"), "not an earlier check"),
        (_GOOD.replace("when: [silence]", "when: [nope]"), "checks.1.follows.0.when: ['nope']"),
        (_GOOD.replace("own: [silence]", "own: [nope]"), "checks.1.follows.0.own: ['nope']"),
        (_GOOD.replace("reads: follows", "reads: result"), "ungraded: -; unknown: follows"),
    ],
)
def test_a_check_follows_only_an_earlier_one_with_outcomes_both_grade(
    tmp_path: Path, follow: str, message: str | None
) -> None:
    """``follows`` names an earlier check and outcomes both checks grade; the outcome it reads
    is graded by the check even though its rule never names it."""
    text = BASE + _second(follow)
    path = _write(tmp_path, text)
    if message is None:
        check = load_scenario_file(path).checks[1]
        assert check.follows[0]["reads"] == "follows"
        return
    with pytest.raises(CompareError) as err:
        load_scenario_file(path)
    assert message in err.value.message


def test_a_modern_server_scenario_may_read_the_discovery_probe_by_its_label(
    tmp_path: Path,
) -> None:
    """From 2026-07-28 the scripted client opens with server/discover, labelled "discover", so
    a server scenario played only there may name it; one that also plays earlier, where no
    probe is sent, may not, and no step of its own may take the label."""
    text = (
        "id: demo\ntitle: t\ndescription: d\nside: server\n"
        'revisions: {from: "FROM", until: null}\n'
        "steps:\n  - {request: tools/list, label: LABEL, timeout_s: 5}\n"
        "checks:\n  - id: answered\n    title: t\n    rule: server-answered\n"
        "    with: {step: discover}\n    expected: e\n    outcomes:\n"
        + "".join(
            f"      {o}: {{verdict: informational, means: m}}\n"
            for o in ("result", "error", "silence", "closed", "no-value")
        )
        + "    refs: []\n"
    )
    modern = text.replace("FROM", "2026-07-28")
    assert load_scenario_file(_write(tmp_path, modern.replace("LABEL", "list"))).id == "demo"
    with pytest.raises(CompareError, match="no step is labelled 'discover'"):
        load_scenario_file(
            _write(tmp_path, text.replace("FROM", "2025-11-25").replace("LABEL", "list"))
        )
    with pytest.raises(CompareError, match="the label 'discover' is the probe's"):
        load_scenario_file(_write(tmp_path, modern.replace("LABEL", "discover")))


def test_what_the_peer_serves_is_for_a_client_or_a_proxys_upstream(tmp_path: Path) -> None:
    """serves is what the peer answers with when it is the server: to a client under test, or
    behind a proxy as its upstream. A server scenario's server is the target, so it may not
    carry it."""
    served = "serves: {prompts: [{name: p, messages: []}]}\nsteps:"
    up = "upstream_steps:\n  - {await: prompts/get, label: got, timeout_s: 5}\nchecks:"
    proxy = BASE.replace("steps:", f"side: proxy\n{served}", 1).replace("checks:", up, 1)
    proxy = proxy.replace("{request: roots/list,", "{request: prompts/list,", 1)
    loaded = load_scenario_file(_write(tmp_path, proxy))
    assert loaded.raw["serves"]["prompts"][0]["name"] == "p"
    server = BASE.replace("steps:", f"side: server\n{served}", 1)
    with pytest.raises(CompareError, match="serves: only for side: client or proxy"):
        load_scenario_file(_write(tmp_path, server))
