"""One error type for everything a user can fix, so the CLI can print it without a traceback."""

from __future__ import annotations


class CompareError(Exception):
    """A failure caused by input or environment, with a hint that says how to fix it.

    The CLI prints ``message`` and ``hint`` and exits with ``exit_code``; nothing else
    catches it. Programming errors stay ordinary exceptions so they keep their traceback.
    """

    def __init__(self, message: str, hint: str | None = None, exit_code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\nhint: {self.hint}"
