"""Host plans: what an SDK host program declares and answers in one cell, as data.

Every SDK host takes ``HOST --plan PATH -- SERVER_COMMAND...`` and reads the rest from the
plan (the contract: ``hosts/README.md``; the shape: ``hosts/host-plan.schema.json``). A
target's variant is not a command-line fragment but a named plan fragment: the common ones
(``roots``, ``no-roots``) are said once in ``hosts/variants.yaml``; a target lists the ones
it plays and may add its own, starting from a common one (``base``). This module resolves a
target's variants when its file is loaded, so a bad fragment is an error naming the file,
and expands one into the plan the harness writes per cell, checked against the schema.
"""

from __future__ import annotations

import copy
import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compare import _atomic
from compare._errors import CompareError
from compare.exchange._yaml import check_schema, check_schema_value, load_yaml

HOSTS = Path(__file__).resolve().parent.parent / "hosts"
VARIANTS_FILE = HOSTS / "variants.yaml"
VARIANTS_SCHEMA = HOSTS / "variants.schema.json"
HOST_PLAN_SCHEMA = HOSTS / "host-plan.schema.json"
#: The plan's file name inside a cell's folder, beside the peer's ``plan.json``.
HOST_PLAN = "host-plan.json"
#: The client features a plan can name (and a target can say it ``lacks``).
FEATURES = ("roots", "elicitation", "sampling")
#: What every host does with its session unless a fragment says otherwise.
DEFAULT_SESSION: dict[str, Any] = {"call_tools": True}
#: The kinds of request a plan's ``session.requests`` can make, one key each (in the order
#: of host-plan.schema.json's ``$defs.request``).
REQUEST_KINDS = (
    "list",
    "call",
    "read",
    "subscribe",
    "unsubscribe",
    "get_prompt",
    "complete",
    "close",
)
#: The lists a ``list`` request reads.
LISTS = ("tools", "prompts", "resources", "resource_templates")
#: What a target may say it ``lacks`` of them: a list by name (``list_tools``, …: a library
#: may read some lists and not others), every other kind as it is.
LACKABLE = (*(f"list_{name}" for name in LISTS), *REQUEST_KINDS[1:])
#: Stand-ins used to check a fragment when its target is loaded (a real cell's folders are
#: absolute paths too, so the same schema applies).
_CHECK_WORKSPACE = Path("/cell/workspace")
_CHECK_CONTROL = Path("/cell/control")


@dataclass(frozen=True)
class Common:
    """``hosts/variants.yaml`` as loaded: the added root's name and the common fragments."""

    added_root: str
    variants: dict[str, dict[str, Any]]


@functools.cache
def common() -> Common:
    """The common variants (validated; read once per process)."""
    data = load_yaml(VARIANTS_FILE)
    check_schema(data, VARIANTS_SCHEMA, VARIANTS_FILE, remember=True)
    assert isinstance(data, dict)
    name_of_added = str(data["added_root"])
    # The added root's name goes into the fragments now, so a renamed folder changes every
    # fragment that adds it, and with it the play key of each cell of theirs.
    variants = _expand(dict(data["variants"]), {"{added_root}": name_of_added})
    for name, fragment in variants.items():
        if "base" in fragment:
            raise CompareError(
                f"{VARIANTS_FILE}: key variants.{name}.base: a common variant has no base",
                "write its features out in full",
            )
        host_plan(fragment, _CHECK_WORKSPACE, _CHECK_CONTROL, where=f"{VARIANTS_FILE}: {name}")
    return Common(added_root=name_of_added, variants=variants)


@functools.cache
def _fragment_schema() -> dict[str, Any]:
    """``$defs.fragment`` of ``variants.schema.json``, standing alone (a target's own variant
    has the same shape as a common one)."""
    schema: dict[str, Any] = json.loads(VARIANTS_SCHEMA.read_text(encoding="utf-8"))
    return {**schema["$defs"]["fragment"], "$defs": schema["$defs"]}


def added_root() -> str:
    """The base name of the folder a host adds on the ``add-root`` signal (said once, in
    ``hosts/variants.yaml``; the judge looks for the same folder)."""
    return common().added_root


def resolve_variants(items: list[Any], source: Path) -> dict[str, dict[str, Any]]:
    """A target's ``variants:`` list, each item a common variant's name or a one-key mapping
    ``{name: fragment}`` of its own, resolved to full fragments in the order listed."""
    shared = common().variants
    out: dict[str, dict[str, Any]] = {}
    for index, item in enumerate(items):
        where = f"{source}: key variants.{index}"
        if isinstance(item, str):
            if item not in shared:
                raise CompareError(
                    f"{where}: {item!r} is not a common variant",
                    f"name one of {sorted(shared)} ({VARIANTS_FILE.name}) or define it here "
                    f"as {{{item}: {{base: ..., options: ...}}}}",
                )
            name, fragment = item, copy.deepcopy(shared[item])
        else:
            ((name, own),) = item.items()
            check_schema_value(own, _fragment_schema(), source, VARIANTS_SCHEMA.name)
            fragment = _expand(_own(own, shared, f"{where}.{name}"), {"{added_root}": added_root()})
        if name in out:
            raise CompareError(f"{where}: variant {name!r} is listed twice", None)
        host_plan(fragment, _CHECK_WORKSPACE, _CHECK_CONTROL, where=f"{where}.{name}")
        out[name] = fragment
    return out


def _own(own: dict[str, Any], shared: dict[str, dict[str, Any]], where: str) -> dict[str, Any]:
    """A target's own variant: its ``base`` (a common variant) with its own keys laid over
    (``features`` replaces the base's, ``session`` and ``options`` add to them)."""
    base_name = own.get("base")
    if base_name is None:
        return {k: copy.deepcopy(v) for k, v in own.items()}
    if base_name not in shared:  # a common variant never has a base itself (see common())
        raise CompareError(
            f"{where}.base: {base_name!r} is not a common variant", f"name one of {sorted(shared)}"
        )
    base = copy.deepcopy(shared[base_name])
    merged: dict[str, Any] = {"base": base_name, "features": base.get("features", {})}
    if "features" in own:
        merged["features"] = copy.deepcopy(own["features"])
    for key in ("session", "options"):
        if key in base or key in own:
            merged[key] = {**base.get(key, {}), **copy.deepcopy(own.get(key, {}))}
    merged["description"] = own.get("description", base.get("description", ""))
    return merged


def request_kind(request: dict[str, Any]) -> str:
    """The kind of one checked request (its one key of :data:`REQUEST_KINDS`)."""
    return next(k for k in REQUEST_KINDS if k in request)


def lacks_key(request: dict[str, Any]) -> str:
    """What a target that cannot make ``request`` says it lacks (one of :data:`LACKABLE`)."""
    kind = request_kind(request)
    return f"list_{request['list']}" if kind == "list" else kind


def check_requests(requests: list[Any], source: Path, key: str = "host_session") -> None:
    """A scenario's ``host_session``: each item a request of the host plan's schema, with
    exactly one kind, ``arguments`` only beside ``call`` (any JSON) or ``get_prompt``
    (strings, as prompts/get takes them), and ``close`` only last (it ends the session)."""
    schema: dict[str, Any] = json.loads(HOST_PLAN_SCHEMA.read_text(encoding="utf-8"))
    one = {**schema["$defs"]["request"], "$defs": schema["$defs"]}
    for index, request in enumerate(requests):
        where = f"{source}: key {key}.{index}"
        check_schema_value(request, one, Path(where), HOST_PLAN_SCHEMA.name)
        kinds = [k for k in REQUEST_KINDS if k in request]
        if len(kinds) != 1:
            raise CompareError(
                f"{where}: {' and '.join(kinds) or 'no kind'}: a request makes exactly one of"
                f" {', '.join(REQUEST_KINDS)}",
                "write one request per item",
            )
        if kinds[0] == "close" and index != len(requests) - 1:
            raise CompareError(
                f"{where}: close ends the session, so it is the script's last request",
                "move close to the end of host_session, or drop the requests after it",
            )
        arguments = request.get("arguments")
        if arguments is not None and kinds[0] not in ("call", "get_prompt"):
            raise CompareError(f"{where}.arguments: only beside call or get_prompt", None)
        if kinds[0] == "get_prompt" and not all(
            isinstance(v, str) for v in (arguments or {}).values()
        ):
            raise CompareError(
                f"{where}.arguments: a prompt's arguments are strings", "quote each value"
            )


def needs(fragment: dict[str, Any] | None) -> list[str]:
    """The client features a variant's plan declares (what a cell of it needs the SDK for)."""
    return [f for f in FEATURES if f in ((fragment or {}).get("features") or {})]


def _expand(value: Any, marks: dict[str, str]) -> Any:
    """``value`` with each template mark (``{workspace}``, ``{added_root}``) in its strings
    replaced (a copy; the input is left as it was)."""
    if isinstance(value, str):
        for mark, text in marks.items():
            value = value.replace(mark, text)
        return value
    if isinstance(value, dict):
        return {k: _expand(v, marks) for k, v in value.items()}
    if isinstance(value, list):
        return [_expand(v, marks) for v in value]
    return value


#: Folders the schema check sees in place of a cell's own (``host_plan``).
_STAND_IN = (Path("/cell/workspace"), Path("/cell/control"))


def host_plan(
    fragment: dict[str, Any],
    workspace: Path,
    control: Path,
    *,
    where: str | None = None,
) -> dict[str, Any]:
    """The host plan of one cell: the fragment's templates expanded for its folders, checked
    against ``host-plan.schema.json`` (a failure names ``where``, or the schema's key).

    The schema sees the plan expanded at stand-in folders, so that one check holds for every
    cell of a variant (``remember``): a cell's own folders only differ in their text, and the
    schema asks of a folder only that it is absolute, which each is checked to be."""
    for folder in (workspace, control):
        if not folder.is_absolute():
            raise CompareError(f"{where or HOST_PLAN}: {folder} is not an absolute path", None)
    check_schema(
        _plan(fragment, *_STAND_IN), HOST_PLAN_SCHEMA, Path(where or HOST_PLAN), remember=True
    )
    return _plan(fragment, workspace, control)


def _plan(fragment: dict[str, Any], workspace: Path, control: Path) -> dict[str, Any]:
    return {
        "format": 1,
        "workspace": str(workspace),
        "control": str(control),
        "features": _expand(fragment.get("features") or {}, {"{workspace}": str(workspace)}),
        "session": {**DEFAULT_SESSION, **(fragment.get("session") or {})},
        "options": copy.deepcopy(fragment.get("options") or {}),
    }


def write_host_plan(
    variants: dict[str, dict[str, Any]],
    variant: str,
    folder: Path,
    workspace: Path,
    control: Path,
    requests: list[dict[str, Any]] | None = None,
) -> Path | None:
    """Write the host plan of ``variant`` into ``folder`` (atomically) and return its path;
    None for a target without variants, which takes no plan.

    A scenario's ``requests`` (its ``host_session``) replace calling every tool: the session
    is then the scenario's script and nothing else, so what the record shows it caused."""
    if not variants:
        return None
    plan = host_plan(variants[variant], workspace, control)
    if requests:
        plan["session"] = {**plan["session"], "call_tools": False, "requests": requests}
    path = folder / HOST_PLAN
    _atomic.write_json(path, plan)
    return path


#: The host's session record in the control folder, and the name the cell keeps it under.
SESSION_RECORD = "session.jsonl"
HOST_SESSION = "host-session.jsonl"
#: The most of a session record a cell keeps (a runaway host cannot fill the disk).
MAX_RECORD_BYTES = 1 << 20


def keep_record(control: Path, folder: Path) -> bool:
    """Copy the host's session record (if it wrote one) into the cell as ``host-session.jsonl``,
    cut at :data:`MAX_RECORD_BYTES` on a line boundary; whether there was one."""
    try:
        with (control / SESSION_RECORD).open("rb") as record:
            data = record.read(MAX_RECORD_BYTES + 1)
    except OSError:
        return False
    if len(data) > MAX_RECORD_BYTES:
        data = data[: data.rfind(b"\n", 0, MAX_RECORD_BYTES) + 1]
    _atomic.write_bytes(folder / HOST_SESSION, data)
    return True


#: The host contract's exit codes for a plan the host refused before starting the server.
REFUSED = {
    2: "the plan is malformed for it (hosts/host-plan.schema.json and the host disagree)",
    3: "it cannot register a feature the plan names (say so under lacks: in the target file)",
}


def host_refusal(exit_code: int | None, cell: Path) -> str | None:
    """Why a cell is the harness's error and not the SDK's finding: our host program exited
    with a contract code (2, 3) without ever starting the peer (no transcript). None when the
    host did start it, or exited otherwise."""
    if exit_code not in REFUSED or (cell / "transcript.jsonl").exists():
        return None
    try:
        lines = (cell / "client.stderr").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    said = next((line.strip() for line in lines if line.strip()), "(nothing on stderr)")
    return f"our host program refused its plan, exit {exit_code}: {REFUSED[exit_code]}: {said}"
