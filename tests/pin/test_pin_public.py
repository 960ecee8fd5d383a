"""The names other stages import from ``compare.pin`` stay importable."""

from __future__ import annotations

import inspect

import compare.pin as pin


def test_public_surface() -> None:
    for name in ("load_pins", "pinned_path", "pinned_text", "upstream_link", "Pins"):
        assert name in pin.__all__ and hasattr(pin, name), name
    params = list(inspect.signature(pin.upstream_link).parameters)
    assert params == ["path", "start", "end"]
