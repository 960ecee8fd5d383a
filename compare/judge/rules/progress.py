"""Progress and cancellation of one request of ours, read in a server cell.

- ``progress-sent``: whether the server sent ``notifications/progress`` for the token our
  request of step ``step`` carried (in ``params._meta.progressToken``) while it was pending,
  and whether any carried a ``message``. A receiver may send progress; none is a fact.
- ``progress-increases``: whether those notifications' ``progress`` values grew each time.
- ``cancel-honoured``: after our ``notifications/cancelled`` (step ``cancel``) for the request
  of step ``step``, whether a response to it still came.
- ``cancel-progress``: whether progress for its token went on once the cancel had had time
  to arrive (``grace_s`` after it was sent: a notification already on its way is no fault).

A step the server listed no tool for reads ``no-tool``; a request refused with an error
before any progress reads ``refused``: neither says anything about progress.
"""

from __future__ import annotations

from typing import Any

from compare.judge._transcript import Line
from compare.judge.rules._context import Context
from compare.judge.rules._registry import Outcome, Param, _ev, rule
from compare.judge.rules.hygiene import PROGRESS, _key
from compare.judge.rules.server_modern import EITHER_GATE, either_gate

_STEP = Param("label", "the step whose request (with a progressToken) is read", required=True)
_CANCEL = Param("label", "the cancel step that cancelled it", required=True)


def _token(line: Line) -> Any:
    meta = line.params.get("_meta")
    return meta.get("progressToken") if isinstance(meta, dict) else None


def _progress(ctx: Context, request: Line, until: int | None) -> list[Line]:
    """The server's progress notifications for ``request``'s token after it was sent (and
    before line ``until``)."""
    token = _key(_token(request))
    return [
        x for x in ctx.tx.incoming()
        if x.method == PROGRESS and not x.is_request and x.n > request.n
        and (until is None or x.n < until) and _key(x.params.get("progressToken")) == token
    ]  # fmt: skip


def _read(ctx: Context) -> tuple[Line, Line | None, list[Line]] | Outcome:
    """The request, its response (None when none came) and its progress while pending; or
    the outcome of a step that sent nothing to read."""
    label = str(ctx.params["step"])
    trace = ctx.tx.steps.get(label)
    request = ctx.sent_request(label)
    if request is None or _token(request) is None:
        if trace is not None and trace.outcome == "no-tool":
            return Outcome("no-tool", "the server lists none of the tools the step would call")
        return Outcome("no-tool", "no request with a progressToken was sent in this step")
    response = ctx.tx.response_to(request.obj["id"], request.n)
    progress = _progress(ctx, request, response.n if response is not None else None)
    return request, response, progress


def _answered(ctx: Context) -> tuple[Line, Line | None, list[Line]] | Outcome:
    """:func:`_read`, with a request refused before any progress read as ``refused``."""
    read = _read(ctx)
    if isinstance(read, Outcome):
        return read
    _, response, progress = read
    if response is not None and "error" in response.obj and not progress:
        said = f"refused with an error before any progress: {(response.raw or '')[:200]}"
        return Outcome("refused", said, _ev(response))
    return read


@rule(
    "progress-sent",
    ("with-message", "sent", "none", "refused", "no-tool", *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP},
)
def _progress_sent(ctx: Context) -> Outcome:
    read = _answered(ctx)
    if isinstance(read, Outcome):
        return read
    request, response, progress = read
    token = _token(request)
    if not progress:
        end = "before its response" if response is not None else "while it was pending"
        return Outcome("none", f"no progress for token {token!r} {end}", _ev(request, response))
    said = f"{len(progress)} progress notification(s) for token {token!r}"
    messages = [x for x in progress if isinstance(x.params.get("message"), str)]
    if messages:
        said += f", {len(messages)} with a message (first: {messages[0].params['message']!r})"
        return Outcome("with-message", said[:300], _ev(request, *progress[:4]))
    return Outcome("sent", said + ", none with a message", _ev(request, *progress[:4]))


@rule(
    "progress-increases",
    ("increasing", "not-increasing", "one", "none", "refused", "no-tool", *EITHER_GATE),
    gate=either_gate,
    params={"step": _STEP},
)
def _progress_increases(ctx: Context) -> Outcome:
    read = _answered(ctx)
    if isinstance(read, Outcome):
        return read
    request, _response, progress = read
    if not progress:
        return Outcome("none", "no progress for the request's token: nothing to compare")
    values: list[Any] = [x.params.get("progress") for x in progress]
    shown = ", ".join(repr(v) for v in values[:8])
    if len(progress) == 1:
        return Outcome("one", f"one progress notification ({shown}): nothing to compare",
                       _ev(progress[0]))  # fmt: skip
    for before, after, line in zip(values, values[1:], progress[1:], strict=False):
        if not (_number(before) and _number(after) and after > before):
            said = f"progress {after!r} after {before!r} (values: {shown})"
            return Outcome("not-increasing", said, _ev(request, line))
    return Outcome("increasing", f"{len(values)} values, each above the last: {shown}",
                   _ev(*progress[:5]))  # fmt: skip


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cancel_line(ctx: Context) -> Line | None:
    trace = ctx.tx.steps.get(str(ctx.params["cancel"]))
    line = ctx.tx.by_n(trace.evidence) if trace is not None else None
    return line if line is not None and line.method == "notifications/cancelled" else None


def _cancelled(ctx: Context) -> tuple[Line, Line, Line | None, list[Line]] | Outcome:
    """The request, our cancel of it, its response (if any) and all its progress; or the
    outcome of a cell where the request was not pending when the cancel went."""
    read = _read(ctx)
    if isinstance(read, Outcome):
        return read
    request, response, _ = read
    cancel = _cancel_line(ctx)
    if cancel is None:
        return Outcome("not-cancelled", "the cancel step sent no notifications/cancelled")
    if response is not None and response.n < cancel.n:
        said = f"answered before the cancel was sent: {(response.raw or '')[:200]}"
        return Outcome("answered-first", said, _ev(response, cancel))
    return request, cancel, response, _progress(ctx, request, None)


_CANCEL_OWN = ("answered-first", "not-cancelled", "no-tool", *EITHER_GATE)


@rule(
    "cancel-honoured",
    ("no-response", "answered", "closed", *_CANCEL_OWN),
    gate=either_gate,
    params={"step": _STEP, "cancel": _CANCEL},
)
def _cancel_honoured(ctx: Context) -> Outcome:
    read = _cancelled(ctx)
    if isinstance(read, Outcome):
        return read
    request, cancel, response, _ = read
    if response is not None:
        said = f"a response after the cancel: {(response.raw or '')[:200]}"
        return Outcome("answered", said, _ev(cancel, response))
    closed = ctx.server_closed()
    if closed is not None and closed < ctx.last_step_end():
        return Outcome("closed", "the server closed before the cell's steps ended", [closed])
    return Outcome(
        "no-response", "no response to the cancelled request to the end of the cell",
        _ev(request, cancel),
    )  # fmt: skip


@rule(
    "cancel-progress",
    ("stopped", "continued", "no-progress", *_CANCEL_OWN),
    gate=either_gate,
    params={
        "step": _STEP,
        "cancel": _CANCEL,
        "grace_s": Param("text", "seconds after the cancel in which progress already on its way"
                         " is not counted (default 1)"),
    },
)  # fmt: skip
def _cancel_progress(ctx: Context) -> Outcome:
    read = _cancelled(ctx)
    if isinstance(read, Outcome):
        return read
    _request_line, cancel, _response, progress = read
    before = [x for x in progress if x.n < cancel.n]
    if not before:
        said = "no progress before the cancel: nothing shows the operation was running"
        return Outcome("no-progress", said, _ev(cancel))
    grace = float(ctx.params.get("grace_s") or 1)
    late = [x for x in progress if x.n > cancel.n and x.t - cancel.t > grace]
    if late:
        said = (
            f"{len(late)} progress notification(s) more than {grace:g} s after the cancel"
            f" (first {late[0].t - cancel.t:.1f} s after it)"
        )
        return Outcome("continued", said, _ev(cancel, *late[:4]))
    said = f"{len(before)} progress notification(s) before the cancel, none {grace:g} s after it"
    return Outcome("stopped", said, _ev(before[-1], cancel))
