"""Client rules on the lists the peer serves in pages (``serves.page_size``): whether the client
follows every ``nextCursor`` we hand out, sending each back exactly as we wrote it.

- ``client-pages``: for the list request ``method``, the cursors in our answers against the
  cursors in the client's requests: every one sent back (the whole list read), none (the
  first page only), some, or a cursor we never wrote (one the client changed). A client
  that never asked for the list is not judged.

In a client cell the peer is ours: ``out`` lines are the peer's, ``in`` lines the client's.
The cursor is compared as the JSON string it is on each side, so a client that re-encodes one
(``+`` as ``%2B``, say) sends a cursor we never wrote.
"""

from __future__ import annotations

import json

from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, Param, _ev, rule, stopped_early


@rule(
    "client-pages",
    ("all-pages", "first-page-only", "some-pages", "altered-cursor", "one-page", "not-listed",
     *EARLY),
    gate=stopped_early,
    params={"method": Param("method", "the list request whose pages are read", required=True)},
)  # fmt: skip
def _client_pages(ctx: Context) -> Outcome:
    method = str(ctx.params["method"])
    asked = [x for x in ctx.tx.incoming() if x.is_request and x.method == method]
    if not asked:
        return Outcome("not-listed", f"the client never sent {method}")
    ids = {json.dumps(x.obj.get("id")) for x in asked}
    answers = [
        x for x in ctx.tx.lines
        if x.dir == "out" and x.is_response and json.dumps(x.obj.get("id")) in ids
    ]  # fmt: skip
    handed = [
        c for x in answers
        if isinstance(c := (x.obj.get("result") or {}).get("nextCursor"), str)
    ]  # fmt: skip
    sent = [x.params["cursor"] for x in asked if "cursor" in x.params]
    evidence = _ev(*asked[:4])
    if not handed:
        return Outcome(
            "one-page", f"{len(asked)} {method}, each answered whole: no cursor to follow", evidence
        )
    odd = [c for c in sent if c not in handed]
    if odd:
        ours = json.dumps(handed[0])[:60]
        said = f"sent cursor {json.dumps(odd[0])[:80]}, which we never wrote (ours: {ours})"
        return Outcome("altered-cursor", said, evidence)
    missing = [c for c in handed if c not in sent]
    pages = f"{len(handed) + 1} pages"
    if not sent:
        return Outcome(
            "first-page-only", f"{method} answered in {pages}; no cursor sent back", evidence
        )
    if missing:
        said = f"{method} in {pages}; {len(sent)} cursor(s) sent back, {len(missing)} never"
        return Outcome("some-pages", said, evidence)
    return Outcome("all-pages", f"{method} in {pages}; every cursor sent back as written", evidence)
