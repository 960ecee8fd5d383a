"""Server rules that read what a server listed and what its tools returned: the pages of a
list walked by its cursors, the names of its tools, the order of two listings, and a tool
result against the output schema the tool itself declared.

- ``server-pages``: the pages of the ``paginate`` step ``step`` (the step, then
  ``<step>:page-<n>``): one page only, several that ended, a cursor of the server's own it
  refused, a cursor handed out twice, items repeated across pages, a walk cut at its bound.
- ``server-tool-names``: whether every name in the tools/list answer of step ``step`` is 1 to
  128 characters of ``A-Z a-z 0-9 _ - .`` and unique in the list.
- ``server-list-order``: whether the tools/list answers of steps ``step`` and ``again`` name
  the same tools in the same order.
- ``server-structured``: the tools/call answer of step ``step`` against the ``outputSchema``
  the called tool had in the tools/list answer of step ``list``: structuredContent present and
  valid under it (JSON Schema, the schema's own ``$schema`` or 2020-12), missing, or invalid.
- ``server-structured-text``: whether that result also carries the structured content
  serialised as JSON in a text block.
- ``server-item-fields``: whether every item of a list (all its pages), some or none carries
  the member ``field`` (a dotted path; with ``equals``, that value there): what a server fills
  in of the optional members, or which content blocks a tool result holds.
- ``server-completion-values``: a completion answer's values against the page's bound of 100,
  and its total and hasMore against the values sent.

Every rule opens with the same gate as ``server-answered`` (``capability``/``when`` when
given), so a server that declared no tools is never judged on them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from jsonschema import validators
from jsonschema.exceptions import SchemaError

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import NO_ANSWER, Outcome, Param, RuleFn, _ev, rule
from compare.judge.rules.server_generic import _CAPABILITY, _OTHER_SIDE, NO_VALUE, _gate
from compare.judge.rules.server_modern import EITHER_GATE

_GATED = ("undeclared", "declared", *EITHER_GATE)


def _gated(name: str, own: tuple[str, ...], **params: Param) -> Callable[[RuleFn], RuleFn]:
    """A rule of this module: its own outcomes beside the capability gate's, and the gate's
    ``capability``/``when`` beside its own parameters."""
    return rule(
        name,
        (*own, *_GATED),
        gate=_gate,
        params={**params, "capability": _CAPABILITY, "when": _WHEN},
        outcomes_for=_outcomes(own),
    )


def _outcomes(own: tuple[str, ...]) -> Any:
    """A check's outcomes: the rule's own, and of the gate's only those its ``when`` can give."""

    def produces(params: Any) -> tuple[str, ...]:
        return (*own, *_OTHER_SIDE.get(str(params.get("when")), ()), *EITHER_GATE)

    return produces


_UNANSWERED = ("error", "silence", "closed")
_WHEN = Param(
    "text", "declared or undeclared: judge only servers that have the capability, or not",
    needs="capability",
)  # fmt: skip
#: Each list result's member, and what names an item in it.
_LISTS = {
    "tools": "name",
    "prompts": "name",
    "resources": "uri",
    "resourceTemplates": "uriTemplate",
    "content": "type",  # a tool result's blocks (server-item-fields), named by their type
}


def _answer(ctx: Context, label: str) -> tuple[str, Line | None, dict[str, Any] | None]:
    """How the server answered step ``label``, its line, and the result object if any."""
    kind, line = ctx.reply(label)
    if line is None or kind != "result":
        return kind, line, None
    result = line.obj.get("result")
    return kind, line, (result if isinstance(result, dict) else {})


def _unanswered(kind: str, line: Line | None) -> Outcome:
    if line is not None:
        return Outcome("error", (line.raw or "")[:300], _ev(line))
    if kind == "not-asked":
        return Outcome("closed", "the request was never sent: the server had closed")
    return Outcome(kind, NO_ANSWER[kind])


def _items(result: dict[str, Any]) -> tuple[str, list[Any]]:
    for member in _LISTS:
        if isinstance(result.get(member), list):
            return member, result[member]
    return "", []


def _key(member: str, item: Any) -> str:
    value = item.get(_LISTS[member]) if isinstance(item, dict) else None
    return json.dumps(value if value is not None else item, sort_keys=True)


_PAGES_OWN = (
    "single-page",
    "paged",
    "cursor-refused",
    "cursor-repeated",
    "repeated-items",
    "unended",
    "no-cursor-answer",
    *_UNANSWERED,
)


@_gated(
    "server-pages",
    _PAGES_OWN,
    step=Param("label", "the paginate step whose pages are read", required=True),
)
def _server_pages(ctx: Context) -> Outcome:
    label = str(ctx.params["step"])
    kind, line, result = _answer(ctx, label)
    if result is None:
        return _unanswered(kind, line)
    pages: list[tuple[Line, dict[str, Any]]] = [(line, result)] if line is not None else []
    n = 2
    while f"{label}:page-{n}" in ctx.tx.steps:
        kind, line, result = _answer(ctx, f"{label}:page-{n}")
        if result is None:
            said = f"page {n}: the server refused or left unanswered the cursor it handed out"
            if line is not None:
                said += f": {(line.raw or '')[:200]}"
            outcome = "cursor-refused" if kind == "error" else "no-cursor-answer"
            return Outcome(outcome, said, _ev(pages[-1][0], line))
        assert line is not None
        pages.append((line, result))
        n += 1
    evidence = _ev(*(p[0] for p in pages[:5]))
    cursors = [p[1].get("nextCursor") for p in pages if p[1].get("nextCursor") is not None]
    if len(pages) == 1 and not cursors:
        member, items = _items(pages[0][1])
        said = f"one page of {len(items)} {member or 'items'}, no nextCursor: nothing to page"
        return Outcome("single-page", said, evidence)
    repeated = [c for i, c in enumerate(cursors) if c in cursors[:i]]
    if repeated:
        said = f"nextCursor {json.dumps(repeated[0])[:80]} handed out twice in one walk"
        return Outcome("cursor-repeated", said, evidence)
    seen: dict[str, int] = {}
    sizes = []
    for number, (_line, page) in enumerate(pages, 1):
        member, items = _items(page)
        sizes.append(len(items))
        for item in items:
            key = _key(member, item) if member else json.dumps(item, sort_keys=True)
            if key in seen:
                said = f"{key[:80]} on page {seen[key]} and again on page {number}"
                return Outcome("repeated-items", said, evidence)
            seen[key] = number
    shown = ", ".join(str(s) for s in sizes)
    if pages[-1][1].get("nextCursor") is not None:
        said = f"{len(pages)} pages ({shown} items) and still a nextCursor: the walk's bound"
        return Outcome("unended", said, evidence)
    return Outcome(
        "paged", f"{len(pages)} pages of {shown} items, the last without a cursor", evidence
    )


#: The characters and length 2025-11-25's tools page gives tool names.
_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")


_TOOL_NAMES_OWN = ("conforming", "nonconforming", "duplicated", "no-tools", *_UNANSWERED)


@_gated(
    "server-tool-names",
    _TOOL_NAMES_OWN,
    step=Param("label", "the tools/list step whose names are read", required=True),
)
def _server_tool_names(ctx: Context) -> Outcome:
    kind, line, result = _answer(ctx, str(ctx.params["step"]))
    if result is None:
        return _unanswered(kind, line)
    found = result.get("tools")
    tools: list[Any] = found if isinstance(found, list) else []
    names: list[Any] = [t.get("name") for t in tools if isinstance(t, dict)]
    if not names:
        return Outcome("no-tools", "the list holds no tools: no name to read", _ev(line))
    odd = [n for n in names if not isinstance(n, str) or not _NAME.fullmatch(n)]
    if odd:
        shown = ", ".join(json.dumps(n)[:60] for n in odd[:5])
        return Outcome("nonconforming", f"{len(odd)} of {len(names)} names: {shown}", _ev(line))
    twice = sorted({str(n) for n in names if names.count(n) > 1})
    if twice:
        return Outcome("duplicated", f"listed more than once: {', '.join(twice[:5])}", _ev(line))
    return Outcome("conforming", f"{len(names)} names, all of 1-128 allowed characters", _ev(line))


_LIST_ORDER_OWN = ("same-order", "reordered", "changed", *_UNANSWERED)


@_gated(
    "server-list-order",
    _LIST_ORDER_OWN,
    step=Param("label", "the first tools/list step", required=True),
    again=Param("label", "the second tools/list step, nothing changed between", True),
)
def _server_list_order(ctx: Context) -> Outcome:
    lists = []
    lines = []
    for label in (str(ctx.params["step"]), str(ctx.params["again"])):
        kind, line, result = _answer(ctx, label)
        if result is None:
            return _unanswered(kind, line)
        member, items = _items(result)
        lists.append([_key(member, x) if member else json.dumps(x) for x in items])
        lines.append(line)
    first, second = lists
    if first == second:
        return Outcome("same-order", f"{len(first)} items, the same both times", _ev(*lines))
    if sorted(first) == sorted(second):
        return Outcome("reordered", "the same items in another order", _ev(*lines))
    return Outcome("changed", f"{len(first)} items, then {len(second)}, not the same", _ev(*lines))


def _called(ctx: Context, label: str) -> tuple[str, Line | None, dict[str, Any] | None, str]:
    """The tools/call answer of step ``label`` and the name of the tool we called."""
    kind, line, result = _answer(ctx, label)
    trace = ctx.tx.steps.get(label)
    sent = next(
        (x for x in ctx.tx.lines
         if trace is not None and x.dir == "out" and x.is_request and x.obj.get("id") == trace.id),
        None,
    )  # fmt: skip
    name = sent.params.get("name") if sent is not None else None
    return kind, line, result, name if isinstance(name, str) else ""


def _structured_gate(
    ctx: Context,
) -> tuple[Outcome | None, Any, dict[str, Any] | None, Line | None]:
    """What both structured rules share: the call's answer, or an outcome that ends the rule."""
    label = str(ctx.params["step"])
    trace = ctx.tx.steps.get(label)
    if trace is not None and trace.outcome == "no-tool":
        return (
            Outcome("no-tool", "the server listed none of the tools the scenario calls"),
            None,
            None,
            None,
        )
    kind, line, result, name = _called(ctx, label)
    if result is None:
        return _unanswered(kind, line), None, None, line
    if result.get("isError") is True:
        said = f"{name} answered with isError set: no structured result to read"
        return Outcome("is-error", said, _ev(line)), None, None, line
    return None, name, result, line


_STRUCTURED_OWN = (
    "conforms",
    "nonconforming",
    "missing",
    "no-schema",
    "is-error",
    "no-tool",
    *_UNANSWERED,
)


@_gated(
    "server-structured",
    _STRUCTURED_OWN,
    step=Param("label", "the tool_call step whose result is read", required=True),
    list=Param("label", "the tools/list step that listed the called tool", True),
)
def _server_structured(ctx: Context) -> Outcome:
    ended, name, result, line = _structured_gate(ctx)
    if ended is not None:
        return ended
    assert result is not None
    _kind, list_line, listed = _answer(ctx, str(ctx.params["list"]))
    tools = (listed or {}).get("tools")
    tool = next((t for t in tools or [] if isinstance(t, dict) and t.get("name") == name), None)
    schema = tool.get("outputSchema") if tool is not None else None
    if not isinstance(schema, dict):
        return Outcome(
            "no-schema", f"{name} was listed without an outputSchema", _ev(list_line, line)
        )
    evidence = _ev(list_line, line)
    if "structuredContent" not in result:
        return Outcome(
            "missing", f"{name} has an outputSchema; its result has no structuredContent", evidence
        )
    try:
        cls = validators.validator_for(schema, default=validators.Draft202012Validator)
        cls.check_schema(schema)
        errors = sorted(cls(schema).iter_errors(result["structuredContent"]), key=str)
    except SchemaError as err:
        said = f"{name}'s outputSchema is not a valid schema ({err.message[:200]})"
        return Outcome("no-schema", said, evidence)
    if errors:
        shown = "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in errors[:3]
        )
        return Outcome("nonconforming", f"{name}: {shown}"[:300], evidence)
    return Outcome(
        "conforms", f"{name}'s structuredContent is valid under its outputSchema", evidence
    )


_STRUCTURED_TEXT_OWN = (
    "text-copy",
    "no-text-copy",
    "no-structured",
    "is-error",
    "no-tool",
    *_UNANSWERED,
)


@_gated(
    "server-structured-text",
    _STRUCTURED_TEXT_OWN,
    step=Param("label", "the tool_call step whose result is read", required=True),
)
def _server_structured_text(ctx: Context) -> Outcome:
    ended, name, result, line = _structured_gate(ctx)
    if ended is not None:
        return ended
    assert result is not None
    if "structuredContent" not in result:
        return Outcome("no-structured", f"{name}'s result has no structuredContent", _ev(line))
    texts: list[str] = [
        c["text"] for c in result.get("content") or []
        if isinstance(c, dict) and c.get("type") == "text" and isinstance(c.get("text"), str)
    ]  # fmt: skip
    for text in texts:
        try:
            if json.loads(text) == result["structuredContent"]:
                return Outcome("text-copy", f"{name}: a text block holds the same JSON", _ev(line))
        except ValueError:
            continue
    said = f"{name}: {len(texts)} text block(s), none the structured content as JSON"
    return Outcome("no-text-copy", said, _ev(line))


def _unsent(ctx: Context, label: str) -> Outcome | None:
    """The outcome of a step the scripted client did not send because the server's earlier
    answer named nothing for it (no listed tool it calls, nothing to fill its params with)."""
    trace = ctx.tx.steps.get(label)
    if trace is None or trace.outcome not in ("no-tool", NO_VALUE):
        return None
    return Outcome(trace.outcome, "not sent: the server listed nothing the step could name")


def _read_pages(ctx: Context) -> Outcome | tuple[list[Line], list[dict[str, Any]]]:
    """The answered pages of the check's ``step`` (its lines and results), or the outcome
    that says why there are none: the step was not sent, or it went unanswered."""
    label = str(ctx.params["step"])
    unsent = _unsent(ctx, label)
    if unsent is not None:
        return unsent
    kind, lines, results = _walk(ctx, label)
    if not results:
        return _unanswered(kind, lines[0] if lines else None)
    return lines, results


def _walk(ctx: Context, label: str) -> tuple[str, list[Line], list[dict[str, Any]]]:
    """Every page of the list step ``label`` that was answered with a result (the step, then
    ``<label>:page-<n>`` while there are any), and how the first was answered."""
    kind, line, result = _answer(ctx, label)
    if result is None or line is None:
        return kind, [line] if line is not None else [], []
    lines, results = [line], [result]
    n = 2
    while f"{label}:page-{n}" in ctx.tx.steps:
        _kind, line, result = _answer(ctx, f"{label}:page-{n}")
        if result is None or line is None:
            break
        lines.append(line)
        results.append(result)
        n += 1
    return kind, lines, results


_MISSING = object()


def _at(item: Any, path: list[str]) -> Any:
    """The value at a dotted ``path`` in ``item``; a list on the way is read in each of its
    members (``arguments.title``: the title of each argument), :data:`_MISSING` when no member
    has it."""
    if not path:
        return item
    if isinstance(item, list):
        found = [v for v in (_at(x, path) for x in item) if v is not _MISSING]
        return found if found else _MISSING
    if isinstance(item, dict) and path[0] in item:
        return _at(item[path[0]], path[1:])
    return _MISSING


_ITEM_FIELDS_OWN = ("every", "some", "none", "no-items", "no-tool", NO_VALUE, *_UNANSWERED)


@_gated(
    "server-item-fields",
    _ITEM_FIELDS_OWN,
    step=Param("label", "the step whose answer's items are read: a list (one request or a walk "
               "of pages) or a tool call (its content blocks)", required=True),
    field=Param("text", "the member read in each item, a dotted path (annotations.readOnlyHint)",
                required=True),
    equals=Param("text", "count an item only where the member has this value (type: image)"),
)  # fmt: skip
def _server_item_fields(ctx: Context) -> Outcome:
    """What a server puts in the items it lists, recorded: whether every item, some or none
    carries ``field``. Many members of a listed tool, prompt or resource are optional (a title,
    icons, annotations), so what a server sends is a fact about it, not a verdict; a client's
    display and a proxy's relay depend on it."""
    pages = _read_pages(ctx)
    if isinstance(pages, Outcome):
        return pages
    lines, results = pages
    path = str(ctx.params["field"]).split(".")
    member = ""
    items: list[Any] = []
    for result in results:
        member, found = _items(result)
        items += found
    evidence = _ev(*lines[:5])
    if not items:
        return Outcome(
            "no-items", f"the list holds no {member or 'items'}: nothing to read", evidence
        )
    having = [(item, _at(item, path)) for item in items]
    having = [(item, value) for item, value in having if value is not _MISSING]
    wanted = ctx.params.get("equals")
    if wanted is not None:
        having = [(i, v) for i, v in having if v == wanted or (isinstance(v, list) and wanted in v)]
    names = [json.loads(_key(member, item)) if member else "?" for item, _value in having]
    shown = ", ".join(f"{n}: {json.dumps(v, ensure_ascii=False)[:60]}" for n, (_i, v) in
                      zip(names[:4], having[:4], strict=True))  # fmt: skip
    field_name = ctx.params["field"] + (f" = {wanted}" if wanted is not None else "")
    if not having:
        return Outcome("none", f"none of {len(items)} {member} carries {field_name}", evidence)
    outcome = "every" if len(having) == len(items) else "some"
    said = f"{len(having)} of {len(items)} {member} carry {field_name} ({shown})"
    return Outcome(outcome, said[:400], evidence)


#: Values one completion answer holds at most (the completion page, every revision).
_MAX_VALUES = 100
_COMPLETION_OWN = ("bounded", "over-100", "total-below", "more-unsaid", NO_VALUE, *_UNANSWERED)


@_gated(
    "server-completion-values",
    _COMPLETION_OWN,
    step=Param("label", "the completion/complete step whose answer is read", required=True),
)
def _server_completion_values(ctx: Context) -> Outcome:
    """The values of a completion answer against what the page says of them: at most 100 in
    one answer, an optional total of all matches, and hasMore when more exist than were sent."""
    label = str(ctx.params["step"])
    unsent = _unsent(ctx, label)
    if unsent is not None:
        return unsent
    kind, line, result = _answer(ctx, label)
    if result is None:
        return _unanswered(kind, line)
    found = result.get("completion")
    completion: dict[str, Any] = found if isinstance(found, dict) else {}
    listed = completion.get("values")
    values: list[Any] = listed if isinstance(listed, list) else []
    total, more = completion.get("total"), completion.get("hasMore")
    said = f"{len(values)} values, total {json.dumps(total)}, hasMore {json.dumps(more)}"
    if values:
        said += f" ({', '.join(json.dumps(v, ensure_ascii=False)[:30] for v in values[:3])}…)"
    if len(values) > _MAX_VALUES:
        return Outcome("over-100", said, _ev(line))
    if isinstance(total, int) and total < len(values):
        return Outcome("total-below", said, _ev(line))
    if isinstance(total, int) and total > len(values) and more is not True:
        return Outcome("more-unsaid", said, _ev(line))
    return Outcome("bounded", said, _ev(line))
