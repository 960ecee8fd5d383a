"""The folders of the machine that ran the comparison, named instead of spelled out on pages.

A client's stderr echoes the command line we started it with, and a server cell's wire log
notes the server's argv: both hold absolute paths of the checkout that ran them
(``/home/someone/mcp-compare/tools/venvs/...``). To a reader those are noise, and they say
where someone's checkout lives. Pages show each such folder by a name in angle brackets
instead; the downloadable transcript keeps the raw bytes. A traceback names the Python that
ran a program (``/root/.pyenv/versions/3.11.7/lib/...``) and tools keep caches in the home
folder: those are shown as ``<python>`` and ``~``.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from compare import _paths

#: What each folder is called on the pages.
TOOLS, RESULTS, CHECKOUT, PYTHON, HOME = "<tools>", "<results>", "<mcp-compare>", "<python>", "~"


@cache
def _pattern(folders: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    # Longest first, so a folder inside the checkout gets its own name; a path counts only
    # whole (followed by a separator, a quote, a space or the end), so /work/main does not
    # match /work/mainline.
    alternatives = "|".join(re.escape(p) for p, _ in sorted(folders, key=lambda f: -len(f[0])))
    return re.compile(rf"(?:{alternatives})(?=[/\\\s\"':,;)\]}}]|$)")


def unplace(text: str) -> str:
    """``text`` with the folders of this machine's checkout named instead of spelled out (the
    folders as configured now: a test or a run may point them elsewhere)."""
    folders = (
        (str(_paths.tools_dir()), TOOLS),
        (str(_paths.results_dir()), RESULTS),
        (str(_paths.PROJECT_ROOT), CHECKOUT),
        (sys.base_prefix, PYTHON),
        *((home, HOME) for home in _home()),
    )
    names = dict(folders)
    return _pattern(folders).sub(lambda m: names[m.group(0)], text)


def _home() -> list[str]:
    """The home folder, when it is a real folder deeper than the root (a container may set
    HOME to ``/``, which would name every path)."""
    try:
        home = str(Path.home())
    except RuntimeError:  # no home folder known
        return []
    return [home] if home.strip("/") else []
