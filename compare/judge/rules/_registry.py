"""The rule registry, the outcome a rule names, and the gates shared by many rules.

A rule returns an outcome name, what it observed and the transcript lines that show it. It
never decides pass or fail itself — that lives in the scenario file beside the spec
references, so a reviewer can see and change a grading without reading code.

A rule may take parameters from its check (``with:`` in the scenario file), declared here as
:class:`Param` so the scenario loader can refuse an unknown or ill-typed one before a cell is
judged; a parameterised rule may produce different outcomes for different parameters
(``outcomes_for``), and the loader holds each check to the outcomes of its own parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from compare._errors import CompareError
from compare.exchange._host_plan import added_root
from compare.judge._transcript import Line
from compare.judge._uri import judge_file_uri, rank
from compare.judge.rules._context import Context

#: URI outcomes that name the right folder: the correct form, and file-URI forms RFC 8089
#: allows besides ``file:///`` (graded apart from a broken encoding of the same folder).
OTHER_FORM = ("localhost-authority", "no-authority")
RIGHT_PLACE = ("encoded", "non-ascii-raw", *OTHER_FORM)
RIGHT_PATH_BAD_FORM = ("space-unencoded", "invalid-uri")
#: The right folder, written so that it is not a correct file:// URI.
MISENCODED = ("non-ascii-raw", *RIGHT_PATH_BAD_FORM, "hash-unencoded")
#: The folder a host adds on the add-root signal: said once, in hosts/variants.yaml.
ADDED_ROOT = added_root()


@dataclass
class Outcome:
    name: str
    observed: str
    evidence: list[int] = field(default_factory=list)


RuleFn = Callable[[Context], Outcome]
#: Runs before a rule: an outcome when the exchange never reached what the rule reads.
Gate = Callable[[Context], Outcome | None]

#: What a parameter names, so the loader knows how to check it: a JSON-RPC ``method``; a
#: step ``label`` of the scenario; a schema ``definition`` (it must exist at every revision
#: the check plays at); a client ``capability`` (a property of ``ClientCapabilities`` there);
#: a ``member`` of that capability (e.g. ``listChanged``); a JSON-RPC error ``code`` (an
#: integer); free ``text`` (a field name, a value to compare); a ``server_capability`` (a
#: property of ``ServerCapabilities``); the ``index`` of a request in the scenario's
#: ``host_session``.
ParamKind = Literal[
    "method",
    "label",
    "definition",
    "capability",
    "member",
    "code",
    "text",
    "server_capability",
    "index",
]


@dataclass(frozen=True)
class Param:
    kind: ParamKind
    doc: str
    required: bool = False
    #: Another parameter this one only makes sense beside (``member`` needs ``capability``).
    needs: str = ""


@dataclass(frozen=True)
class Rule:
    name: str
    #: Every outcome the rule can name, whatever its parameters.
    outcomes: tuple[str, ...]
    labels: tuple[str, ...]
    fn: RuleFn
    params: Mapping[str, Param] = field(default_factory=dict)
    outcomes_for: Callable[[Mapping[str, Any]], tuple[str, ...]] | None = None

    def produces(self, params: Mapping[str, Any]) -> tuple[str, ...]:
        """The outcomes a check with these parameters can get (all of them by default)."""
        return self.outcomes if self.outcomes_for is None else self.outcomes_for(params)


RULES: dict[str, Rule] = {}


def rule(
    name: str,
    outcomes: tuple[str, ...],
    labels: tuple[str, ...] = (),
    gate: Gate | None = None,
    params: Mapping[str, Param] | None = None,
    outcomes_for: Callable[[Mapping[str, Any]], tuple[str, ...]] | None = None,
) -> Callable[[RuleFn], RuleFn]:
    """Register ``fn`` as rule ``name``; with a ``gate``, the gate's outcome (when it names
    one) is the rule's, so the rule body only reads an exchange that got far enough. Two
    rules of one name are refused: the second would silently replace the first."""

    def register(fn: RuleFn) -> RuleFn:
        if name in RULES:
            raise CompareError(
                f"judge rule {name!r} is registered twice ({RULES[name].fn.__module__} and"
                f" {fn.__module__})",
                "give one of them another name",
            )
        body = fn if gate is None else _gated(gate, fn)
        RULES[name] = Rule(name, outcomes, labels, body, dict(params or {}), outcomes_for)
        return fn

    return register


def _gated(gate: Gate, fn: RuleFn) -> RuleFn:
    def gated(ctx: Context) -> Outcome:
        early = gate(ctx)
        return early if early is not None else fn(ctx)

    gated.__module__ = fn.__module__
    return gated


#: Outcomes of rules that need the exchange past initialization when it never got there.
EARLY = ("no-initialize", "exited-before-initialize", "version-refused")


def measured_start_failure(ctx: Context) -> Outcome | None:
    """The client exited with an error before it wrote a byte, in a variant whose target says
    that is what it measures (``start_failure_findings``); None otherwise."""
    p = ctx.process or {}
    failed = p.get("ended_by") == "self" and p.get("exit_code") not in (0, None)
    if failed and not ctx.tx.incoming() and ctx.plan.get("start_failure_is_finding"):
        return Outcome(
            "exited-before-initialize",
            f"the client exited with {p.get('exit_code')} before it sent a single line;"
            " its stderr (on the cell page) says why",
        )
    return None


def stopped_early(ctx: Context) -> Outcome | None:
    """Why the scenario never got past the handshake, if it did not.

    ``exited-before-initialize``: in a variant whose target declares that a start failure is
    what it measures (``start_failure_findings``: an SDK rejecting the roots its own docs
    show), the client exited with an error before it wrote a byte — a finding about the
    client, with its stderr as the evidence. ``no-initialize``: otherwise, it sent neither
    initialize nor a 2026-07-28 request (it crashed at start, hung, or left), so nothing the
    scenario tests happened and the cell is an error to look into, never a finding.
    ``version-refused``: it asked
    for one version, the peer answered another and the client left without initialized —
    the lifecycle page says a client SHOULD disconnect from a version it does not support,
    so this is allowed behaviour, measured per revision by version-window.
    """
    init = ctx.initialize
    if init is None and not ctx.modern_requests():
        p = ctx.process or {}
        measured = measured_start_failure(ctx)
        if measured is not None:
            return measured
        how = ""
        if p.get("ended_by") == "self":
            how = f" (it exited with {p.get('exit_code')})"
        elif p.get("ended_by"):
            how = f" (ended by {p.get('ended_by')})"
        return Outcome("no-initialize", f"the client ended before initialize{how}")
    if init is None:
        return None
    asked = ctx.init_params.get("protocolVersion")
    answer = ctx.plan.get("answer_revision", ctx.revision)
    went_on = any(x.method == "notifications/initialized" for x in ctx.tx.incoming())
    left = ctx.ended_at() is not None or (ctx.process or {}).get("ended_by") == "self"
    if asked != answer and not went_on and left:
        return Outcome(
            "version-refused",
            f"client does not accept {answer}: it asked for {asked!r} and left without "
            "notifications/initialized",
            _ev(init),
        )
    return None


def without_capability(name: str, outcome: str = "undeclared", observed: str = "") -> Gate:
    """A gate: the handshake never completed (the early outcomes of :func:`stopped_early`),
    or the client declared no capability ``name`` (outcome ``outcome``), so a rule about
    what that capability promises does not apply. Both eras: see ``Context.capability``."""

    def gate(ctx: Context) -> Outcome | None:
        early = stopped_early(ctx)
        if early is not None:
            return early
        if ctx.capability(name) is None:
            return Outcome(outcome, observed or f"no {name} capability", _ev(ctx.initialize))
        return None

    return gate


#: What a request step's missing answer means (``Context.reply``'s kinds without a line).
NO_ANSWER = {
    "silence": "no response while the connection stayed open for the step's whole bound",
    "closed": "the client ended the connection before it answered",
    "not-asked": "the request was never sent: the client stopped first",
}


def error_code(line: Line) -> int | None:
    """The integer ``error.code`` of a response line; None for a result or a malformed error
    (a boolean is not a code, though Python counts it as an int)."""
    error = line.obj.get("error") if isinstance(line.obj, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _ev(*lines: Line | None) -> list[int]:
    return [x.n for x in lines if x is not None]


def _roots(value: Any) -> list[dict[str, Any]]:
    roots = value.get("roots") if isinstance(value, dict) else None
    return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []


def best_root(roots: list[dict[str, Any]], folder: str) -> tuple[str, str, dict[str, Any] | None]:
    """The root that best matches ``folder``: (uri outcome, explanation, root)."""
    best: tuple[str, str, dict[str, Any] | None] = ("wrong-path", "no roots listed", None)
    for root in roots:
        uri = root.get("uri")
        if not isinstance(uri, str):
            continue
        outcome, why = judge_file_uri(uri, folder)
        if best[2] is None or rank(outcome) > rank(best[0]):
            best = (outcome, f"{uri!r}: {why}", root)
    return best
