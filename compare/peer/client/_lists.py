"""Server scenarios that read the server's own answers: following a list's ``nextCursor``, and
filling a request's parameters from an earlier answer (a listed resource's URI, a listed
prompt's name), so a scenario asks about what *that* server offers without naming it.

Both are data in the scenario (``paginate``/``max_pages``, ``params_from``); nothing here names
a feature. What the server answered is recorded as it came; the judge reads it afterwards.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False  # not importing typing keeps start-up lean; mypy treats this name as True
if TYPE_CHECKING:
    from typing import Any

#: A page's label: the walk's own label for the first page, ``<label>:page-<n>`` after it.
PAGE = "{label}:page-{n}"
#: Pages a walk asks for at most when the scenario does not say (a server that keeps handing
#: out cursors would otherwise hold the cell until its bound).
MAX_PAGES = 5


def _dig(value: Any, path: str) -> Any:
    """The member at a dotted path (``result.resources.0.uri``); None when any part is missing."""
    for part in path.split(".") if path else []:
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return value


def _holds(item: Any, path: str) -> bool:
    """Whether ``path`` is truthy in ``item``; a ``[]`` part means "in any element of the list"
    (``arguments[].required``: some argument is required)."""
    head, sep, rest = path.partition("[].")
    if not sep:
        return bool(_dig(item, path))
    found = _dig(item, head)
    return isinstance(found, list) and any(_holds(x, rest) for x in found)


def pick(answers: dict[str, Any], spec: dict[str, Any]) -> Any:
    """One value from an earlier step's answer: the list at ``items`` (a dotted path in the
    answer of step ``from``), its first element for which ``has`` holds (any element without
    ``has``), then ``take`` inside it. None when nothing matches."""
    answer = answers.get(str(spec.get("from")))
    found = _dig(answer, str(spec.get("items", "")))
    if not isinstance(found, list):
        return None
    has = spec.get("has")
    for item in found:
        if has is None or _holds(item, str(has)):
            return _dig(item, str(spec.get("take", "")))
    return None


def filled(step: dict[str, Any], answers: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """The step's params with every ``params_from`` member filled in, or (None, what was
    missing) when one cannot be: then the request is not sent."""
    params = json.loads(json.dumps(step.get("params") or {}))  # a copy: the step is data
    for name, spec in (step.get("params_from") or {}).items():
        value = pick(answers, spec)
        if value is None:
            return None, f"{name}: nothing in {spec.get('from')}'s answer matched"
        # a dotted name fills a member of an object param (``ref.name``: the name in ref)
        *outer, last = name.split(".")
        place = params
        for part in outer:
            inner = place.get(part)
            place[part] = inner if isinstance(inner, dict) else {}
            place = place[part]
        place[last] = value
    return params, ""


def _tools(got: Any) -> list[dict[str, Any]]:
    """The tools of one tools/list answer (none when it is not a result listing them)."""
    result = (got[1].get("result") if got else None) or {}
    found = result.get("tools") if isinstance(result, dict) else None
    return [t for t in found if isinstance(t, dict)] if isinstance(found, list) else []


def walk(client: Any, step: dict[str, Any], timeout: float, record: dict[str, Any]) -> None:
    """Ask for a list and follow its ``nextCursor`` page by page, each cursor sent back as it
    came, until a page has none, a page is refused or goes unanswered, or ``max_pages`` pages
    were asked. The first page is the step itself; each later one is recorded as a step of
    its own (``<label>:page-<n>``), so every page's answer can be read by its label."""
    method = str(step["paginate"])
    base = dict(step.get("params") or {})
    label = str(step.get("label") or f"#{record['index']}")
    pages = int(step.get("max_pages", MAX_PAGES))
    rid, got = client.call(method, base or None, timeout)
    record.update(id=rid, evidence=got and got[0], pages=1)
    client.answers[label] = got[1] if got else None
    listed = _tools(got)
    for n in range(2, pages + 1):
        result = (got[1].get("result") if got else None) or {}
        cursor = result.get("nextCursor") if isinstance(result, dict) else None
        if cursor is None or client.closed:
            break
        page = PAGE.format(label=label, n=n)
        client.tx.note(event="step", index=record["index"], step={"page": method, "label": page})
        rid, got = client.call(method, {**base, "cursor": cursor}, timeout)
        client.tx.note(
            event="step-done", index=record["index"], label=page,
            outcome="ok" if got else "timeout", id=rid, evidence=got and got[0],
        )  # fmt: skip
        client.answers[page] = got[1] if got else None
        listed += _tools(got)
        record["pages"] = n
    if method == "tools/list":
        client.tools = listed  # a later tool_call picks from every page
    last = (got[1].get("result") if got else None) or {}
    more = isinstance(last, dict) and last.get("nextCursor") is not None
    record["outcome"] = "timeout" if not got else ("max-pages" if more else "ok")
