"""Reading the host plan, for the Python host programs (``py_sdk_host.py``, ``fastmcp_host.py``,
``pydantic_ai_host.py``).

The contract is ``README.md`` beside this file. The plan is checked against
``host-plan.schema.json``, the same file the harness checks the plan it writes against, so the
shape is said once. The check is a small reader of the few keywords that schema uses, in the
standard library: ``jsonschema`` (which the SDK's venv has) takes about a third of a second to
import, more than the SDK client itself, on every cell. A keyword it does not know is refused
loudly, so the schema cannot outgrow it unnoticed (``tests/hosts/test_plan_reader.py``
checks it agrees with jsonschema). Standard library only: it must not change what the SDK puts
on the wire.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

SCHEMA = Path(__file__).resolve().parent / "host-plan.schema.json"
#: The contract's exit code for a malformed plan or command line (3: a feature the library
#: lacks, see ``screen``).
BAD_PLAN = 2


def refuse(host: str, message: str) -> NoReturn:
    """A malformed plan or command line: one line on stderr, exit 2."""
    print(f"{host}: {' '.join(message.split())}", file=sys.stderr)
    raise SystemExit(BAD_PLAN)


USAGE = "usage: --plan PATH -- SERVER_COMMAND... | --plan PATH --url URL"


def read_plan(argv: list[str], host: str) -> tuple[dict[str, Any], list[str]]:
    """``--plan PATH -- SERVER_COMMAND...`` -> (the checked plan, the server's command).

    A host that can also connect to a URL reads its line with :func:`read_plan_or_url`."""
    plan, command, url = read_plan_or_url(argv, host)
    if url is not None:
        refuse(host, f"{host} starts its server on stdio only: --url is not taken")
    return plan, command


def read_plan_or_url(argv: list[str], host: str) -> tuple[dict[str, Any], list[str], str | None]:
    """Either form of a host's command line -> (the checked plan, the server's command, the
    URL). ``--plan PATH --url URL`` connects to a server already listening (the SDK's
    Streamable HTTP client); the command is then empty."""
    if len(argv) == 4 and argv[0] == "--plan" and argv[2] == "--url":
        return _load(argv[1], host), [], argv[3]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        refuse(host, f'{USAGE} (missing "-- SERVER_COMMAND...")')
    cut = argv.index("--")
    own, server = argv[:cut], argv[cut + 1 :]
    if len(own) != 2 or own[0] != "--plan":
        refuse(host, f"{USAGE} (got {' '.join(own) or 'nothing'})")
    return _load(own[1], host), server, None


def _load(path: str, host: str) -> dict[str, Any]:
    try:
        plan = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        refuse(host, f"cannot read the plan {path}: {err}")
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    problem = check(plan, schema, schema)
    if problem:
        refuse(host, f"malformed plan {path}: {problem}")
    return plan  # type: ignore[no-any-return]


#: The keywords ``check`` reads, and the ones that only annotate.
_CHECKED = {"type", "const", "enum", "pattern", "minLength", "minItems", "items", "$ref"}
_CHECKED |= {"properties", "required", "additionalProperties"}
_ANNOTATIONS = {"$schema", "$id", "title", "description", "$defs"}
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
}


def check(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str = "") -> str | None:
    """The first way ``value`` breaks ``schema`` ("key WHERE: what"), or None."""
    key = f"key {where or '(top level)'}"
    unknown = set(schema) - _CHECKED - _ANNOTATIONS
    if unknown:
        raise ValueError(f"host-plan.schema.json uses {sorted(unknown)}, which check() cannot read")
    if schema.get("additionalProperties", False) is not False:
        raise ValueError("host-plan.schema.json: check() reads additionalProperties: false only")
    if "$ref" in schema:
        return check(value, root["$defs"][schema["$ref"].removeprefix("#/$defs/")], root, where)
    kind = schema.get("type")
    if kind is not None and not isinstance(value, _TYPES[kind]):
        return f"{key}: {json.dumps(value)[:40]} is not of type {kind}"
    if "const" in schema and value != schema["const"]:
        return f"{key}: {schema['const']!r} was expected"
    if "enum" in schema and value not in schema["enum"]:
        return f"{key}: {value!r} is not one of {schema['enum']}"
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            return f"{key}: {value!r} is too short"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return f"{key}: {value!r} does not match {schema['pattern']!r}"
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            return f"{key}: too few items"
        for index, item in enumerate(value):
            problem = check(item, schema.get("items", {}), root, f"{where}.{index}".lstrip("."))
            if problem:
                return problem
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                return f"{key}: {name!r} is a required property"
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(properties))
            if extra:
                return f"{key}: unknown key {extra[0]!r}"
        for name, sub in properties.items():
            if name in value:
                problem = check(value[name], sub, root, f"{where}.{name}".lstrip("."))
                if problem:
                    return problem
    return None


def options(plan: dict[str, Any], host: str, known: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """The plan's ``options``, each a name this host knows with one of its values."""
    out: dict[str, str] = {}
    for name, value in plan["options"].items():
        if name not in known or value not in known[name]:
            refuse(host, f"unknown option {name}={value!r} (known: {known or 'none'})")
        out[name] = value
    return out


@dataclass
class Changes:
    """The plan's ``roots.changes``: each fires once, when ``<control>/<signal>`` appears."""

    control: Path
    pending: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def of(cls, plan: dict[str, Any]) -> Changes:
        roots = plan["features"].get("roots") or {}
        return cls(Path(plan["control"]), list(roots.get("changes", [])))

    def due(self) -> list[dict[str, Any]]:
        """The changes whose signal file has appeared since the last call (polled ~50 ms)."""
        fired = [c for c in self.pending if (self.control / c["signal"]).exists()]
        self.pending = [c for c in self.pending if c not in fired]
        return fired


def add_folders(change: dict[str, Any], as_root: Callable[[Path], Any]) -> list[Any]:
    """Create each folder of one change (mkdir -p) and turn it into a root with ``as_root``."""
    added = []
    for folder in change["add_folders"]:
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        added.append(as_root(path))
    return added


#: Each scripted request's kind (one key of a request in ``session.requests``).
KINDS = ("list", "call", "read", "subscribe", "unsubscribe", "get_prompt", "complete", "close")
#: The member a ``list`` request's record holds its items under, per list.
LIST_MEMBERS = {
    "tools": "tools",
    "prompts": "prompts",
    "resources": "resources",
    "resource_templates": "resourceTemplates",
}
#: Pages read of one list at most: a bound on a server that never stops handing out cursors.
MAX_PAGES = 50


def kind_of(request: dict[str, Any]) -> str:
    return next(k for k in KINDS if k in request)


def lacks_key(request: dict[str, Any]) -> str:
    """What a target that cannot make ``request`` says it lacks: ``list_<name>`` for a list
    (a library may read some lists and not others), the kind for anything else."""
    kind = kind_of(request)
    return f"list_{request['list']}" if kind == "list" else kind


def refuse_lacked(plan: dict[str, Any], host: str, lacked: dict[str, str]) -> int | None:
    """The contract's exit 3 (one stderr line), before any server starts, for a plan whose
    session makes a request this host's library has no call for (``lacked``: what its
    target's ``lacks:`` names, with why); None when it makes none."""
    for request in plan["session"].get("requests") or []:
        key = lacks_key(request)
        if key in lacked:
            print(f"{host}: unsupported: {key}: {lacked[key]}", file=sys.stderr)
            return 3
    return None


@dataclass
class Screened:
    """A plan this host takes: the plan, the server's command or URL, and its options."""

    plan: dict[str, Any]
    command: list[str]
    url: str | None
    options: dict[str, str]


def screen(
    argv: list[str],
    host: str,
    known: dict[str, tuple[str, ...]],
    lacked: dict[str, str],
    also: Callable[[dict[str, Any]], str | None] | None = None,
) -> Screened:
    """Every refusal of a host, in the contract's order: a malformed command line or plan
    (exit 2), an unknown option (exit 2), a request the library has no call for (exit 3), and
    the host's own ``also`` (a reason it cannot take the plan, exit 3). A host calls it at the
    top of its file, before it imports its SDK, so that a refused plan costs no SDK import
    (seconds of CPU for the larger frameworks), and again in ``main`` for what it takes."""
    plan, command, url = read_plan_or_url(argv, host)
    chosen = options(plan, host, known)
    refused = refuse_lacked(plan, host, lacked)
    if refused is not None:
        raise SystemExit(refused)
    why = also(plan) if also is not None else None
    if why is not None:
        print(f"{host}: unsupported: {why}", file=sys.stderr)
        raise SystemExit(3)
    return Screened(plan, command, url, chosen)


def refuse_requests(plan: dict[str, Any], host: str) -> None:
    """For a host that makes no scripted requests: a plan with some is refused (exit 3), so
    no request is ever skipped in silence (its target has no ``scripts_session``)."""
    if plan["session"].get("requests"):
        print(f"{host}: unsupported: session.requests: this host makes none", file=sys.stderr)
        raise SystemExit(3)


def dump(value: Any) -> Any:
    """A value of the official SDK's types as JSON, by the SDK's own serializer (pydantic, wire
    names): what the Python hosts whose library hands those types on record. Duck-typed, so
    this module stays free of any SDK."""
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


def error_code(err: BaseException) -> int | None:
    """The JSON-RPC code of an error the server answered with, as the official SDK's error
    keeps it (``error.code``); None for any other failure."""
    code = getattr(getattr(err, "error", None), "code", None)
    return code if isinstance(code, int) else None


async def make_requests(
    plan: dict[str, Any],
    make: Callable[[str, dict[str, Any]], Awaitable[Any]],
    code_of: Callable[[BaseException], int | None],
) -> int | None:
    """Make each request of the plan's ``session.requests`` with ``make(kind, request)`` (the
    SDK's call; it returns the SDK's value as JSON, written by the SDK's serializer) and
    append its outcome to ``<control>/session.jsonl`` at once (README.md, the session
    record). An error is recorded and the next request made all the same.

    The script stops at a ``close`` request (always its last, the harness checks) without
    making it: its step is returned, for the host to end the session its SDK's way (often by
    leaving an ``async with``: ``leaving``; else ``close_session``), which records it. None
    when the script has no ``close``."""
    for step, request in enumerate(plan["session"].get("requests") or []):
        kind = kind_of(request)
        if kind == "close":
            return step
        try:
            result = await make(kind, request)
        except Exception as err:  # what the SDK raised is the evidence
            record(plan, step, kind, code_of, error=err)
        else:
            record(plan, step, kind, code_of, result=result)
    return None


def record(
    plan: dict[str, Any],
    step: int,
    kind: str,
    code_of: Callable[[BaseException], int | None],
    *,
    result: Any = None,
    error: BaseException | None = None,
) -> None:
    """Append one request's outcome to the session record: ``result`` (the SDK's value as
    JSON), or the ``error`` the SDK raised instead (README.md, the session record)."""
    entry: dict[str, Any] = {"step": step, "request": kind}
    if error is None:
        entry.update(ok=True, result=result)
    else:
        entry.update(ok=False, error=" ".join(f"{type(error).__name__}: {error}".split()))
        code = code_of(error)
        if code is not None:
            entry["code"] = code
    _append(plan, entry)


def _append(plan: dict[str, Any], entry: dict[str, Any]) -> None:
    """One whole line of the session record, opened and closed per line so it is on disk at
    once."""
    with (Path(plan["control"]) / "session.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


async def close_session(
    plan: dict[str, Any],
    step: int,
    close: Callable[[], Awaitable[Any]],
    code_of: Callable[[BaseException], int | None],
) -> None:
    """The script's ``close`` request (step ``step``, what ``make_requests`` returned) for a
    host whose SDK ends the session with a call: ``close()``, then its outcome recorded
    (``{}``, or what it raised) once the call has returned. What the SDK does to the server
    process meanwhile is the SDK's: the host touches neither its stdin nor the process."""
    try:
        await close()
    except Exception as err:  # what the SDK raised is the evidence
        record(plan, step, "close", code_of, error=err)
    else:
        record(plan, step, "close", code_of, result={})


@dataclass
class Closing:
    """The step of the script's ``close`` request, once ``make_requests`` has reached it."""

    step: int | None = None


@contextlib.asynccontextmanager
async def leaving(
    plan: dict[str, Any], code_of: Callable[[BaseException], int | None]
) -> AsyncIterator[Closing]:
    """The script's ``close`` request for a host whose SDK ends the session when the
    application leaves its ``async with``: entered first in that same statement
    (``async with leaving(plan, code_of) as closing, Client(...) as client:``), so it is left
    last. The host keeps what ``make_requests`` returned in ``closing.step`` and, when that is
    a step, lets its block end at once; the request is recorded here once the SDK's context
    has been left: ``{}``, or the error its exit raised."""
    closing = Closing()
    try:
        yield closing
    except Exception as err:
        if closing.step is None:  # not the close: the host's failure, as before
            raise
        record(plan, closing.step, "close", code_of, error=err)
    else:
        if closing.step is not None:
            record(plan, closing.step, "close", code_of, result={})


#: The notification a plan with a ``subscribe`` request records (README.md, the session
#: record).
UPDATED = "notifications/resources/updated"


def subscribes(plan: dict[str, Any]) -> bool:
    """Whether the plan subscribes to a resource, so the host registers its SDK's handler for
    resource updates before it connects."""
    return any("subscribe" in r for r in plan["session"].get("requests") or [])


def record_notification(plan: dict[str, Any], params: Any) -> None:
    """Append one resource update the SDK handed our handler to the session record
    (``params``: what it handed, as JSON by the SDK's serializer), when it arrives."""
    _append(plan, {"notification": UPDATED, "params": params})
