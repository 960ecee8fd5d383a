"""Leaving the process: with a stage's exit code, and without the interpreter's teardown.

A stage's CLI fails a check by raising ``SystemExit`` itself (:func:`exit_with`).

When a command returns, CPython still clears every module and frees every object one by one:
with a revision's pydantic models loaded that is 60 to 70 ms, a sixth of a single
``mcp-compare run``, spent on memory the kernel takes back at once anyway. The console script
(:func:`compare.cli.script`) ends through :func:`leave` instead.

What a normal exit would still do is done first: the ``atexit`` handlers run (the watchdog's
goodbye among them) and the standard streams are flushed. The fast way is taken only when
nothing else is pending: another live non-daemon thread, or a stream that cannot be flushed
(a closed pipe), hands the exit back to the interpreter, which reports it as it always has.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn


def exit_with(code: int) -> None:
    """Exit with ``code`` (return when it is 0). typer.Exit is swallowed by
    ``app(standalone_mode=False)`` in compare/cli.py (click returns the code instead of
    exiting), so a failing check must raise SystemExit itself to reach the shell."""
    if code:
        raise SystemExit(code)


def exit_status(code: str | int | None) -> int:
    """The status ``sys.exit(code)`` would end with; prints a message code as it does."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _others_running() -> bool:
    main = threading.main_thread()
    return any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate())


def leave(code: str | int | None) -> NoReturn:
    """End the process with ``code`` as ``sys.exit`` would, skipping the module teardown."""
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None or _others_running():
        sys.exit(code)
    status = exit_status(code)
    run_handlers()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(status)  # the interpreter reports a broken or closed stream its own way
    os._exit(status)
