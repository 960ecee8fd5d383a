"""Leaving a command with a non-zero code from inside a stage's CLI."""

from __future__ import annotations


def exit_with(code: int) -> None:
    """Exit with ``code`` (return when it is 0). typer.Exit is swallowed by
    ``app(standalone_mode=False)`` in compare/cli.py (click returns the code instead of
    exiting), so a failing check must raise SystemExit itself to reach the shell."""
    if code:
        raise SystemExit(code)
