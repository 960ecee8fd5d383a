"""Fake MCP clients for the harness tests, and targets that launch them."""

from __future__ import annotations

import sys
from pathlib import Path

from compare.exchange._targets import Target, parse_target

FAKE_CLIENT = Path(__file__).resolve().parent / "fake_client.py"


def fake_target(
    mode: str,
    *,
    ends: str = "harness",
    timeout_s: float = 20,
    extra: list[str] | None = None,
    can_change_roots: bool = True,
    variants: list[str] | None = None,
) -> Target:
    """A ``command`` target running ``fake_client.py --mode MODE -- {server_argv}``; with
    ``variants`` (common variant names) it reads the cell's host plan (``--plan``) as an SDK
    host does."""
    argv = [sys.executable, str(FAKE_CLIENT), "--mode", mode, "--control", "{control}"]
    argv += extra or []
    if variants:
        argv += ["--plan", "{host_plan}"]
    data = {
        "id": f"fake-{mode}",
        "name": f"fake client ({mode})",
        "kind": "command",
        "launch": {"argv": [*argv, "--", "{server_argv}"]},
        "ends": ends,
        "timeout_s": timeout_s,
        "can_change_roots": can_change_roots,
    }
    if variants:
        data["variants"] = variants
    return parse_target(data, Path(f"fake-{mode}.yaml"))
