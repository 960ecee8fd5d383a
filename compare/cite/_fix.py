"""``cite --fix``: rewrite the line numbers of moved citations, and nothing else.

The area file is edited as text, not re-dumped from YAML, so comments, quoting, key order
and wrapping stay exactly as the author wrote them; only ``source:OLD`` becomes
``source:NEW`` inside the moved citation. The write is atomic.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from compare._atomic import write_text
from compare._paths import PROJECT_ROOT
from compare.cite._check import Report


@dataclass(frozen=True)
class Fix:
    """One rewrite: in ``file``, ``old`` became ``new``, ``count`` times."""

    file: str
    old: str
    new: str
    count: int


def _path(file: str) -> Path:
    path = Path(file)
    return path if path.is_absolute() else PROJECT_ROOT / path


def _swap(match: re.Match[str], rewrites: dict[str, str], counts: dict[str, int]) -> str:
    counts[match[1]] += 1
    return rewrites[match[1]]


def fix_moved(report: Report) -> list[Fix]:
    """Apply every ``moved`` result of ``report`` to its area file."""
    plans: dict[str, dict[str, str]] = {}
    for checked in report.checked:
        r = checked.result
        if r is None or r.status != "moved" or not r.found_at:
            continue
        c = r.citation
        new_start = r.found_at[0]
        new_end = new_start + (c.end - c.start)
        new = f"{c.source}:{new_start}" + (f"-{new_end}" if c.end != c.start else "")
        plans.setdefault(checked.file, {})[c.location] = new
    fixes: list[Fix] = []
    for file, rewrites in plans.items():
        path = _path(file)
        text = path.read_text("utf-8")
        # One pass for all rewrites, so a citation moved onto another's old line is not
        # rewritten twice; each location token must not continue with a digit or a range end.
        alternatives = sorted(rewrites, key=len, reverse=True)
        pattern = re.compile("(" + "|".join(map(re.escape, alternatives)) + r")(?![\d-])")
        counts: dict[str, int] = dict.fromkeys(rewrites, 0)

        text = pattern.sub(partial(_swap, rewrites=rewrites, counts=counts), text)
        fixes += [Fix(file, old, rewrites[old], n) for old, n in counts.items()]
        write_text(path, text)
    return fixes
