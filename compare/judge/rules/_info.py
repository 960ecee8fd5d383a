"""What an ``Implementation`` object (clientInfo, serverInfo) carries, read the same way for
either side, so the client and server rows about it use one vocabulary."""

from __future__ import annotations

from typing import Any

#: The optional members of ``Implementation``: title from 2025-06-18, the others from 2025-11-25.
INFO_EXTRAS = ("title", "description", "websiteUrl", "icons")


def read_info(info: Any) -> tuple[str, str]:
    """``(outcome, detail)``: ``incomplete`` without a string name and version (the schema
    requires both), else ``extended`` with the optional members it carries, or
    ``name-version``."""
    if not (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version"), str)
    ):
        return "incomplete", f"{info!r}"[:300]
    extras = [k for k in INFO_EXTRAS if k in info]
    named = f"{info['name']} {info['version']}"
    if extras:
        return "extended", f"{named}, with {', '.join(extras)}"
    return "name-version", f"{named}, nothing more"
