"""What a revision page shows per area: the area's own items and changes, with the rest as context.

The diff lists, for an area, every definition its messages touch: its own (roles ``core``,
``owned``, ``listed``, ``partial``) and those that only carry or are named by them
(``embedder``: ``CallToolRequestParams`` carries a roots request in 2026-07-28; ``referenced``:
``RequestParams``). A reader of the roots section of a revision page wants the first kind;
counting the second as "roots changes" buried the page in tool, prompt and resource items.
"""

from __future__ import annotations

from typing import Any

from compare.site._inputs import Area, SiteData
from compare.site._models_view import diff_sections

#: Roles of the diff's definitions that only carry or are named by an area's messages
#: (``CallToolRequestParams`` embeds a roots request in 2026-07-28; ``RequestParams`` is
#: referenced): context on a revision page, never counted as the area's own changes.
CONTEXT_ROLES = {"embedder", "referenced"}
OWN_ROLES = {"core", "owned", "listed", "partial"}


def own_items(items: dict[str, Any]) -> set[str]:
    """The area's own items: all but the context definitions (and their fields)."""
    context = set()
    for name, body in items.items():
        if not isinstance(body, dict):
            continue
        roles = {
            v.get("role") for v in (body.get("revisions") or {}).values() if isinstance(v, dict)
        }
        if roles & CONTEXT_ROLES and not roles & OWN_ROLES:
            context.add(name)
    return {
        name for name in items if not any(name == d or name.startswith(d + ".") for d in context)
    }


def revision_sections(data: SiteData, rev: str, areas: list[Area]) -> list[dict[str, Any]]:
    """What a revision page shows per area: its changes, items, notice and classes.

    The diff's sections come in the diff's order; an area it has no section for (no
    ``schema`` key in its file) is listed with no items.
    """
    titles = {a.id: a.title for a in areas}
    sections = diff_sections(data.diff)
    out: list[dict[str, Any]] = []
    for name in list(sections) + [a.id for a in areas if a.id not in sections]:
        section = sections.get(name) or {}
        raw_items = section.get("items")
        items: dict[str, Any] = raw_items if isinstance(raw_items, dict) else {}
        dep = (section.get("deprecation") or {}).get(rev)
        rev_models = data.models.get(rev)
        own = own_items(items)
        out.append(
            {
                "id": name,
                "title": titles.get(name) or str(section.get("title") or name),
                "in_diff": name in sections,
                "changes": [
                    c
                    for c in section.get("changes") or []
                    if isinstance(c, dict) and c.get("revision") == rev and c.get("item") in own
                ],
                "all_changes": [
                    c
                    for c in section.get("changes") or []
                    if isinstance(c, dict) and c.get("item") in own
                ],
                "items": {
                    item: (body.get("revisions") or {}).get(rev)
                    for item, body in items.items()
                    if isinstance(body, dict) and item in own
                },
                "context": {
                    item: (body.get("revisions") or {}).get(rev)
                    for item, body in items.items()
                    if isinstance(body, dict) and item not in own
                },
                "deprecation": dep if isinstance(dep, dict) else None,
                "models": None if rev_models is None else rev_models.get(name, {}),
            }
        )
    return out
