"""What a client puts in the ``_meta`` of a request it sends, read in a client cell.

- ``request-meta-key``: whether the first request of ``method`` the client sent carries
  ``key`` in ``params._meta`` (a ``progressToken``: the client asks for progress), with its
  value shown. Asking for progress is the client's choice, so the reading is recorded; the
  token's type is the wire checks' (``wire-valid`` validates the request at its revision).
"""

from __future__ import annotations

from compare.judge.rules._context import Context
from compare.judge.rules._registry import EARLY, Outcome, Param, _ev, rule, stopped_early


@rule(
    "request-meta-key",
    ("carried", "absent", "not-sent", *EARLY),
    gate=stopped_early,
    params={
        "method": Param("method", "the request read", required=True),
        "key": Param("text", "the _meta key looked for (progressToken)", required=True),
    },
)
def _request_meta_key(ctx: Context) -> Outcome:
    method, key = ctx.params["method"], str(ctx.params["key"])
    line = next((x for x in ctx.tx.incoming() if x.is_request and x.method == method), None)
    if line is None:
        return Outcome("not-sent", f"no {method} request")
    meta = line.params.get("_meta")
    if isinstance(meta, dict) and key in meta:
        return Outcome("carried", f"{key} = {meta[key]!r}"[:300], _ev(line))
    keys = sorted(meta) if isinstance(meta, dict) else []
    said = f"no {key} in its _meta" + (f" (keys: {', '.join(keys)[:200]})" if keys else "")
    return Outcome("absent", said, _ev(line))
