"""The harness: run each cell's client against the peer, then judge and write ``verdict.json``.

Each cell runs in a staging folder beside its final place and is swapped in at the end, so a
crash, a kill or a misbehaving client can cost at most that cell's new result — never an
earlier result, and never another cell's. Any exception inside a cell becomes that cell's
``error`` verdict; an interruption (``compare._guard.Interrupted``) drops the cell's staging
folder and passes on, and the run's watchdog removes it (and the cell's scratch folder) when
the harness is killed outright.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from compare import _atomic, _guard
from compare._cores import usable_cores
from compare._errors import CompareError
from compare._paths import tools_dir
from compare.exchange._host_plan import host_refusal, keep_record, write_host_plan
from compare.exchange._targets import Expansion
from compare.judge import _validate
from compare.judge._judge import MODEL_LOG, judge_checks, overall, read_done
from compare.models import first_modern
from compare.peer import is_modern
from compare.pin import release_order
from compare.play import _integrity, _plays, _schedule, _url_client
from compare.play._cellenv import cell_env, write_files
from compare.play._cells import Cell
from compare.play._proc import Ended, run_process
from compare.play._proxy import (
    LISTEN_LOG,
    UPSTREAM_PLAN,
    host_plan,
    http_end,
    merge_legs,
    proxy_ports,
    upstream_plan,
)
from compare.play._server_plan import client_argv, server_plan
from compare.play._swap import swap_in

HERE = Path(__file__).resolve().parent
#: The peer is a folder with a ``__main__.py``: ``python -I -S <folder>`` runs it (see there).
PEER_DIR = HERE.parent / "peer"
HOSTS_DIR = HERE.parent / "hosts"
#: The workspace folder's name: a space, a '#' and a non-ASCII letter, each a classic URI trap.
WORKSPACE_NAME = "web #staging é"
#: No window after the peer's steps unless the scenario declares one (``linger_s`` with its
#: ``linger_why``): the peer answers what already arrived and closes, so the cell ends when
#: its outcome is decided instead of sitting out a fixed wait.
PEER_LINGER_S = 0.0


@dataclass(frozen=True)
class RunSettings:
    """What every cell of one run shares."""

    results: Path
    spec_commit: str
    known_revisions: list[str]
    force: bool = False
    rejudge: bool = False
    tools: Path | None = None
    #: Plays per cell (``--repeat``): a cached cell with fewer is given the rest.
    repeat: int = 1
    #: ``--settle N``: a newly played fail, non-strict or unstable cell is played until it
    #: has N plays (``mcp-compare compare`` asks for ``_plays.SETTLE``).
    settle: int = 1
    #: Cells that may be starting at once, machine-wide (``_schedule``); None: every core.
    starts: int | None = None


def peer_argv(plan_path: Path) -> list[str]:
    """How a client starts the peer: this interpreter, isolated and without site, by folder."""
    return [sys.executable, "-I", "-S", str(PEER_DIR), "--plan", str(plan_path)]


def _iso_now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _base_verdict(cell: Cell, key: str) -> dict[str, Any]:
    return {
        "format": 1,
        "target": cell.target.id,
        "target_name": cell.target.name,
        "target_version": cell.target.version,
        "variant": cell.variant,
        "scenario": cell.scenario.id,
        "revision": cell.revision,
        "key": key,
        "play_key": cell.play_key(),
        "checks": [],
        "client_info": None,
        "client_protocol_version": None,
        "client_capabilities": None,
        "negotiated_revision": None,
        "started_at": _iso_now(),
        "duration_s": 0.0,
        "process": None,
        "files": {
            "transcript": "transcript.jsonl",
            "stdout": "client.stdout",
            "stderr": "client.stderr",
        },
    }


def newest_dated(known: list[str]) -> str:
    """The newest dated revision known (what the draft speaks on the wire); ``draft`` itself
    when no dated revision is pinned."""
    return max((r for r in known if r != "draft"), default="draft", key=release_order)


def _plan(cell: Cell, workspace: Path, control: Path, known: list[str]) -> dict[str, Any]:
    scenario = cell.scenario.raw
    # The era boundary comes from the pins (the first revision without initialize); the peer
    # reads it from the plan, so a new revision that moves it needs no code edit.
    boundary = first_modern(known)
    modern = is_modern(cell.revision, boundary)
    answer = scenario.get("answer_revision", cell.revision) if modern else cell.revision
    step_max = sum(
        float(s.get("timeout_s", 10)) + float(s.get("observe_s", 0)) for s in cell.scenario.steps
    ) + float((cell.target.raw.get("serve_until") or {}).get("timeout_s", 0))
    plan: dict[str, Any] = {
        "format": 1,
        "scenario": cell.scenario.id,
        "revision": cell.revision,
        "answer_revision": answer,
        "first_modern": boundary,
        # The draft speaks the newest dated version on the wire (2026-07-28 at the pinned commit).
        "wire_version": newest_dated(known) if cell.revision == "draft" else cell.revision,
        "target": cell.target.id,
        "variant": cell.variant,
        # The target says so when an error exit before the first byte is what this variant
        # measures (an SDK refusing its own documented input), not a harness problem.
        "start_failure_is_finding": cell.variant
        in (cell.target.raw.get("start_failure_findings") or []),
        "workspace": str(workspace),
        "control": str(control),
        "transcript": "transcript.jsonl",
        "done": "done.json",
        "server_info": {"name": "mcp-compare-peer", "version": HARNESS_PEER_VERSION},
        # The peer offers tools, plus what the scenario adds (logging, for one that sends log
        # messages: a server that does must declare it).
        "capabilities": {"tools": {}, **(scenario.get("server_capabilities") or {})},
        "tools": [
            {
                "name": "probe",
                "description": "Answers ok; exists so hosts have a tool to call.",
                "inputSchema": {"type": "object", "properties": {}},
            }
        ],
        "steps": cell.scenario.steps,
        # what the peer serves beyond the probe tool (a client scenario's data): lists in
        # pages, tool results, resources, prompts, completions
        **({"serves": scenario["serves"]} if scenario.get("serves") else {}),
        "linger_s": float(scenario.get("linger_s", PEER_LINGER_S)),
        "max_line_bytes": 1 << 20,
        "max_lines": 20000,
        "hard_deadline_s": min(cell.target.timeout_s, step_max + 30) + 5,
    }
    if cell.target.raw.get("serve_until"):
        # a client that cannot end while its own start-up requests are pending (target data)
        plan["serve_until"] = cell.target.raw["serve_until"]
    if scenario.get("peer_http"):
        # how our end serves a client handed its URL (``compare.play._url_client``)
        plan["peer_http"] = dict(scenario["peer_http"])
    if scenario.get("hold_replies"):
        # replies the peer keeps back until a release step (a request pending on purpose)
        plan["hold_replies"] = list(scenario["hold_replies"])
    if scenario.get("mrtr"):
        mrtr = scenario["mrtr"]
        asked: dict[str, Any] = {"method": mrtr["request"]}
        if mrtr.get("params") is not None:
            asked["params"] = mrtr["params"]
        plan["mrtr"] = {
            "key": mrtr["key"],
            # Opaque to the client; '+', '/' and '=' catch clients that re-encode it.
            "request_state": "mcpc1." + secrets.token_urlsafe(12) + "+/=",
            # what the peer embeds, as the InputRequiredResult's inputRequests map
            "input_requests": {mrtr["key"]: asked},
        }
    return plan


HARNESS_PEER_VERSION = "0.1.0"


class PeerWatch:
    """Whether the peer a stdio client started is gone without its account: the process the
    newest start in its record names no longer runs (or is a zombie its client has not
    reaped), and no new start came for ``GRACE_S``. A client that kills its server and keeps
    running is then ended as lingering, not waited on until its timeout; a client that starts
    its server again within the grace is left alone."""

    GRACE_S = 2.0

    def __init__(self, stage: Path) -> None:
        self.path = stage / "transcript.jsonl"
        self.offset = 0
        self.pid: int | None = None
        self.gone_since: float | None = None
        self.checked = 0.0

    def _newest_start(self) -> None:
        """Read what the record gained since the last look, for start notes."""
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return
        whole = chunk[: chunk.rfind(b"\n") + 1]  # a line still being written waits
        self.offset += len(whole)
        for line in whole.splitlines():
            if b'\\"event\\": \\"start\\"' not in line:  # the note's JSON, escaped in "raw"
                continue
            try:
                note = json.loads(json.loads(line)["raw"])
                pid = int(note["pid"])
            except (ValueError, KeyError, TypeError):
                continue
            if pid != self.pid:
                self.pid, self.gone_since = pid, None

    def __call__(self) -> bool:
        now = time.monotonic()
        if now - self.checked < 0.25:
            return self.gone_since is not None and now - self.gone_since >= self.GRACE_S
        self.checked = now
        self._newest_start()
        if self.pid is None:
            return False
        try:
            stat = Path(f"/proc/{self.pid}/stat").read_text()
            alive = stat.rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            alive = False
        if alive:
            self.gone_since = None
            return False
        if self.gone_since is None:
            self.gone_since = now
        return now - self.gone_since >= self.GRACE_S


def _run_client(
    cell: Cell, stage: Path, settings: RunSettings, slot: _schedule.StartSlot
) -> dict[str, Any]:
    """Play one cell into ``stage`` (holding its start ``slot`` until the client has
    started); returns the process facts for the verdict."""
    target = cell.target
    token = "mcpc-" + secrets.token_hex(8)
    tmp = Path(tempfile.mkdtemp(prefix=f"{token}-"))
    scratch = _guard.Watch(paths=[tmp])
    # The model endpoint (a target with model_endpoint: true) is a thread of this process,
    # stopped when the cell ends, however it ends: it cannot outlive the cell.
    serving = contextlib.ExitStack()
    peer_up = contextlib.ExitStack()  # our peer over HTTP, for a client that takes a URL
    try:
        model = None
        if target.model_endpoint:
            from compare.hosts.model_endpoint import ToolCall
            from compare.hosts.model_endpoint import serving as serve_model

            asked = (cell.scenario.raw.get("model") or {}).get("call")
            call = None
            if asked:
                arguments = dict(asked.get("arguments") or {})
                call = ToolCall(str(asked["tool"]), arguments, target.model_bridge)
            think = target.model_think_s
            model = serving.enter_context(serve_model(stage / MODEL_LOG, call=call, think_s=think))
        named = (target.raw.get("workspace") or {}).get("name") or WORKSPACE_NAME
        home, workspace, control = tmp / "home", tmp / str(named), tmp / "control"
        for folder in (home, workspace, control, tmp / "tmp", tmp / "run"):
            folder.mkdir(parents=True)
        plan_path = stage / "plan.json"
        # A proxy's upstream is the peer, with a plan of its own; the host is our client.
        peer_plan = stage / UPSTREAM_PLAN if target.side == "proxy" else plan_path
        tools = settings.tools or tools_dir()
        ports = proxy_ports(target) if target.side == "proxy" or target.serves_http else {}
        exp = Expansion(
            server_argv=[] if target.side == "server" else peer_argv(peer_plan),
            **ports,
            workspace=workspace,
            home=home,
            tools=tools,
            hosts=HOSTS_DIR,
            control=control,
            cell=stage,
            own=target.npm_tree(tools),
            node=target.node_binary(tools),
            # What an SDK host declares and answers: its variant's fragment, for this cell.
            host_plan=write_host_plan(
                target.variants,
                cell.variant,
                stage,
                workspace,
                control,
                cell.scenario.raw.get("host_session") if target.scripts_session else None,
            ),
            model_url=model.url if model else "",
        )
        version = (
            newest_dated(settings.known_revisions) if cell.revision == "draft" else cell.revision
        )
        boundary = first_modern(settings.known_revisions)
        if target.side == "server":
            # Our scripted client is launched; it starts the target's server command itself.
            plan = server_plan(cell, exp, version, boundary)
            transport = http_end(cell, exp)
            if transport is not None:  # a server over HTTP: where it listens
                plan["transport"] = transport
                plan["init_timeout_s"] = 20
                if not target.external:  # a server we start: what it asked listen() for
                    plan["listen_log"] = str(stage / LISTEN_LOG)
            _atomic.write_json(plan_path, plan)
            launch = client_argv(plan_path)
        elif target.side == "proxy":
            # Both ends are ours: the scripted client starts the proxy, the proxy the peer.
            base = _plan(cell, workspace, control, settings.known_revisions)
            _atomic.write_json(peer_plan, upstream_plan(base, cell, exp))
            _atomic.write_json(plan_path, host_plan(cell, exp, version, boundary, peer_plan))
            launch = client_argv(plan_path)
        else:
            client_plan = _plan(cell, workspace, control, settings.known_revisions)
            _atomic.write_json(plan_path, client_plan)
            if target.connects_by_url:
                # our peer listens before the client starts, and outlives it (its own block)
                peer = _url_client.serving(client_plan, stage, peer_argv)
                serving.callback(peer_up.close)
                try:
                    exp = replace(exp, url=peer_up.enter_context(peer))
                except RuntimeError as err:
                    return {"timeout_s": target.timeout_s, "ends": target.ends,
                            "setup_failed": str(err)}  # fmt: skip
            launch = exp.argv(target.argv)
        env = cell_env(target, exp, token, tmp, tools)
        write_files(target, exp)
        # The stage folder marks every process of a proxy's chain (a proxy may start the
        # peer with a scrubbed environment, but its command line names the peer's plan).
        markers = [token, str(plan_path), str(stage)]
        process: dict[str, Any] = {"timeout_s": target.timeout_s, "ends": target.ends}
        for index, template in enumerate(target.setup):
            ended = run_process(
                exp.argv(template),
                cwd=workspace,
                env=env,
                stdout=stage / f"setup-{index}.stdout",
                stderr=stage / f"setup-{index}.stderr",
                timeout_s=target.timeout_s,
                markers=markers,
                should_end=lambda: False,
                ends_self=True,
            )
            if ended.exit_code != 0:
                process["setup_failed"] = (
                    f"setup command {index} ended with {ended.exit_code} ({ended.ended_by}); "
                    f"see setup-{index}.stderr"
                )
                return process
        done = stage / (_url_client.PEER_DONE if target.connects_by_url else "done.json")

        killed = PeerWatch(stage)

        def peer_over() -> bool:
            # the peer's account is written, or (stdio) the client killed it before it could
            # write one: either way nothing more comes, and a client still running is lingering
            return done.exists() or (not target.connects_by_url and killed())

        ended = run_process(
            launch,
            cwd=workspace,
            env=env,
            stdout=stage / "client.stdout",
            stderr=stage / "client.stderr",
            timeout_s=target.timeout_s,
            markers=markers,
            should_end=slot.watching(peer_over),
            ends_self=target.ends == "self",
            drain_s=target.exit_s,
            # The judge's models load while the client runs (it works on another core).
            on_start=lambda: _validate.warm(cell.revision),
        )
        process.update(_process_facts(ended))
        # What the SDK handed our host for each scripted request (hosts/README.md): kept
        # before the control folder goes with the rest of the cell's scratch.
        if target.variants:
            keep_record(control, stage)
        if model:
            process["model_requests"] = model.requests
        refused = host_refusal(ended.exit_code, stage) if target.variants else None
        if refused:  # our host's doing, not the SDK's: an error, never a finding
            process["setup_failed"] = refused
        if target.side == "proxy":
            merge_legs(stage)
        if target.connects_by_url:
            peer_up.close()  # ended, its sessions' accounts written: one transcript of them
            _url_client.merge_sessions(stage)
        return process
    finally:
        serving.close()
        shutil.rmtree(tmp, ignore_errors=True)
        scratch.release()


def _process_facts(ended: Ended) -> dict[str, Any]:
    return {
        "exit_code": ended.exit_code,
        "ended_by": ended.ended_by,
        "sigkill": ended.sigkill,
        "leftover_killed": ended.leftover_killed,
        "client_s": round(ended.duration_s, 3),
    }


def _judge_into(cell: Cell, folder: Path, verdict: dict[str, Any], settings: RunSettings) -> None:
    plan = json.loads((folder / "plan.json").read_text(encoding="utf-8"))
    process = verdict.get("process") or {}
    checks, facts = judge_checks(
        cell.scenario, folder, plan, settings.known_revisions, process or None
    )
    verdict["checks"] = checks
    verdict.update({k: v for k, v in facts.items() if k != "wire_lines"})
    verdict["peer_done"] = read_done(folder)
    verdict["verdict"], verdict["reason"] = overall(checks, process)


def run_cell(cell: Cell, settings: RunSettings) -> dict[str, Any]:
    """Run (or reuse, or re-judge, or add plays to) one cell and return its verdict; never
    raises for the cell."""
    final = cell.folder(settings.results)
    key = cell.key(settings.spec_commit)
    stored = _integrity.inspect(final)
    existing = stored.verdict
    reason = cell.not_run_reason()
    if reason:
        # Checked before anything stored is reused or judged again: a cell that may not be
        # played (a target's new `not_run`, a lacked feature) keeps no earlier play either.
        same = existing or {}
        unchanged = same.get("verdict") == "not-run" and same.get("key") == key
        if unchanged and not stored.damage and _only_verdict(final):
            same["cached"] = True
            return same
        verdict = _base_verdict(cell, key)
        verdict.update(verdict="not-run", reason=reason)
        _store_not_run(verdict, final)
        return verdict
    # A stored cell is reused only when it is still what was written (``_integrity``); a
    # judge-only change, or a damaged verdict over intact files, is judged again.
    step, refused = _integrity.next_step(stored, key, cell.play_key(), final, settings)
    had = _plays.count(existing)
    if step == "cached" and existing is not None:
        if existing.get("verdict") == "not-run" or had >= settings.repeat:
            existing["cached"] = True
            return existing
        step = "extend"  # cached, with fewer plays than --repeat asks for: play the rest
    if step == "rejudge":
        return _rejudge(cell, final, key, existing, settings)
    verdict = _base_verdict(cell, key)
    if step == "refuse":
        verdict.update(verdict="error", reason=f"not judged again, because {refused}")
        return verdict
    want = settings.repeat
    if stored.damage and existing is not None and existing.get("key") == key:
        want = max(want, had)  # a damaged cell is played again with as many plays as it had
    _guard.check()
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=f".{final.name}.stage-", dir=final.parent))
    except OSError as err:
        raise _atomic.storage_error(err, final.parent) from err
    watch = _guard.Watch(paths=[stage])
    try:
        plays: list[dict[str, Any]] = []
        if step == "extend":
            shutil.copytree(final, stage, symlinks=True, dirs_exist_ok=True)
            plays = [_judged(cell, stage, n, key, existing, settings) for n in range(1, had + 1)]
        return _play(cell, settings, key, plays, want, stage, final)
    except BaseException:
        # Interrupted: a half-played cell is never swapped in; the old result stays.
        shutil.rmtree(stage, ignore_errors=True)
        raise
    finally:
        watch.release()


def _only_verdict(final: Path) -> bool:
    """Whether the cell's folder holds its verdict and nothing else."""
    try:
        return [p.name for p in final.iterdir()] == ["verdict.json"]
    except OSError:
        return False


def _store_not_run(verdict: dict[str, Any], final: Path) -> None:
    """Store a not-run verdict as the cell's only file. A folder that still holds an earlier
    play is swapped for a fresh one: its transcript would otherwise be judged again later and
    publish a verdict for a cell that may not be played."""
    sealed = _integrity.seal(verdict, None)
    if not final.exists() or _only_verdict(final):
        _atomic.write_json(final / "verdict.json", sealed)
        return
    try:
        stage = Path(tempfile.mkdtemp(prefix=f".{final.name}.stage-", dir=final.parent))
    except OSError as err:
        raise _atomic.storage_error(err, final.parent) from err
    try:
        _atomic.write_json(stage / "verdict.json", sealed)
        swap_in(stage, final)
    except (OSError, CompareError) as err:
        shutil.rmtree(stage, ignore_errors=True)
        raise _atomic.storage_error(err, final) from err


def _play(
    cell: Cell,
    settings: RunSettings,
    key: str,
    plays: list[dict[str, Any]],
    want: int,
    stage: Path,
    final: Path,
) -> dict[str, Any]:
    """Play the cell into ``stage`` until it holds ``want`` plays (then, with ``--settle``,
    until a doubtful one holds that many), and swap it in sealed."""
    kept = len(plays)

    def more() -> bool:
        if plays and plays[-1].get("verdict") == "error":
            return False  # the harness did not reach a verdict: the next run plays it again
        if len(plays) < want:
            return True
        doubtful = _plays.combine(plays).get("verdict") in _plays.DOUBTFUL
        return len(plays) < settings.settle and doubtful

    while more():
        folder = _plays.play_folder(stage, len(plays) + 1)
        folder.mkdir(parents=True, exist_ok=True)
        plays.append(_play_once(cell, settings, _base_verdict(cell, key), folder))
    verdict = _plays.combine(plays)
    try:
        _atomic.require_space(stage)  # a full disk cut the files short: not a finding
        _atomic.write_json(stage / "verdict.json", _integrity.seal(verdict, stage))
        swap_in(stage, final)
    except (OSError, CompareError) as err:
        # A full disk or a read-only results folder stops the run, naming the path; the
        # cell stored before (if any) is left as it was.
        shutil.rmtree(stage, ignore_errors=True)
        raise _atomic.storage_error(err, final) from err
    replayed = len(plays) - max(want, kept)
    if replayed > 0:
        verdict["replayed"] = replayed  # in memory only: the run's summary counts them
    return verdict


def _play_once(
    cell: Cell, settings: RunSettings, verdict: dict[str, Any], folder: Path
) -> dict[str, Any]:
    """One play of the cell into ``folder``: the client run, its facts and its judgement.

    The play waits for a start slot first (``_schedule``); its time starts once it has one,
    and the slot goes to the next cell once the client has spoken."""
    slot = _schedule.cell_slot(cell, folder)
    slot.take(settings.starts or usable_cores())
    started = time.monotonic()
    try:
        verdict["process"] = _run_client(cell, folder, settings, slot)
        slot.release()
        verdict["duration_s"] = round(time.monotonic() - started, 3)
        facts = {k: verdict[k] for k in _integrity.PLAY_FACTS}
        _atomic.write_json(folder / _integrity.FACTS, facts)
        _judge_into(cell, folder, verdict, settings)
    except Exception as err:  # one cell's crash is that cell's verdict, not the run's
        verdict.update(
            verdict="error",
            reason=f"harness error in this cell: {type(err).__name__}: {err}",
            duration_s=round(time.monotonic() - started, 3),
        )
    finally:
        slot.finish()
    return verdict


def _judged(
    cell: Cell,
    final: Path,
    number: int,
    key: str,
    existing: dict[str, Any] | None,
    settings: RunSettings,
) -> dict[str, Any]:
    """Play ``number`` of a stored cell judged again from its own files (no client runs)."""
    folder = _plays.play_folder(final, number)
    verdict = _base_verdict(cell, key)
    if existing:
        records = existing.get("plays")
        mine = records[number - 1] if isinstance(records, list) and len(records) >= number else {}
        told = mine if isinstance(mine, dict) and number > 1 else existing
        for name in ("started_at", "duration_s", "process"):
            verdict[name] = told.get(name)
        verdict["play_key"] = existing.get("play_key")
    # The play's facts as its own file recorded them (checked against the verdict's record
    # before a re-judge), over what a possibly edited verdict says.
    verdict.update(_integrity.play_facts(folder))
    if not (folder / "transcript.jsonl").is_file() or not (folder / "plan.json").is_file():
        verdict.update(verdict="error", reason=f"play {number} has no transcript to judge")
        return verdict
    try:
        _judge_into(cell, folder, verdict, settings)
    except Exception as err:
        verdict.update(verdict="error", reason=f"re-judging failed: {type(err).__name__}: {err}")
    return verdict


def _rejudge(
    cell: Cell, final: Path, key: str, existing: dict[str, Any] | None, settings: RunSettings
) -> dict[str, Any]:
    if not (final / "transcript.jsonl").is_file() or not (final / "plan.json").is_file():
        if existing:
            existing["cached"] = True
            return existing
        verdict = _base_verdict(cell, key)
        verdict.update(verdict="not-run", reason="not run, because --rejudge found no transcript")
        return verdict
    numbers = range(1, max(1, _plays.count(existing)) + 1)
    verdict = _plays.combine([_judged(cell, final, n, key, existing, settings) for n in numbers])
    verdict["rejudged_at"] = _iso_now()
    try:
        _atomic.write_json(final / "verdict.json", _integrity.seal(verdict, final))
    except (OSError, CompareError) as err:
        raise _atomic.storage_error(err, final / "verdict.json") from err
    return verdict


def run_cells(
    cells: list[Cell],
    settings: RunSettings,
    *,
    jobs: int = 1,
    on_done: Callable[[Cell, dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Run every cell, ``jobs`` in flight at once, of which at most one per core (never more
    than ``jobs``) is starting (``_schedule``); returns the verdicts in the order of
    ``cells``. ``jobs`` 1 plays them one after another."""
    results: list[dict[str, Any] | None] = [None] * len(cells)
    settings = replace(settings, starts=min(jobs, settings.starts or usable_cores()))

    def one(index: int) -> None:
        verdict = run_cell(cells[index], settings)
        results[index] = verdict
        if on_done is not None:
            on_done(cells[index], verdict)

    if jobs <= 1:
        for i in range(len(cells)):
            one(i)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, range(len(cells))))
    _integrity.save_intact()
    return [r for r in results if r is not None]
