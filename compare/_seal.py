"""A document's seal: the sha256 of its own content, stored beside it under ``seal``.

A JSON file we write and read back later as a cache (a cell's ``verdict.json``,
``build/citations.json``) carries one, so a hand-edit that keeps the JSON valid is still
caught: the reader recomputes the seal and, when it differs, rebuilds instead of trusting it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

KEY = "seal"


def seal_of(value: dict[str, Any], ignore: frozenset[str] = frozenset()) -> str:
    """sha256 of ``value`` without its seal (and the ``ignore`` keys), as compact sorted JSON."""
    body = {k: v for k, v in value.items() if k != KEY and k not in ignore}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def sealed(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with its seal set (the same dict)."""
    value.pop(KEY, None)
    value[KEY] = seal_of(value)
    return value


def holds(value: dict[str, Any]) -> bool:
    """Whether ``value`` carries a seal that matches its content."""
    return value.get(KEY) == seal_of(value)
