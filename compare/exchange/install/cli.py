"""Commands of this stage, mounted on the root app by ``compare.cli``."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this stage's commands to ``app`` (filled in by the stage's own work)."""
