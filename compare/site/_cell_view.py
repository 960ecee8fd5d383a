"""What an evidence (cell) page says in words: for a reader, not as the harness keeps it.

The harness names a cell by its ids (target, version, scenario, revision, variant) and keeps
the facts of the side it measured from: what the client under test sent. A reader arriving
from a square of a table wants something else: which program this is, by the name they know
it by; what the scenario tests, in a sentence; what was asked, what came back and why that is
the verdict; the facts of the side the cell is about (a server's ``serverInfo``, not four
dashes where a client's ``clientInfo`` would be); and the way back to the rows the cell is
evidence for. This module works those out from the cell, its scenario file, its transcript
and ``build/rows.json``; the cell template only lays them out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from compare.site._cells import Cell, Check, Transcript
from compare.site._inputs import Row, SiteData
from compare.site._strip import display_name

#: A variant's name → how a title says it. The names are ids of ``hosts/variants.yaml`` and
#: of the target files; one not listed here is shown as its name with dashes as spaces.
#: ``default`` is a target's only way of running, so a title says nothing about it.
VARIANT_WORDS = {
    "default": "",
    "roots": "roots declared",
    "no-roots": "no client features declared",
    "roots-documented": "roots as its documentation writes them",
    "elicitation": "elicitation accepted",
    "elicitation-decline": "elicitation declined",
    "elicitation-cancel": "elicitation cancelled",
    "sampling": "sampling answered",
}
#: The longest page title ``safe_title`` keeps: a longer one is cut there, which would cut
#: the revision off the end, so the scenario's words are shortened first.
TITLE_LIMIT = 120
#: Requests whose answer says who a server is (the handshake, and 2026-07-28's discovery).
_HELLO = ("initialize", "server/discover")
_SERVER_INFO_META = "io.modelcontextprotocol/serverInfo"


def variant_words(variant: str) -> str:
    """A variant as a title says it ("" for none or the only one)."""
    if not variant:
        return ""
    return VARIANT_WORDS.get(variant, variant.replace("-", " "))


def scenario_words(scenario: dict[str, object], name: str) -> str:
    """What a scenario tests, in words: its title, else the first sentence of its
    description, else its name with dashes as spaces (a cell whose scenario file is gone)."""
    title = " ".join(str(scenario.get("title") or "").split())
    if title:
        return title
    text = " ".join(str(scenario.get("description") or "").split())
    if text:
        return re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].rstrip(".")
    return name.replace("-", " ")


def _shorten(text: str, room: int) -> str:
    """``text`` cut at a word boundary to fit ``room`` characters, ``...`` marking the cut
    (``…`` is no character ``safe_title`` keeps)."""
    if len(text) <= room:
        return text
    cut = text[: max(room - 3, 1)].rsplit(" ", 1)[0].rstrip(" ,;:")
    return f"{cut}..."


@dataclass(frozen=True)
class Title:
    """A cell page's title: the heading in full, the page title (the browser tab, the header)
    shortened to what ``safe_title`` keeps without losing the revision."""

    heading: str
    page: str


def cell_title(data: SiteData, cell: Cell, scenario: dict[str, object]) -> Title:
    """``Go SDK v1.8.0 · Does the server elicit … · 2025-11-25``, with the variant in words
    after the version when there is one. No ids: they are in the page's own "ids" line."""
    who = f"{display_name(data, cell.target)} {cell.version}"
    how = variant_words(cell.variant)
    if how:
        who += f" ({how})"
    what = scenario_words(scenario, cell.scenario)
    heading = f"{who} · {what} · {cell.revision}"
    room = TITLE_LIMIT - len(f"{who} ·  · {cell.revision}")
    page = f"{who} · {_shorten(what, room)} · {cell.revision}" if room > 12 else heading
    return Title(heading, page)


@dataclass(frozen=True)
class Summary:
    """The few lines a cell page opens with: the check that decided the verdict (None when
    no check did: a cell not run, or ended before any check could be judged) and the
    sentence that says why."""

    check: Check | None
    sentence: str


def summary(cell: Cell) -> Summary:
    """The check the verdict's reason names (the judge writes ``<check id>: <its reason>``
    for the check that decided it), else the first check with the cell's verdict; the
    sentence is that check's own reason when the verdict's reason is its, else the verdict's
    reason as written (a time-out, a failed start, a cell not run)."""
    head, sep, _ = cell.reason.partition(": ")
    named = next((k for k in cell.checks if sep and k.id == head), None)
    if named is not None:
        return Summary(named, _unrepeated(named.reason, named.observed) or cell.reason)
    same = next((k for k in cell.checks if k.verdict == cell.verdict), None)
    return Summary(same, cell.reason or (same.reason if same else ""))


def _unrepeated(reason: str, observed: str) -> str:
    """A check's reason without the observation the judge appends in parentheses: the page
    shows that observation on the line above it."""
    tail = f" ({observed})"
    if observed and reason.endswith(tail) and len(reason) > len(tail):
        return reason[: -len(tail)]
    return reason


@dataclass(frozen=True)
class Fact:
    """One line of a cell page's facts table: a label, a value shown as code or as text, and
    the wire-log line it was read from (0: from the verdict)."""

    label: str
    value: str
    as_code: bool = True
    line: int = 0


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _info(value: object) -> str:
    """``{"name": …, "version": …}`` as ``name version``; anything else as JSON."""
    if isinstance(value, dict) and set(value) <= {"name", "version", "title"}:
        return " ".join(str(value[k]) for k in ("name", "version") if value.get(k) is not None)
    return _json(value)


@dataclass(frozen=True)
class Answer:
    """What a server said about itself when asked who it is (the transcript line ``n``)."""

    n: int
    protocol: str
    info: object
    capabilities: object
    supported: object


def hello_answer(transcript: Transcript, leg: str = "") -> Answer | None:
    """The implementation's answer to our ``initialize`` or ``server/discover`` in a server
    or proxy cell (on the ``host`` leg for a proxy): our requests go ``out``, its answers
    come ``in``, matched by id."""
    asked: set[str] = set()
    for line in transcript.lines:
        if line.leg != leg or line.dir not in ("in", "out"):
            continue
        try:
            message = json.loads(line.raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(message, dict):
            continue
        key = _json(message.get("id"))
        if line.dir == "out" and message.get("method") in _HELLO:
            asked.add(key)
        elif line.dir == "in" and key in asked and isinstance(message.get("result"), dict):
            result = message["result"]
            meta = result.get("_meta") if isinstance(result.get("_meta"), dict) else {}
            return Answer(
                n=line.n,
                protocol=str(result.get("protocolVersion") or ""),
                info=result.get("serverInfo") or meta.get(_SERVER_INFO_META),
                capabilities=result.get("capabilities"),
                supported=result.get("supportedVersions"),
            )
    return None


def _server_facts(answer: Answer | None, towards: str) -> list[Fact]:
    if answer is None:
        return []
    n, out = answer.n, []
    if answer.protocol:
        out.append(Fact(f"protocolVersion it answered{towards}", answer.protocol, line=n))
    if answer.supported is not None:
        out.append(Fact(f"versions it supports{towards}", _json(answer.supported), line=n))
    if answer.info is not None:
        out.append(Fact(f"serverInfo{towards}", _info(answer.info), line=n))
    if answer.capabilities is not None:
        out.append(Fact(f"server capabilities{towards}", _json(answer.capabilities), line=n))
    return out


def _client_facts(data: dict[str, object], towards: str) -> list[Fact]:
    out = []
    if data.get("client_protocol_version"):
        out.append(Fact(f"protocolVersion it sent{towards}", str(data["client_protocol_version"])))
    if data.get("client_info") is not None:
        out.append(Fact(f"clientInfo it sent{towards}", _info(data["client_info"])))
    if data.get("client_capabilities") is not None:
        out.append(Fact(f"client capabilities{towards}", _json(data["client_capabilities"])))
    return out


def side_facts(cell: Cell, side: str, transcript: Transcript) -> list[Fact]:
    """The handshake facts of the side the cell is about, only those the cell has: a
    client's own ``initialize``; a server's answer to ours; a proxy's both, its answer to
    our host and what it sent our test server as a client."""
    negotiated = str(cell.data.get("negotiated_revision") or "")
    out: list[Fact] = []
    if side == "server":
        out += _server_facts(hello_answer(transcript), "")
    elif side == "proxy":
        out += _server_facts(hello_answer(transcript, "host"), " to our host")
        out += _client_facts(cell.data, " to our test server")
    else:
        out += _client_facts(cell.data, "")
    if negotiated:
        out.append(Fact("negotiated revision", negotiated))
    return out


def _seconds(value: object) -> str:
    return f"{value:.1f} s" if isinstance(value, int | float) else ""


def run_facts(cell: Cell, side: str) -> list[Fact]:
    """When the cell was played, for how long, and how it ended, in words."""
    out = []
    started = cell.data.get("started_at")
    took = _seconds(cell.data.get("duration_s"))
    if isinstance(started, str) and started:
        when = started.replace("T", " ").removesuffix("Z") + (" UTC" if "Z" in started else "")
        out.append(Fact("played", when + (f", for {took}" if took else ""), as_code=False))
    process = cell.data.get("process")
    if isinstance(process, dict):
        who = "the client" if side == "client" else "the play"
        ended = {
            "self": f"{who} ended on its own",
            "harness": f"{who} was ended by the harness",
            "timeout": f"{who} was killed at the time limit"
            + (f" ({_seconds(process.get('timeout_s'))})" if process.get("timeout_s") else ""),
        }.get(str(process.get("ended_by")), f"{who} ended ({process.get('ended_by')})")
        if process.get("ended_by") == "harness" and process.get("ends") == "harness":
            ended += " (as planned: it does not end by itself)"
        code = process.get("exit_code")
        parts = [ended, "no exit code" if code is None else f"exit code {code}"]
        if process.get("sigkill"):
            parts.append("it ignored SIGTERM and was killed")
        left = process.get("leftover_killed")
        if isinstance(left, int) and left > 0:
            parts.append(f"{left} leftover process{'es' if left > 1 else ''} killed")
        out.append(Fact("how it ended", ", ".join(parts), as_code=False))
    return out


@dataclass(frozen=True)
class Cite:
    """A row a cell is evidence for, with what its page shows of it."""

    row: Row
    area_title: str

    def key(self) -> list[str]:
        """What the cell page shows of the row: part of the page's reuse key."""
        return [self.row.id, self.row.area, self.area_title, self.row.difference]


def citing_rows(data: SiteData) -> dict[str, list[Cite]]:
    """Cell folder → the rows whose status cites it (per revision or as evidence), in the
    rows' order; read once per render."""
    titles = {a.id: a.title for a in data.areas}
    out: dict[str, list[Cite]] = {}
    for row in data.rows or []:
        rels: set[str] = set()
        for status in row.status.values():
            rels.update(rel for _, rel, _ in status.per_revision)
            rels.update(status.cells)
        for rel in sorted(rels):
            out.setdefault(rel, []).append(Cite(row, titles.get(row.area, row.area)))
    return out


def cites_key(cites: Iterable[Cite]) -> list[list[str]]:
    return [c.key() for c in cites]
